package main

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// TestSweepLayouts pins the sweep table, CSV and JSON layouts (fake engine).
func TestSweepLayouts(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"sweep_arms_table", []string{"sweep", "ab", "--vary", "workload.clients=2,4,16", "--jobs", "1"}},
		{"sweep_arms_csv", []string{"sweep", "ab", "--vary", "workload.clients=2,4,16", "--format", "csv"}},
		{"sweep_flag_arms_table", []string{"sweep", "plain", "--vary", "workload.clients=1,3", "--arms", "sched.wake_pull=0,1,1", "--set", "machine.vcpus=8"}},
		{"sweep_no_arms_table", []string{"sweep", "plain", "--vary", "machine.vcpus=1,2"}},
		{"sweep_json", []string{"sweep", "plain", "--vary", "workload.clients=1", "--arms", "sched.wake_pull=false,true", "--format", "json", "--set", "duration_ms=100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestApp(t, fakeSim)
			if code := a.main(tc.args); code != 0 {
				t.Fatalf("exit %d: %s", code, a.errOut)
			}
			golden(t, tc.name+".golden", a.out.Bytes())
		})
	}
}

// TestSweepCells checks that each cell got its row's value and its arm's overrides
// (the fake engine's throughput is clients*100, doubled with pull on). The --set of
// the arms' own knob must lose to the arm, which defines the comparison.
func TestSweepCells(t *testing.T) {
	a := newTestApp(t, fakeSim)
	args := []string{"sweep", "ab", "--vary", "workload.clients=3,5", "--format", "json", "--set", "machine.vcpus=2", "--set", "sched.wake_pull=true"}
	if code := a.main(args); code != 0 {
		t.Fatalf("exit %d: %s", code, a.errOut)
	}
	var s struct {
		Vary string `json:"vary"`
		Arms []arm  `json:"arms"`
		Rows []struct {
			Value   string           `json:"value"`
			Results []engine.Results `json:"results"`
			Ratio   *float64         `json:"throughput_ratio"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(a.out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Vary != "workload.clients" || len(s.Arms) != 2 || s.Arms[0].Name != "off" || s.Arms[1].Name != "on" {
		t.Fatalf("vary %q arms %+v", s.Vary, s.Arms)
	}
	if len(s.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(s.Rows))
	}
	for i, want := range []struct {
		value    string
		off, on  float64
		busyVCPU float64
	}{{"3", 300, 600, 2}, {"5", 500, 1000, 2}} {
		r := s.Rows[i]
		if r.Value != want.value || len(r.Results) != 2 || r.Results[0].ThroughputPerS != want.off || r.Results[1].ThroughputPerS != want.on {
			t.Errorf("row %d = %+v, want value %s off %v on %v", i, r, want.value, want.off, want.on)
			continue
		}
		if r.Results[0].BusyVCPUsMean != want.busyVCPU {
			t.Errorf("row %d: --set machine.vcpus=2 did not reach the run (busy %v)", i, r.Results[0].BusyVCPUsMean)
		}
		if r.Ratio == nil || *r.Ratio != 2 {
			t.Errorf("row %d ratio %v, want 2", i, r.Ratio)
		}
	}
}

// TestSweepJobsDeterminism: the output is byte-identical whatever --jobs is, with
// runs that finish out of order (outOfOrder's gates) and with the real engine.
func TestSweepJobsDeterminism(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sim      func(engine.Scenario) (engine.Results, error)
		parallel func(count, n int, do func(int) error) error
		args     []string
	}{
		{"out of order", fakeSim, outOfOrder(nil), []string{"sweep", "ab", "--vary", "workload.clients=1,2,4,8,16,32"}},
		{"engine", engine.Run, forEachParallel, []string{"sweep", "ab", "--vary", "workload.clients=2,8", "--format", "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var outs []string
			for _, jobs := range []string{"1", "2", "5"} {
				a := newTestApp(t, tc.sim)
				a.parallel = tc.parallel
				if code := a.main(append(tc.args, "--jobs", jobs)); code != 0 {
					t.Fatalf("--jobs %s: exit %d: %s", jobs, code, a.errOut)
				}
				outs = append(outs, a.out.String())
			}
			for i := 1; i < len(outs); i++ {
				if outs[i] != outs[0] {
					t.Errorf("output differs between --jobs settings:\n%s\n---\n%s", outs[0], outs[i])
				}
			}
			if strings.Count(outs[0], "\n") < 3 {
				t.Errorf("suspiciously short output:\n%s", outs[0])
			}
		})
	}
}

// TestRunAllOrder: results come back in job order with more goroutines than
// jobs, fewer, and one, while outOfOrder's gates make each group of n jobs finish
// last to first.
func TestRunAllOrder(t *testing.T) {
	a := newTestApp(t, fakeSim)
	base, err := engine.DecodeScenario([]byte(`{"version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	var jobs []job
	for c := 1; c <= 9; c++ {
		sc := base
		sc.Workload.Clients = c
		jobs = append(jobs, job{label: "j", sc: sc})
	}
	for _, n := range []int{1, 3, 20} {
		var finished []int
		a.parallel = outOfOrder(&finished)
		res, err := a.runAll(jobs, n)
		if err != nil {
			t.Fatal(err)
		}
		pos := make([]int, len(jobs))
		for k, i := range finished {
			pos[i] = k
		}
		for i := range len(jobs) - 1 {
			if (i+1)%n != 0 && pos[i+1] > pos[i] {
				t.Errorf("jobs=%d: job %d finished before job %d (order %v); the gate should hold it", n, i, i+1, finished)
			}
		}
		for i, r := range res {
			if r.ThroughputPerS != float64(i+1)*100 {
				t.Errorf("jobs=%d: result %d has throughput %v, want %v", n, i, r.ThroughputPerS, float64(i+1)*100)
			}
		}
	}
}
