package kerneltrace

import (
	"os"
	"testing"
)

// LISA's trace.txt (testdata/NOTICE): a real `trace-cmd report` of an old
// kernel, sched_wakeup only, numeric prev_state.
func TestLISATrace(t *testing.T) {
	data, err := os.ReadFile("testdata/lisa-trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	if f := Detect(data); f != FormatText {
		t.Fatalf("Detect = %q", f)
	}
	tr, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	var sw, wk int
	for _, e := range tr.Events {
		switch {
		case e.Kind == KindSwitch:
			sw++
		case e.Kind == KindWaking && e.WakeupOnly:
			wk++
		}
	}
	// The counts grep gives: every sched line is read, the others skipped.
	if sw != 1856 || wk != 1068 || len(tr.Events) != sw+wk || tr.CPUs != 6 {
		t.Fatalf("%d switches, %d wakeups, %d events, %d CPUs", sw, wk, len(tr.Events), tr.CPUs)
	}
	m, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// sched_wakeup may fire on the wakee's CPU: without TrustWakeup no edge.
	if m.Counts.WakeEdges != 0 || m.Counts.Timers == 0 {
		t.Errorf("counts %+v", m.Counts)
	}
	span := float64(m.EndNs-m.StartNs) / 1e6
	var total float64
	for _, th := range m.Threads {
		total += th.Recorded.CPUMs
		if th.Recorded.CPUMs > span {
			t.Errorf("%s %d ran %.3f ms in a %.3f ms trace", th.Name(), th.Tid, th.Recorded.CPUMs, span)
		}
	}
	if total <= 0 || total > span*6 {
		t.Errorf("total CPU %.3f ms over 6 CPUs and %.3f ms", total, span)
	}
	trusted, _ := Build(tr, Options{TrustWakeup: true})
	if trusted.Counts.WakeEdges == 0 {
		t.Errorf("TrustWakeup made no edge: %+v", trusted.Counts)
	}
	t.Logf("%d threads, %.1f ms of CPU in %.1f ms; counts %+v", len(m.Threads), total, span, m.Counts)
}
