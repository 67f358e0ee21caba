package engine

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// smallScenario is a short pull-on fan-out run used by determinism tests.
func smallScenario(t testing.TB, sets ...string) Scenario {
	t.Helper()
	base := []string{"machine.vcpus=8", "workload.clients=24", "duration_ms=60", "warmup_ms=10",
		"series_interval_ms=10", "sched.wake_pull=true", "sched.idle_spin.adaptive=true",
		"machine.host_contention_per_s=5000", "workload.wake_sources_per_s=500"}
	sc, err := DecodeScenario([]byte(`{"version":1}`), append(base, sets...)...)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// knobSim builds a simulation of the default scenario with base's knobs, then
// sets' (as --set does), failing the test on a bad knob or scenario.
func knobSim(t testing.TB, base []string, sets ...string) *Sim {
	t.Helper()
	sc, err := DecodeScenario([]byte(`{"version":1}`), append(base, sets...)...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func resultsJSON(t testing.TB, r Results) []byte {
	t.Helper()
	b, err := json.Marshal(r, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGoldenResults pins the exact results of a fixed scenario. The same golden
// file is checked natively and under GOOS=js GOARCH=wasm (see .ci/run), which is
// the cross-platform determinism guarantee: same scenario + seed, same bytes.
func TestGoldenResults(t *testing.T) {
	for _, tc := range []struct{ desc, file string }{
		{"fan-out with pull, adaptive spin, host contention", "golden_fanout.json"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r, err := Run(smallScenario(t))
			if err != nil {
				t.Fatal(err)
			}
			got := resultsJSON(t, r)
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("results differ from %s:\n got %s\nwant %s", path, got, want)
			}
		})
	}
}

func TestSameSeedSameResultsDifferentSeedDiffers(t *testing.T) {
	a, _ := Run(smallScenario(t))
	b, _ := Run(smallScenario(t))
	if string(resultsJSON(t, a)) != string(resultsJSON(t, b)) {
		t.Fatal("two runs of one scenario differ")
	}
	c, _ := Run(smallScenario(t, "seed=2"))
	if string(resultsJSON(t, a)) == string(resultsJSON(t, c)) {
		t.Fatal("a different seed gave identical results: the seed is not used")
	}
}

// Stepping in pieces (as the browser does) must give the same run as one call.
func TestSteppingMatchesRun(t *testing.T) {
	whole, _ := Run(smallScenario(t))
	s, err := NewSim(smallScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	var vis []VisEvent
	for i := 0; !s.Done(); i++ {
		if i%2 == 0 {
			s.StepN(137)
		} else {
			s.RunUntil(s.NowNs() + 250_000)
		}
		s.Snapshot(&snap)
		vis = s.DrainVis(vis[:0])
	}
	if got := resultsJSON(t, s.Results()); string(got) != string(resultsJSON(t, whole)) {
		t.Errorf("stepped run differs from Run:\n%s\n%s", got, resultsJSON(t, whole))
	}
}

func TestSnapshotIsConsistent(t *testing.T) {
	for _, tc := range []struct {
		desc string
		sets []string
	}{
		{"osv fan-out", nil},
		{"scx_simple old rule hackbench", []string{"workload.kind=hackbench", "sched.policy=scx_simple", "sched.wake_sync=old", "workload.hackbench.groups=2", "workload.hackbench.loops=20"}},
		{"scx_simple new rule hackbench", []string{"workload.kind=hackbench", "sched.policy=scx_simple", "workload.hackbench.groups=2", "workload.hackbench.loops=20"}},
		{"linux hackbench", []string{"workload.kind=hackbench", "sched.policy=linux", "workload.hackbench.groups=2", "workload.hackbench.loops=20"}},
	} {
		t.Run(tc.desc, func(t *testing.T) { checkSnapshots(t, smallScenario(t, tc.sets...)) })
	}
}

// checkSnapshots steps sc and checks every snapshot's invariants: each thread is
// in exactly one place, loads match queues, spin windows stay in [floor, cap].
func checkSnapshots(t *testing.T, sc Scenario) {
	t.Helper()
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	for range 200 {
		s.StepN(50)
		s.Snapshot(&snap)
		seen := map[int]string{}
		place := func(id int, where string) {
			if prev, ok := seen[id]; ok {
				t.Fatalf("at %d ns thread %d is both %s and %s", snap.NowNs, id, prev, where)
			}
			seen[id] = where
		}
		for _, c := range snap.CPUs {
			if c.Running >= 0 {
				place(c.Running, fmt.Sprintf("running on %d", c.ID))
				if snap.Threads[c.Running].State != ThreadRunning {
					t.Fatalf("thread %d runs on cpu %d but is %v", c.Running, c.ID, snap.Threads[c.Running].State)
				}
			}
			for _, id := range c.Runqueue {
				place(id, fmt.Sprintf("queued on %d", c.ID))
			}
			for _, id := range c.Incoming {
				place(id, fmt.Sprintf("incoming on %d", c.ID))
			}
			wantLoad := len(c.Runqueue)
			if c.Running >= 0 {
				wantLoad++
			}
			if c.Load != wantLoad {
				t.Fatalf("cpu %d load %d, want %d", c.ID, c.Load, wantLoad)
			}
			if c.SpinWindow < s.sc.Sched.IdleSpin.Floor || c.SpinWindow > c.SpinCap {
				t.Fatalf("cpu %d spin window %d outside [floor, cap]", c.ID, c.SpinWindow)
			}
		}
		for _, id := range snap.Shared {
			place(id, "on the shared queue")
		}
		for _, th := range snap.Threads {
			if _, ok := seen[th.ID]; !ok && th.State != ThreadBlocked {
				t.Fatalf("thread %d is %v but on no CPU", th.ID, th.State)
			}
		}
	}
}

// The engine imports neither UI nor network code, so it runs unchanged natively,
// in wasm and in the Cloudflare Worker.
func TestEngineImportsOnlyPureGo(t *testing.T) {
	forbidden := []string{"github.com/hajimehoshi/ebiten", "syscall/js", "net/http", "time"}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			for _, bad := range forbidden {
				if p == bad || strings.HasPrefix(p, bad+"/") {
					t.Errorf("%s imports %s", f, p)
				}
			}
		}
	}
}
