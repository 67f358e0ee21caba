package scxstar

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// stateOf is the probe's state[key].
func stateOf(t *testing.T, p *Policy, key string) starlark.Value {
	t.Helper()
	v, found, _ := p.globals["state"].(*starlark.Dict).Get(starlark.String(key))
	if !found {
		t.Fatalf("state has no %q", key)
	}
	return v
}

// TestWakerAndCurr: in select_cpu and runnable the waker is the task
// running on the waking CPU (cpu_curr there), None for a wake from outside;
// task_running tells a running task from a requeued one.
func TestWakerAndCurr(t *testing.T) {
	sc := readExample(t, "hackbench", "workload.hackbench.loops=20", "duration_ms=300")
	p := mustRun(t, sc, `
state["inside"] = 0
state["outside"] = 0

def select_cpu(p, prev_cpu, wake_flags):
    w = scx.waker()
    if w == None:
        state["outside"] += 1
    else:
        state["inside"] += 1
        check(scx.task_running(w), "the waker runs")
        check(scx.cpu_curr(scx.this_cpu()) == w, "the waker is cpu_curr of the waking CPU")
        check(w != p, "a task does not wake itself")
    return prev_cpu

def runnable(p, enq_flags):
    check(scx.waker() == None or scx.task_running(scx.waker()), "runnable's waker runs")

def enqueue(p, enq_flags):
    if enq_flags & scx.ENQ_WAKEUP == 0:
        check(not scx.task_running(p), "a requeued task is not running")
    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, enq_flags)

def dispatch(cpu, prev):
    c = scx.cpu_curr(cpu)
    check(c == None or c == prev, "dispatch's CPU runs nothing but prev")
`)
	if n, _ := starlark.AsInt32(stateOf(t, p, "inside")); n == 0 {
		t.Error("no wake had a waker: hackbench's senders wake its receivers")
	}
}

// TestWakerOutsideAWake: waker() is for a wake's callbacks only.
func TestWakerOutsideAWake(t *testing.T) {
	_, r := runProbe(t, smtMachine(t), "def dispatch(cpu, prev):\n    scx.waker()\n")
	if want := "waker: called from dispatch outside a wake"; !strings.Contains(r.ScxExit.Reason, want) {
		t.Fatalf("exit %q, want %q", r.ScxExit.Reason, want)
	}
}

// dsqWalk queues every task on DSQ 0 (FIFO) and dispatches the LAST task of
// its walk, moving that task (scx_bpf_dsq_move on the iterator's current
// task), or, with VTIME, moves every task to DSQ 1 in reverse pid order
// (dsq_move_vtime) and consumes DSQ 1.
const dsqWalk = `
VTIME = %s
state["moved"] = 0

def init():
    scx.create_dsq(0, 0)
    scx.create_dsq(1, -1)

def select_cpu(p, prev_cpu, wake_flags):
    return prev_cpu

def enqueue(p, enq_flags):
    scx.dsq_insert(p, 0, scx.SLICE_DFL, enq_flags)

def dispatch(cpu, prev):
    if prev != None:
        check(not scx.dsq_move_task(prev, scx.DSQ_LOCAL), "prev is not queued: nothing to move")
    tasks = scx.dsq_tasks(0)
    if VTIME:
        for p in tasks:
            scx.task_set_dsq_vtime(p, -p.pid)
            check(scx.dsq_move_vtime(p, 1), "move to DSQ 1")
        order = [p.pid for p in scx.dsq_tasks(1)]
        check(order == sorted(order, reverse=True), "DSQ 1 in vtime order")
        if scx.dsq_move_to_local(1):
            state["moved"] += 1
        return
    if len(tasks) == 0:
        return
    last = tasks[-1]
    check(scx.dsq_move_task(last, scx.DSQ_LOCAL), "move the walked task")
    check(not scx.dsq_move_task(last, scx.DSQ_LOCAL), "moved already")
    check(scx.dsq_nr_queued(0) == len(tasks) - 1, "one task left DSQ 0")
    state["moved"] += 1
`

// TestDSQWalk: dsq_tasks walks a user DSQ in order and dsq_move_task moves
// the task given, not the DSQ's first; dsq_move_vtime orders by dsq_vtime.
func TestDSQWalk(t *testing.T) {
	for _, vtime := range []string{"False", "True"} {
		t.Run("VTIME="+vtime, func(t *testing.T) {
			p := mustRun(t, smtMachine(t), strings.Replace(dsqWalk, "%s", vtime, 1))
			if n, _ := starlark.AsInt32(stateOf(t, p, "moved")); n == 0 {
				t.Error("dispatch moved nothing")
			}
		})
	}
}

// TestAPIErrors: the new helpers' rules, each ejecting with its message.
func TestAPIErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"create_dsq on a node the machine lacks", "def init():\n    scx.create_dsq(3, 1)\n", "create_dsq: node 1: the machine has nodes 0..0"},
		{"dsq_tasks of the global DSQ", "def init():\n    scx.dsq_tasks(scx.DSQ_GLOBAL)\n", "dsq_tasks: DSQ 1073741824 is built in"},
		{"dsq_move_task outside dispatch", "def select_cpu(p, c, f):\n    return c\ndef enqueue(p, f):\n    scx.dsq_move_task(p, scx.DSQ_GLOBAL)\n", "dsq_move_task: called from enqueue"},
		{"cpuperf_set past CPUPERF_ONE", "def init():\n    scx.cpuperf_set(0, 2000)\n", "cpuperf_set: perf 2000 for CPU 0: want 0..1024"},
		{"cpu_curr of no CPU", "def init():\n    scx.cpu_curr(8)\n", "cpu_curr: CPU 8 out of range 0..7"},
		{"a timer callback that is not a def", "def init():\n    scx.timer_start(1000, len)\n", "timer_start: callback: want a def of the policy's top level"},
		{"task_set_slice negative", "def select_cpu(p, c, f):\n    return c\ndef enqueue(p, f):\n    scx.task_set_slice(p, -1)\n", "task_set_slice: slice -1 is negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, r := runProbe(t, smtMachine(t), tc.src)
			if !strings.Contains(r.ScxExit.Reason, tc.want) {
				t.Fatalf("exit %q, want %q", r.ScxExit.Reason, tc.want)
			}
		})
	}
}

// TestCPUPerf: cpuperf_cap is machine.capacity; cpuperf_cur reads what
// cpuperf_set kept, CPUPERF_ONE before.
func TestCPUPerf(t *testing.T) {
	sc := smtMachine(t)
	sc.Machine.Capacity = []int{1024, 1024, 1024, 1024, 512, 512, 512, 512}
	mustRun(t, sc, `
def init():
    check(scx.cpuperf_cap(0) == 1024 and scx.cpuperf_cap(5) == 512, "cap")
    check(scx.cpu_capacity(5) == 512, "cpu_capacity")
    check(scx.cpuperf_cur(3) == scx.CPUPERF_ONE, "cur before a set")
    scx.cpuperf_set(3, 300)
    check(scx.cpuperf_cur(3) == 300 and scx.cpuperf_cur(2) == 1024, "cur after a set")
`)
}
