package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// longRTApp is an rt-app description of secs seconds that costs little to
// simulate: one thread working 1 ms in every 100.
func longRTApp(secs int) string {
	return `{"global": {"duration": ` + strconv.Itoa(secs) + `}, "tasks": {"t": {"loop": -1, "run": 1000, "timer": {"ref": "tick", "period": 100000}}}}`
}

// TestCLIRunsLongDescriptions: the CLI runs an rt-app description for its
// global.duration up to an hour (engine.MaxCLIDurationMs), the whole of it;
// a longer one runs its first hour and says so; a scenario asking more than
// an hour is refused naming duration_ms; and the page's limit stays.
func TestCLIRunsLongDescriptions(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		secs    int
		simS    float64
		note    string
		refusal string
		sets    []string
	}{
		{secs: 600, simS: 600},
		{secs: 5000, simS: 3600, note: "the description runs 5000 s; this run covers its first 3600 s"},
		{secs: 600, sets: []string{"--set", "duration_ms=3600001"}, refusal: "duration_ms: 3600001 is above the maximum 3600000"},
	} {
		path := filepath.Join(dir, "long.json")
		if err := os.WriteFile(path, []byte(longRTApp(tc.secs)), 0o644); err != nil {
			t.Fatal(err)
		}
		a := newTestApp(t, engine.Run)
		code := a.main(append([]string{"run", path, "--format", "json"}, tc.sets...))
		if tc.refusal != "" {
			if code == 0 || !strings.Contains(a.errOut.String(), tc.refusal) {
				t.Errorf("%d s %v: exit %d, %q; want the refusal %q", tc.secs, tc.sets, code, a.errOut, tc.refusal)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("%d s: exit %d: %s", tc.secs, code, a.errOut)
		}
		var r engine.Results
		if err := json.Unmarshal(a.out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		loops := r.RTApp.Tasks[0].Loops
		if r.SimSeconds != tc.simS || loops < int64(tc.simS*10)-1 {
			t.Errorf("%d s: simulated %v s with %d passes, want %v s at 10 a second", tc.secs, r.SimSeconds, loops, tc.simS)
		}
		if got := strings.Join(r.RTApp.Notes, "\n"); (tc.note == "") != (got == "") || !strings.Contains(got, tc.note) {
			t.Errorf("%d s: notes %q, want %q", tc.secs, got, tc.note)
		}
	}
	doc := `{"version": 1, "duration_ms": 120001}`
	if _, err := engine.DecodeScenario([]byte(doc)); err == nil || !strings.Contains(err.Error(), "duration_ms: 120001 is above the maximum 120000") {
		t.Errorf("the page's decoder took a run over 120 s: %v", err)
	}
}

// TestProgressIsTheSameRun: a long run reported as it goes is the same run
// as one without the reports, and the reports say how far it has got.
func TestProgressIsTheSameRun(t *testing.T) {
	sc, err := source{label: "long", data: []byte(longRTApp(130))}.decode()
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	sim.SetVisual(false)
	clock := time.Unix(0, 0)
	tick := func() time.Time { clock = clock.Add(time.Second); return clock }
	var report bytes.Buffer
	runWithProgress(sim, &report, tick)
	got := sim.Results()
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(got)
	if !bytes.Equal(wantJSON, gotJSON) {
		t.Errorf("the run reported as it went differs:\n got %s\nwant %s", gotJSON, wantJSON)
	}
	lines := strings.Split(strings.TrimSpace(report.String()), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "schedplay: simulated ") || !strings.Contains(lines[0], "of 130 s") {
		t.Errorf("progress reports:\n%s", report.String())
	}
}
