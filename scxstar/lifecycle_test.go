package scxstar

import (
	"testing"

	"go.starlark.net/starlark"
)

// TestLifecycleCallbacks: init_task(p, False), enable(p), set_weight(p,
// p.weight), in that order, once per task at its first sight
// (scx_init_task, scx_enable_task); exit_task and dequeue compile and are
// never called (scx_api.go says why).
func TestLifecycleCallbacks(t *testing.T) {
	sc := smtMachine(t)
	sc.Workload.RTApp = `{"tasks": {"w": {"instance": 3, "loop": -1, "run": 3000, "sleep": 2000},
		"n": {"loop": -1, "run": 1000, "sleep": 1000}}}`
	p := mustRun(t, sc, `
def init_task(p, fork):
    check(not fork, "fork is False: every task exists when the policy loads")
    state["log"].append(("init_task", p.pid))

def enable(p):
    state["log"].append(("enable", p.pid))

def set_weight(p, weight):
    check(weight == p.weight, "set_weight's weight is p.weight")
    state["log"].append(("set_weight", p.pid, weight))

def exit_task(p):
    scx.error("exit_task was called")

def dequeue(p, deq_flags):
    scx.error("dequeue was called")
`)
	seen := map[int]int{} // pid: how many of its calls so far
	weights := map[int64]bool{}
	for _, v := range listOf(t, stateOf(t, p, "log")) {
		e := v.(starlark.Tuple)
		op := e[0].(starlark.String).GoString()
		pid, _ := starlark.AsInt32(e[1])
		want := []string{"init_task", "enable", "set_weight"}[min(seen[pid], 2)]
		if seen[pid] > 2 || op != want {
			t.Fatalf("pid %d: call %d is %s, want %s (log %v)", pid, seen[pid]+1, op, want, v)
		}
		if op == "set_weight" {
			w, _ := e[2].(starlark.Int).Int64()
			weights[w] = true
		}
		seen[pid]++
	}
	if len(seen) != 4 {
		t.Errorf("%d tasks were initialised, want the 4 of the description", len(seen))
	}
	if len(weights) == 0 {
		t.Error("set_weight was never called")
	}
}
