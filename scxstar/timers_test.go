package scxstar

import (
	"bytes"
	"testing"

	"go.starlark.net/starlark"
)

// timersPolicy starts several timers: a and b at 1 ms (a first), timer() at
// 2 ms, c at 5 ms replaced by c at 6 ms; a restarts itself once for 4 ms;
// d is started from a dispatch and must fire on that dispatch's CPU. It
// keeps tasks on a user DSQ, perf levels set, so that a checkpoint holds
// both the timers and the levels.
const timersPolicy = `
state["d_cpu"] = -1

def log(name):
    state["log"].append((name, scx.now(), scx.this_cpu()))

def a():
    log("a")
    if len([e for e in state["log"] if e[0] == "a"]) == 1:
        scx.timer_start(3000000, a)

def b():
    log("b")

def c():
    log("c")

def d():
    check(scx.this_cpu() == state["d_cpu"], "d fires on the CPU that started it")
    scx.cpuperf_set(scx.this_cpu(), 512)
    scx.timer_start(7000000, d)

def timer():
    log("timer")

def init():
    scx.create_dsq(0)
    scx.timer_start(1000000, a)
    scx.timer_start(1000000, b)
    scx.timer_start(2000000)
    scx.timer_start(5000000, c)
    scx.timer_start(6000000, c)

def enqueue(p, enq_flags):
    scx.dsq_insert(p, 0, scx.SLICE_DFL, enq_flags)

def dispatch(cpu, prev):
    if state["d_cpu"] < 0 and cpu > 0:
        state["d_cpu"] = cpu
        scx.timer_start(1500000, d)
    scx.dsq_move_to_local(0)
`

// TestTimers: each timer fires once when it is due, on the CPU that started
// it, those due together in the order they were started; starting a timer
// again replaces it.
func TestTimers(t *testing.T) {
	p := mustRun(t, smtMachine(t), timersPolicy)
	var got []string
	for _, v := range starlark.Tuple(listOf(t, stateOf(t, p, "log"))) {
		e := v.(starlark.Tuple)
		got = append(got, e[0].(starlark.String).GoString()+"@"+e[1].String()+"/"+e[2].String())
	}
	want := []string{"a@1000000/0", "b@1000000/0", "timer@2000000/0", "a@4000000/0", "c@6000000/0"}
	if len(got) != len(want) {
		t.Fatalf("timers fired %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("timers fired %v, want %v", got, want)
		}
	}
}

func listOf(t *testing.T, v starlark.Value) []starlark.Value {
	t.Helper()
	l, ok := v.(*starlark.List)
	if !ok {
		t.Fatalf("%s is not a list", v.Type())
	}
	out := make([]starlark.Value, l.Len())
	for i := range out {
		out[i] = l.Index(i)
	}
	return out
}

// TestTimersCheckpoint: a run resumed from a checkpoint taken while several
// timers are armed and perf levels are set ends as the run from zero.
func TestTimersCheckpoint(t *testing.T) {
	sc := withPolicy(smtMachine(t), probeHelpers+timersPolicy)
	want, _ := runJSON(t, sc)
	for _, atMs := range []int64{1, 3, 5} {
		res, r := resumedRun(t, sc, atMs*1e6)
		if got := resultsJSON(t, res, r); !bytes.Equal(want, got) {
			t.Errorf("resumed at %d ms, the run differs from the run from zero:\nzero    %.400s\nresumed %.400s", atMs, want, got)
		}
	}
}
