package engine

import (
	"fmt"
	"strings"
	"testing"
)

// Kicks, refusals, idle tracking and ops flags of the sched_ext core, with
// the Go probe policy of scx_core_test.go.

// TestScxSelfKick: a CPU may kick itself from any callback
// (scx_bpf_kick_cpu has no exception for this CPU): an idle CPU that kicks
// itself from its dispatch dispatches again after the kick's interrupt,
// though nothing else wakes it.
func TestScxSelfKick(t *testing.T) {
	sc := rtappScenario(`{"tasks": {"t": {"cpus": [0], "run": 1000, "sleep": 1000}}}`)
	sc.DurationMs = 20
	var times []int64
	ops := &probeOps{}
	ops.disp = func(k *ScxKernel, cpu int, prev ScxTask) error {
		if cpu != 3 {
			return nil
		}
		times = append(times, k.NowNs())
		if len(times) < 4 {
			return k.KickCPU(3, 0)
		}
		return nil
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	// Each kick brings a dispatch after it (the interrupt's, or the one
	// after the CPU paid for sending it), and the CPU idles once it stops.
	if len(times) < 4 || times[len(times)-1] > 100_000 {
		t.Errorf("CPU 3 dispatched at %v: want at least 4 times, 3 after its own kicks, all in the first 100 µs", times)
	}
}

// TestScxWatchdogLimit: a watchdog timeout above SCX_WATCHDOG_MAX_TIMEOUT
// (30 s) is refused, as bpf_scx_init_member refuses it (-E2BIG).
func TestScxWatchdogLimit(t *testing.T) {
	for _, tc := range []struct {
		ms int64
		ok bool
	}{{30_000, true}, {30_001, false}, {10, true}, {9, false}} {
		sc := DefaultScenario()
		sc.Sched.Policy = "scx"
		sc.Sched.Scx.WatchdogMs = tc.ms
		err := sc.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("watchdog_ms %d: Validate says %v, want ok=%v", tc.ms, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "sched.scx.watchdog_ms") {
			t.Errorf("watchdog_ms %d: the error does not name the field: %v", tc.ms, err)
		}
	}
}

// TestScxUpdateIdleTransitions: update_idle(cpu, true) when a CPU goes from
// a task to idle, update_idle(cpu, false) when it leaves idle for a task,
// nothing for idle to idle (__scx_update_idle's do_notify): on each CPU the
// calls alternate, and a task runs only after the CPU said it left idle.
func TestScxUpdateIdleTransitions(t *testing.T) {
	sc := loadExample(t, "hackbench", "workload.hackbench.loops=20", "machine.vcpus=4", "duration_ms=2000")
	var state [4]int // 0: never told, 1: idle, 2: busy
	var errs []string
	calls := 0
	ops := &probeOps{defined: ScxOpUpdateIdle | ScxOpRunning}
	ops.flags = ScxOpsKeepBuiltinIdle
	ops.idle = func(k *ScxKernel, cpu int, idle bool) error {
		calls++
		want := 2
		if !idle {
			want = 1
		}
		if state[cpu] != 0 && state[cpu] != want {
			errs = append(errs, fmt.Sprintf("update_idle(%d, %v) at %d twice in a row", cpu, idle, k.NowNs()))
		}
		state[cpu] = map[bool]int{true: 1, false: 2}[idle]
		return nil
	}
	ops.running = func(k *ScxKernel, p ScxTask) error {
		if state[k.ThisCPU()] == 1 {
			errs = append(errs, fmt.Sprintf("pid %d runs on CPU %d, which the policy was last told is idle", p.PID(), k.ThisCPU()))
		}
		return nil
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	if len(errs) > 0 || calls < 8 {
		t.Errorf("%d calls, %d wrong; the first: %v", calls, len(errs), errs)
	}
}

// TestScxBuiltinIdle: a policy that defines update_idle turns the built-in
// idle tracking off unless its flags keep it (scx_idle_enable); the idle
// helpers are then its error (check_builtin_idle_enabled).
func TestScxBuiltinIdle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flags  int64
		defIdl bool
		eject  bool
	}{
		{"no update_idle", 0, false, false},
		{"update_idle", 0, true, true},
		{"update_idle, kept", ScxOpsKeepBuiltinIdle, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := loadExample(t, "hackbench", "workload.hackbench.loops=5", "machine.vcpus=4", "duration_ms=300")
			ops := &probeOps{defined: ScxOpSelectCPU}
			ops.flags = tc.flags
			if tc.defIdl {
				ops.defined |= ScxOpUpdateIdle
				ops.idle = func(*ScxKernel, int, bool) error { return nil }
			}
			ops.sel = func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) {
				c, _, err := k.SelectCPUDfl(p, prev, wf)
				return c, err
			}
			_, r := runProbe(t, sc, ops)
			if r.ScxExit.Ejected() != tc.eject {
				t.Fatalf("ejected %v (%q), want %v", r.ScxExit.Ejected(), r.ScxExit.Reason, tc.eject)
			}
			if tc.eject && !strings.Contains(r.ScxExit.Reason, "built-in idle tracking is disabled") {
				t.Errorf("the reason does not name the rule: %s", r.ScxExit.Reason)
			}
		})
	}
}

// TestScxIdleSearchRotates: pick_idle_cpu starts its search after the CPU
// the calling CPU found last (cpumask_any_and_distribute), not at CPU 0
// every time: a task that wakes on an idle machine and goes to the CPU
// picked for it visits several CPUs.
func TestScxIdleSearchRotates(t *testing.T) {
	sc := rtappScenario(`{"tasks": {"t": {"run": 100, "sleep": 3000}}}`)
	sc.DurationMs = 60
	picked := map[int]int{}
	ops := &probeOps{defined: ScxOpSelectCPU}
	ops.sel = func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) {
		c, err := k.PickIdleCPU(p)
		if c < 0 || err != nil {
			return prev, err
		}
		picked[c]++
		return c, nil
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	if len(picked) < 3 {
		t.Errorf("pick_idle_cpu returned %v (CPU: times): want the search to move on", picked)
	}
}

// TestScxEnqLast: with OPS_ENQ_LAST, a task whose slice ran out with no
// other task to run is not kept: it goes through enqueue with ENQ_LAST
// (balance_one, put_prev_task_scx), and runs on when the policy puts it on
// the local DSQ.
func TestScxEnqLast(t *testing.T) {
	sc := loadExample(t, "saturated-sync", "duration_ms=300", "warmup_ms=0", "machine.vcpus=1",
		"workload.sync_pairs.spinners=1", "workload.sync_pairs.pairs=0")
	last := 0
	ops := &probeOps{}
	ops.flags = ScxOpsEnqLast
	ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
		if f&ScxEnqLast != 0 {
			last++
			return k.DSQInsert(p, ScxDSQLocal, k.SliceDflNs(), f)
		}
		return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	// One spinner alone for 300 ms: a 20 ms slice, noticed at the tick.
	if last < 10 || r.BusyVCPUsMean < 0.99 {
		t.Errorf("%d ENQ_LAST enqueues, busy %.3f: want one a slice, the CPU kept busy", last, r.BusyVCPUsMean)
	}
}

// TestScxIdleWhileSharedWaits: idle_while_overloaded_frac counts an idle
// CPU's time while a task any CPU may run waits in a shared DSQ, not only
// while one waits behind a running task on a CPU's own queue: a policy
// whose dispatch feeds CPU 0 alone leaves three CPUs of four idle beside
// hackbench's waiting tasks.
func TestScxIdleWhileSharedWaits(t *testing.T) {
	sc := loadExample(t, "hackbench", "workload.hackbench.loops=20", "machine.vcpus=4", "duration_ms=2000")
	ops := &probeOps{defined: ScxOpSelectCPU}
	ops.sel = func(*ScxKernel, ScxTask, int, int64) (int, error) { return 0, nil }
	ops.disp = func(k *ScxKernel, cpu int, prev ScxTask) error {
		if cpu != 0 {
			return nil
		}
		_, err := k.DSQMoveToLocal(probeDSQ)
		return err
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	if r.Completed != 400 || r.BusyVCPUsMean > 1.2 {
		t.Fatalf("completed %d, busy %.2f: want hackbench done on CPU 0 alone", r.Completed, r.BusyVCPUsMean)
	}
	if f := r.IdleWhileOverloadedFrac; f < 0.5 {
		t.Errorf("idle_while_overloaded_frac %.3f: want most of the three idle CPUs' share (0.75)", f)
	}
}
