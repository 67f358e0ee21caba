package scxstar

import (
	"testing"

	"schedplay/engine"
)

// claimAndQueue is scx_qmap's shape without its maps: select_cpu claims an
// idle CPU and returns it, inserting nothing; enqueue queues on a user DSQ;
// dispatch consumes it. The kernel moves the task to the returned CPU
// (set_task_cpu in try_to_wake_up) and wakeup_preempt reschedules that CPU
// when it is idle, so the claimed CPU runs dispatch and takes the task.
const claimAndQueue = `
Q = 0

def init():
    scx.create_dsq(Q)

def select_cpu(p, prev_cpu, wake_flags):
    if scx.test_and_clear_cpu_idle(prev_cpu):
        return prev_cpu
    cpu = scx.pick_idle_cpu(p)
    if cpu >= 0:
        return cpu
    return prev_cpu

def enqueue(p, enq_flags):
    scx.dsq_insert(p, Q, scx.SLICE_DFL, enq_flags)

def dispatch(cpu, prev):
    scx.dsq_move_to_local(Q)
`

// TestClaimAndQueueRunsHackbench: a policy that claims an idle CPU in
// select_cpu and queues the task on a shared DSQ keeps the machine as busy
// as scx_simple on hackbench and completes as many tasks.
func TestClaimAndQueueRunsHackbench(t *testing.T) {
	sc := readExample(t, "hackbench", "workload.hackbench.loops=100", "duration_ms=2000")
	want := goSimple(t, sc, "")
	s, err := engine.NewSimScx(withPolicy(sc, claimAndQueue), CompilerNamed("claim.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	got := s.Run()
	if got.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", got.ScxExit)
	}
	t.Logf("claim-and-queue: completed %d elapsed %v busy %.2f; scx_simple: completed %d elapsed %v busy %.2f",
		got.Completed, got.ElapsedS, got.BusyVCPUsMean, want.Completed, want.ElapsedS, want.BusyVCPUsMean)
	if got.Completed != want.Completed {
		t.Errorf("completed %d tasks, scx_simple %d", got.Completed, want.Completed)
	}
	if got.BusyVCPUsMean < 0.8*want.BusyVCPUsMean {
		t.Errorf("busy vCPUs %.2f, under 0.8 of scx_simple's %.2f: claimed CPUs were never woken", got.BusyVCPUsMean, want.BusyVCPUsMean)
	}
	if want.ElapsedS > 0 && (got.ElapsedS == 0 || got.ElapsedS > 1.5*want.ElapsedS) {
		t.Errorf("hackbench took %v s, scx_simple %v s", got.ElapsedS, want.ElapsedS)
	}
}

// queueOnly keeps select_cpu's answer the previous CPU and queues every
// task on a user DSQ: the previous CPU's reschedule and its dispatch are
// all that run a task.
const queueOnly = `
Q = 7

def init():
    scx.create_dsq(Q)

def select_cpu(p, prev_cpu, wake_flags):
    return prev_cpu

def enqueue(p, enq_flags):
    scx.dsq_insert(p, Q, scx.SLICE_DFL, enq_flags)

def dispatch(cpu, prev):
    scx.dsq_move_to_local(Q)
`

// TestTasksQueuedAtTimeZeroRun: a task queued on a user DSQ at time 0,
// before any CPU has idled, runs at once: every CPU's first schedule runs
// dispatch (no kick is lost before a CPU's first idle entry).
func TestTasksQueuedAtTimeZeroRun(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"queue only", queueOnly},
		{"claim and queue", claimAndQueue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := readExample(t, "hackbench", "workload.hackbench.loops=10", "duration_ms=1000")
			s, err := engine.NewSimScx(withPolicy(sc, tc.src), CompilerNamed("q.star"))
			if err != nil {
				t.Fatal(err)
			}
			first := int64(-1)
			s.Observe(func(e engine.VisEvent) {
				if e.Kind == engine.VisRun && first < 0 {
					first = e.AtNs
				}
			})
			r := s.Run()
			if r.ScxExit.Ejected() {
				t.Fatalf("ejected: %+v", r.ScxExit)
			}
			// The parent is woken at time 0; a context switch later it runs.
			if first < 0 || first > 100_000 {
				t.Errorf("the first task ran at %d ns: want within 100 µs of time 0", first)
			}
			if r.Completed != 400 {
				t.Errorf("completed %d of hackbench's 400 tasks", r.Completed)
			}
		})
	}
}

// TestOpsFlags: a policy's top-level flags are its ops flags
// (sched_ext_ops.flags).
func TestOpsFlags(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int64
	}{
		{"def init():\n    pass\n", 0},
		{"flags = scx.OPS_KEEP_BUILTIN_IDLE\n", engine.ScxOpsKeepBuiltinIdle},
		{"flags = scx.OPS_KEEP_BUILTIN_IDLE | scx.OPS_ENQ_LAST\n", engine.ScxOpsKeepBuiltinIdle | engine.ScxOpsEnqLast},
	} {
		p, err := Compile("f.star", tc.src, 20_000_000)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Flags(); got != tc.want {
			t.Errorf("%q: flags %#x, want %#x", tc.src, got, tc.want)
		}
	}
}
