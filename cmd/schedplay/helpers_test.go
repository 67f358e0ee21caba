package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"schedplay/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fakeSim stands in for the engine where a test checks the CLI, not the model: its
// numbers are a simple function of the knobs, so a test can tell which overrides
// reached which run.
func fakeSim(sc engine.Scenario) (engine.Results, error) {
	var r engine.Results
	pull := 1.0
	if sc.Sched.WakePull {
		pull = 2
	}
	c := float64(sc.Workload.Clients)
	r.ThroughputPerS = c * 100 * pull
	r.Completed = int64(r.ThroughputPerS * float64(sc.DurationMs-sc.WarmupMs) / 1000)
	r.LatencyUs.P99 = 1000 / (pull*pull - pull + 1) // 1000 off, 333.3 on
	r.BusyVCPUsMean = min(c, float64(sc.Machine.VCPUs))
	r.SimSeconds = float64(sc.DurationMs-sc.WarmupMs) / 1000
	n := int((sc.DurationMs - sc.WarmupMs) / sc.SeriesIntervalMs)
	for i := range n {
		r.Series = append(r.Series, engine.SeriesPoint{
			StartMs:        float64(sc.WarmupMs + int64(i)*sc.SeriesIntervalMs),
			ThroughputPerS: r.ThroughputPerS * float64(i+1) / float64(n),
			BusyVCPUs:      r.BusyVCPUsMean,
		})
	}
	return r, nil
}

// outOfOrder is forEachParallel with gates that make the jobs finish out of
// order, so a test can check that output does not depend on the order runs finish
// in. The jobs fall in groups of n consecutive ones (n the number of goroutines);
// each job waits until the next one of its group has finished, so a group finishes
// last to first. A job waits only for a later job of its own group and the last
// of a group waits for none; the goroutines take jobs in index order, so every job
// waited for gets one and nothing deadlocks. When finished is not nil, it receives
// the job indices in the order they finished.
func outOfOrder(finished *[]int) func(count, n int, do func(int) error) error {
	return func(count, n int, do func(int) error) error {
		var mu sync.Mutex
		done := make([]chan struct{}, count)
		for i := range done {
			done[i] = make(chan struct{})
		}
		group := max(1, n)
		return forEachParallel(count, n, func(i int) error {
			if next := i + 1; next < count && next%group != 0 {
				<-done[next]
			}
			defer close(done[i])
			err := do(i)
			if finished != nil {
				mu.Lock()
				*finished = append(*finished, i)
				mu.Unlock()
			}
			return err
		})
	}
}

// testApp is an app reading presets from testdata/examples, with captured output.
type testApp struct {
	*app
	out, errOut *bytes.Buffer
}

func newTestApp(t *testing.T, sim func(engine.Scenario) (engine.Results, error)) testApp {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, simulate: sim, parallel: forEachParallel,
		examples: os.DirFS("testdata/examples"),
		measure: func(sc engine.Scenario, ws []engine.Window) ([]engine.Results, error) {
			// Each window's throughput differs (by the same factor in every
			// arm, so changes are alike), so a mix-up of windows shows.
			r, err := sim(sc)
			out := make([]engine.Results, len(ws))
			for i := range out {
				out[i] = r
				out[i].ThroughputPerS *= 1 + 0.25*float64(i)
			}
			return out, err
		},
		lessons: fakeLessons()}
	return testApp{a, &out, &errOut}
}

// fakeLessons are lessons on the test presets: one that runs, one whose step 2
// names a vCPU the machine lacks, and one that does not decode.
func fakeLessons() fstest.MapFS {
	return fstest.MapFS{
		"tour.json": {Data: []byte(`{"version":1,"title":"A tour","summary":"s","preset":"ab","steps":[
			{"caption":"{throughput_per_s} against {arm.B.throughput_per_s}","at":"100ms","highlight":{"arm":"B","cpu":1}},
			{"caption":"the first halt","until":{"event":"halt","arm":"B","after":"60ms","within":"10ms"}}]}`)},
		"far.json": {Data: []byte(`{"version":1,"title":"Too far","preset":"ab","steps":[
			{"caption":"a","at":"10ms"},{"caption":"b","at":"20ms","highlight":{"cpu":9}}]}`)},
		"broken.json": {Data: []byte(`{"version":1,"title":"Broken","preset":"ab","steps":[{"caption":"c","at":"1 s"}]}`)},
	}
}

// golden compares got with testdata/golden/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/schedplay -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (line %d); got:\n%s", name, firstDiffLine(want, got), got)
	}
}
