package kerneltrace

import "testing"

// A CPU that switches from another thread than the one it last switched to
// lost that one's switch-out: the thread is credited the time until then,
// not the rest of the trace (seen in tracefs recordings on a busy machine).
func TestLostSwitchOut(t *testing.T) {
	const text = `# tracer: nop
  a-10 [001] d..2. 1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=lost next_pid=76 next_prio=120
  b-11 [001] d..2. 1.001000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=c next_pid=12 next_prio=120
  c-12 [001] d..2. 1.002000: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
  x-13 [000] d..2. 1.900000: sched_switch: prev_comm=x prev_pid=13 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`
	tr, err := Read([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range m.Threads {
		if th.Tid == 76 && (th.Recorded.CPUMs < 0.999 || th.Recorded.CPUMs > 1.001) {
			t.Errorf("the thread whose switch-out was lost ran %.3f ms, want 1 (until its CPU switched from another)", th.Recorded.CPUMs)
		}
	}
	if m.Counts.LostSwitches != 1 {
		t.Errorf("%d lost switches counted, want 1", m.Counts.LostSwitches)
	}
}
