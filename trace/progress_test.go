package trace

import (
	"bytes"
	"testing"
)

// Progress sees the run move forward to the window's end, and watching it
// changes nothing in the file.
func TestProgress(t *testing.T) {
	sc := loadScenario(t, "testdata/two-cpu.json", "workload.clients=3")
	opts := WindowOptions(2_000_000, 4_500_000) // the scenario runs 5 ms
	want, _, _ := writeTrace(t, sc, opts)
	var seen []int64
	opts.Progress = func(nowNs int64) { seen = append(seen, nowNs) }
	got, _, _ := writeTrace(t, sc, opts)
	if !bytes.Equal(got, want) {
		t.Error("the trace differs when Progress is set")
	}
	if len(seen) < 4 || seen[len(seen)-1] != opts.UntilNs {
		t.Fatalf("Progress saw %v, want about one call per simulated ms ending at %d", seen, opts.UntilNs)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Errorf("Progress went from %d to %d", seen[i-1], seen[i])
		}
	}
}
