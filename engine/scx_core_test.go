package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Go policies that probe the sched_ext core's flow, each rule with the
// kernel function it follows (docs/mechanisms.md, The sched_ext core).

// probeOps is a configurable Go policy: a user DSQ (FIFO) that dispatch
// consumes, and hooks a test fills in.
type probeOps struct {
	ScxNoOps
	defined  ScxOpSet
	flags    int64
	sel      func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error)
	enq      func(k *ScxKernel, p ScxTask, f int64) error
	disp     func(k *ScxKernel, cpu int, prev ScxTask) error
	tick     func(k *ScxKernel, p ScxTask) error
	runnable func(k *ScxKernel, p ScxTask, f int64) error
	quiesc   func(k *ScxKernel, p ScxTask, f int64) error
	stop     func(k *ScxKernel, p ScxTask, runnable bool) error
	idle     func(k *ScxKernel, cpu int, idle bool) error
	running  func(k *ScxKernel, p ScxTask) error
}

const probeDSQ = 3

func (o *probeOps) Defined() ScxOpSet       { return o.defined | ScxOpInit | ScxOpEnqueue | ScxOpDispatch }
func (o *probeOps) Flags() int64            { return o.flags }
func (o *probeOps) Init(k *ScxKernel) error { return k.CreateDSQ(probeDSQ) }
func (o *probeOps) SelectCPU(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) {
	return o.sel(k, p, prev, wf)
}
func (o *probeOps) Enqueue(k *ScxKernel, p ScxTask, f int64) error {
	if o.enq != nil {
		return o.enq(k, p, f)
	}
	return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
}
func (o *probeOps) Dispatch(k *ScxKernel, cpu int, prev ScxTask) error {
	if o.disp != nil {
		return o.disp(k, cpu, prev)
	}
	_, err := k.DSQMoveToLocal(probeDSQ)
	return err
}
func (o *probeOps) Running(k *ScxKernel, p ScxTask) error { return o.running(k, p) }
func (o *probeOps) Tick(k *ScxKernel, p ScxTask) error    { return o.tick(k, p) }
func (o *probeOps) Runnable(k *ScxKernel, p ScxTask, f int64) error {
	return o.runnable(k, p, f)
}
func (o *probeOps) Quiescent(k *ScxKernel, p ScxTask, f int64) error { return o.quiesc(k, p, f) }
func (o *probeOps) Stopping(k *ScxKernel, p ScxTask, r bool) error   { return o.stop(k, p, r) }
func (o *probeOps) UpdateIdle(k *ScxKernel, cpu int, idle bool) error {
	return o.idle(k, cpu, idle)
}

// runProbe runs sc under ops to its horizon.
func runProbe(t *testing.T, sc Scenario, ops ScxOps) (*Sim, Results) {
	t.Helper()
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# the ops below stand in for its compiler\n"
	s, err := NewSimScx(sc, func(string, string, int64) (ScxOps, error) { return ops, nil })
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return s, s.Run()
}

// TestScxSelectedCPUIsWhereTheTaskGoes: the CPU select_cpu returns is the
// task's CPU from then on (set_task_cpu in try_to_wake_up), whether or not
// the task was inserted into a local DSQ, and an idle one is rescheduled
// (wakeup_preempt, resched_curr): a policy that sends every wake to CPU 1
// and queues it on a shared DSQ has CPU 1, and only CPU 1, rescheduled.
func TestScxSelectedCPUIsWhereTheTaskGoes(t *testing.T) {
	// hackbench's wakes come from running tasks (a socket write), so the
	// waker's CPU is busy and only the selected CPU may be rescheduled.
	sc := loadExample(t, "hackbench", "workload.hackbench.loops=20", "machine.vcpus=4", "duration_ms=500")
	wrong := 0
	ops := &probeOps{defined: ScxOpSelectCPU}
	ops.sel = func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) { return 1, nil }
	ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
		if f&ScxEnqWakeup != 0 && p.CPU() != 1 {
			wrong++
		}
		return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
	}
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# the ops below stand in for its compiler\n"
	s, err := NewSimScx(sc, func(string, string, int64) (ScxOps, error) { return ops, nil })
	if err != nil {
		t.Fatal(err)
	}
	resched := make([]int, sc.Machine.VCPUs)
	s.Observe(func(e VisEvent) {
		if e.Kind != VisDecision {
			return
		}
		if d := s.DecisionAt(int(e.Arg)); (d.Kind == DecIPISent || d.Kind == DecIPISuppressed) && strings.Contains(d.Reason, "selected CPU") {
			resched[d.Target]++
		}
	})
	r := s.Run()
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	if wrong > 0 {
		t.Errorf("enqueue saw %d woken tasks whose task_cpu is not CPU 1, the one select_cpu returned", wrong)
	}
	for cpu, n := range resched {
		if (cpu == 1) != (n > 0) {
			t.Errorf("reschedules of a selected idle CPU, by CPU: %v: want CPU 1's only", resched)
			break
		}
	}
	if r.Completed == 0 {
		t.Errorf("no work completed")
	}
}

// TestScxPinnedTaskSkipsSelectCPU: select_task_rq calls the class's
// select_task_rq only for a task allowed on more than one CPU; a pinned
// one is enqueued on its own CPU without select_cpu, and so is every task
// of a one-CPU machine.
func TestScxPinnedTaskSkipsSelectCPU(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cpus  int
		tasks string
		want  string // which wakes select_cpu may see: "free" or "none"
	}{
		{"pinned and free", 4, `{"tasks": {"pin": {"instance": 2, "cpus": [2], "run": 300, "sleep": 700}, "free": {"instance": 2, "run": 300, "sleep": 700}}}`, "free"},
		{"one CPU", 1, `{"tasks": {"free": {"instance": 2, "run": 300, "sleep": 700}}}`, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := rtappScenario(tc.tasks)
			sc.Machine.VCPUs = tc.cpus
			sc.DurationMs = 100
			seen := map[string]int{}
			ops := &probeOps{defined: ScxOpSelectCPU}
			ops.sel = func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) {
				seen[p.Name()[:3]]++
				if !p.Allowed((prev + 1) % k.NrCPUs()) {
					return 0, fmt.Errorf("select_cpu called for pinned pid %d", p.PID())
				}
				return prev, nil
			}
			_, r := runProbe(t, sc, ops)
			if r.ScxExit.Ejected() {
				t.Fatalf("ejected: %+v", r.ScxExit)
			}
			if r.Completed == 0 {
				t.Fatal("no work completed")
			}
			switch tc.want {
			case "free":
				if seen["fre"] == 0 || seen["pin"] != 0 {
					t.Errorf("select_cpu saw %v: want the free tasks' wakes only", seen)
				}
			case "none":
				if len(seen) != 0 {
					t.Errorf("select_cpu saw %v on a one-CPU machine: want none", seen)
				}
			}
		})
	}
}

// TestScxBalanceLoopConsumesGlobal: after dispatch, balance_one looks at the
// local DSQ and consumes the global DSQ again (scx_dispatch_sched), so a
// task dispatch moves to the global DSQ runs now, not at the watchdog.
func TestScxBalanceLoopConsumesGlobal(t *testing.T) {
	sc := loadExample(t, "hackbench", "workload.hackbench.loops=20", "machine.vcpus=4", "duration_ms=2000")
	ops := &probeOps{}
	ops.disp = func(k *ScxKernel, cpu int, prev ScxTask) error {
		_, err := k.DSQMove(probeDSQ, ScxDSQGlobal)
		return err
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	if r.Completed != 400 || r.ElapsedS == 0 || r.ElapsedS > 0.5 {
		t.Errorf("completed %d of 400 in %v s: tasks moved to the global DSQ waited", r.Completed, r.ElapsedS)
	}
}

// TestScxTickRunsOnTheTick: ops.tick runs at the CPU's periodic tick
// (task_tick_scx from sched_tick), on the jiffies grid, never at a step's
// end; a spent slice ends the turn there.
func TestScxTickRunsOnTheTick(t *testing.T) {
	sc := loadExample(t, "saturated-sync", "duration_ms=200", "warmup_ms=0", "sched.hz=250")
	ticks, off := 0, 0
	ops := &probeOps{defined: ScxOpTick}
	ops.tick = func(k *ScxKernel, p ScxTask) error {
		ticks++
		if k.NowNs()%4_000_000 != 0 {
			off++
		}
		return nil
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	// 4 busy CPUs, 250 ticks a second, 0.2 s.
	if want := 4 * 50; ticks < want-8 || ticks > want || off > 0 {
		t.Errorf("%d tick calls, %d off the 4 ms grid: want about %d, all on it", ticks, off, want)
	}
}

// TestScxSliceIsChargedForGood: a slice is what it says up to
// SCX_SLICE_INF (a 3 s slice runs 3 s, to the tick), and the time a task
// runs comes off it for good (update_curr_scx).
func TestScxSliceIsChargedForGood(t *testing.T) {
	sc := loadExample(t, "saturated-sync", "duration_ms=10000", "warmup_ms=0", "machine.vcpus=1",
		"workload.sync_pairs.spinners=2", "workload.sync_pairs.pairs=0")
	const slice = 3_000_000_000
	var starts []int64
	ops := &probeOps{defined: ScxOpRunning}
	ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
		return k.DSQInsert(p, probeDSQ, slice, f)
	}
	ops.running = func(k *ScxKernel, p ScxTask) error {
		starts = append(starts, k.NowNs())
		if p.Slice() > slice {
			return fmt.Errorf("pid %d starts with %d ns of slice", p.PID(), p.Slice())
		}
		return nil
	}
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# the ops below stand in for its compiler\n"
	s, err := NewSimScx(sc, func(string, string, int64) (ScxOps, error) { return ops, nil })
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	s.Observe(func(e VisEvent) {
		if e.Kind == VisDecision {
			if d := s.DecisionAt(int(e.Arg)); d.Kind == DecPreempt {
				reasons = append(reasons, d.Reason)
			}
		}
	})
	r := s.Run()
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	// The decision record names the task's own slice.
	for _, why := range reasons {
		if !strings.Contains(why, "3000 ms as inserted") {
			t.Errorf("a preemption says %q: want the task's 3000 ms slice named", why)
			break
		}
	}
	t.Logf("turns start at %v", starts)
	if len(starts) < 3 {
		t.Fatalf("tasks started %d times in 10 s: %v", len(starts), starts)
	}
	for i := 1; i < len(starts); i++ {
		if d := starts[i] - starts[i-1]; d < slice || d > slice+5_000_000 {
			t.Errorf("a turn lasted %d ns: want the 3 s slice, up to a tick more", d)
		}
	}
}

// TestScxDispatchPrev: dispatch's prev is the CPU's previous task when that
// was a sched_ext task that just left it, runnable or blocked (prev_on_scx
// in scx_dispatch_sched), and none when the CPU comes out of idle; a task
// that blocks is quiescent with SCX_DEQ_SLEEP (dequeue_task_scx).
func TestScxDispatchPrev(t *testing.T) {
	sc := loadExample(t, "hackbench", "workload.hackbench.loops=20", "machine.vcpus=4", "duration_ms=2000")
	var idle [4]bool
	var withPrev, withoutPrev, sleeps int
	var errs []string
	ops := &probeOps{defined: ScxOpUpdateIdle | ScxOpRunning | ScxOpQuiescent | ScxOpStopping}
	ops.idle = func(k *ScxKernel, cpu int, on bool) error {
		idle[cpu] = on
		return nil
	}
	ops.running = func(k *ScxKernel, p ScxTask) error {
		idle[k.ThisCPU()] = false
		return nil
	}
	last := map[int]int{} // CPU -> the pid that stopped there last
	ops.stop = func(k *ScxKernel, p ScxTask, runnable bool) error {
		last[k.ThisCPU()] = p.PID()
		return nil
	}
	ops.quiesc = func(k *ScxKernel, p ScxTask, f int64) error {
		if f&ScxDeqSleep == 0 {
			errs = append(errs, fmt.Sprintf("quiescent(pid %d) without DEQ_SLEEP", p.PID()))
		}
		sleeps++
		return nil
	}
	ops.disp = func(k *ScxKernel, cpu int, prev ScxTask) error {
		switch {
		case prev.Valid() && idle[cpu]:
			errs = append(errs, fmt.Sprintf("dispatch on CPU %d, idle, got prev pid %d", cpu, prev.PID()))
		case prev.Valid() && prev.PID() != last[cpu]:
			errs = append(errs, fmt.Sprintf("dispatch on CPU %d got prev pid %d, but pid %d stopped there last", cpu, prev.PID(), last[cpu]))
		case prev.Valid():
			withPrev++
		default:
			withoutPrev++
		}
		_, err := k.DSQMoveToLocal(probeDSQ)
		return err
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	if len(errs) > 0 {
		t.Errorf("%d wrong calls, the first: %s", len(errs), errs[0])
	}
	if withPrev == 0 || withoutPrev == 0 || sleeps == 0 {
		t.Errorf("dispatch with prev %d, without %d; quiescent %d: want some of each", withPrev, withoutPrev, sleeps)
	}
}

// TestScxEnqPreemptAndHead: an insert into a local DSQ with ENQ_PREEMPT
// goes to its head and preempts the CPU's task (dispatch_enqueue,
// local_dsq_post_enq), at a wake too; ENQ_HEAD goes to the head without
// preempting; a plain insert waits behind the queue. Two CPUs run four
// spinners with 20 ms slices, and a pair passes a message back and forth:
// a woken pair task waits for a slice unless its insert preempts.
func TestScxEnqPreemptAndHead(t *testing.T) {
	for _, tc := range []struct {
		name         string
		flags        int64
		lo, hi       float64 // the wake-to-run mean, µs
		spinnersBusy bool
	}{
		{"preempt", ScxEnqPreempt, 0, 50, true},
		{"head", ScxEnqHead, 1000, 1e6, true},
		{"tail", 0, 1000, 1e6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := loadExample(t, "saturated-sync", "duration_ms=600", "warmup_ms=100", "machine.vcpus=2",
				"workload.sync_pairs.spinners=4", "workload.sync_pairs.pairs=1")
			ops := &probeOps{}
			ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
				if f&ScxEnqWakeup != 0 {
					return k.DSQInsert(p, ScxDSQLocal, k.SliceDflNs(), f|tc.flags)
				}
				return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
			}
			_, r := runProbe(t, sc, ops)
			if r.ScxExit.Ejected() {
				t.Fatalf("ejected: %+v", r.ScxExit)
			}
			if w := r.WakeToRunUs.Mean; w < tc.lo || w > tc.hi {
				t.Errorf("wake-to-run mean %.1f µs: want %.0f to %.0f", w, tc.lo, tc.hi)
			}
		})
	}
}

// TestScxSharedDSQOrder: ENQ_PREEMPT puts a task at the head of a FIFO user
// DSQ (dispatch_enqueue): on one CPU with three spinners, pid 1, requeued
// so, runs every other turn.
func TestScxSharedDSQOrder(t *testing.T) {
	sc := loadExample(t, "saturated-sync", "duration_ms=500", "warmup_ms=0", "machine.vcpus=1",
		"workload.sync_pairs.spinners=3", "workload.sync_pairs.pairs=0")
	var order []int
	ops := &probeOps{defined: ScxOpRunning}
	ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
		if p.PID() == 1 && f&ScxEnqWakeup == 0 {
			f |= ScxEnqPreempt
		}
		return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
	}
	ops.running = func(k *ScxKernel, p ScxTask) error {
		order = append(order, p.PID())
		return nil
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	first := slices.Index(order, 1)
	if len(order) < 8 || first < 0 {
		t.Fatalf("runs %v: want several turns", order)
	}
	for i := first; i < len(order); i += 2 {
		if order[i] != 1 {
			t.Errorf("run order %v: want pid 1 every other turn from its first", order)
			break
		}
	}
}

// TestScxDSQKindWhileItHoldsTasks: a DSQ refuses a FIFO insert only while
// it holds vtime-ordered tasks, and the reverse (dispatch_enqueue tests the
// tasks it holds): on one CPU with two spinners the DSQ is empty at every
// requeue, and the policy changes the kind of insert each time.
func TestScxDSQKindWhileItHoldsTasks(t *testing.T) {
	sc := loadExample(t, "saturated-sync", "duration_ms=500", "warmup_ms=0", "machine.vcpus=1",
		"workload.sync_pairs.spinners=2", "workload.sync_pairs.pairs=0")
	vtime, switches := false, 0
	ops := &probeOps{}
	ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
		if n, _ := k.DSQNrQueued(probeDSQ); n == 0 {
			vtime = !vtime
			switches++
		}
		if vtime {
			return k.DSQInsertVtime(p, probeDSQ, k.SliceDflNs(), k.NowNs(), f)
		}
		return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	if switches < 10 {
		t.Errorf("the kind changed %d times: want one per slice", switches)
	}
}
