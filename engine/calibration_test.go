package engine

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The published A/B changes, run cheaply: in the late window (30-60 s), where a
// start-up transient cannot pass for the steady state, at two seeds for the
// changes the model reproduces and one for those it misses. Each row asserts the
// published direction (up, down, or a wash within 15%); docs/calibration.md has the
// full check (five seeds, both windows, every cost at -25% and +25%, and the
// magnitudes). A change the model misses is listed with its reason and asserted to
// still miss, so the list stays true: if a model change makes it hit, move it.
// Nothing here is tuned: the scenarios are the examples, unchanged.

func skipSlow(t *testing.T) {
	t.Helper()
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("calibration runs simulate a minute each; skipped in -short and under wasm (determinism is covered by the golden test)")
	}
}

// runLate runs an example's arm with extra knob settings to 60 s and returns the
// late window's results (the whole run for a workload that finishes).
func runLate(name, arm string, seed int, sets ...string) (Results, error) {
	data, err := examples().ReadFile(name + ".json")
	if err != nil {
		return Results{}, err
	}
	base, err := DecodeScenario(data)
	if err != nil {
		return Results{}, err
	}
	i := slices.IndexFunc(base.Arms, func(a Arm) bool { return a.Name == arm })
	if i < 0 {
		return Results{}, fmt.Errorf("%s has no arm %q", name, arm)
	}
	all := append(append(base.Arms[i].sets(), sets...), fmt.Sprintf("seed=%d", seed))
	if base.Workload.Kind != WorkloadHackbench {
		all = append(all, "duration_ms=60000")
	}
	sc, err := DecodeScenario(data, all...)
	if err != nil {
		return Results{}, err
	}
	if base.Workload.Kind == WorkloadHackbench {
		return Run(sc)
	}
	rs, err := RunWindows(sc, []Window{{FromMs: 30_000, ToMs: 60_000}}) // calibration's late window
	if err != nil {
		return Results{}, err
	}
	return rs[0], nil
}

func changeDirection(c float64) string {
	switch {
	case c != c:
		return "n/a"
	case c > 1.15:
		return "up"
	case c < 1/1.15:
		return "down"
	}
	return "wash"
}

// lateRuns shares runs between rows about the same arms (TPC-B's 64-client
// throughput and latency, durable-write's four metrics).
type lateRuns struct {
	mu   sync.Mutex
	runs map[string]func() (Results, error)
}

func (l *lateRuns) get(t *testing.T, name, arm string, seed int, sets ...string) Results {
	t.Helper()
	key := fmt.Sprintf("%s|%s|%d|%s", name, arm, seed, strings.Join(sets, " "))
	l.mu.Lock()
	run, ok := l.runs[key]
	if !ok {
		run = sync.OnceValues(func() (Results, error) { return runLate(name, arm, seed, sets...) })
		l.runs[key] = run
	}
	l.mu.Unlock()
	r, err := run()
	if err != nil {
		t.Fatalf("%s %s: %v", name, arm, err)
	}
	return r
}

func TestCalibrationDirections(t *testing.T) {
	skipSlow(t)
	runs := &lateRuns{runs: map[string]func() (Results, error){}}
	throughput := func(r Results) float64 { return r.ThroughputPerS }
	for _, tc := range []struct {
		example, a, b string
		sets          []string
		metric        string
		value         func(Results) float64
		published     string // the published direction of b / a
		miss          string // why the model misses it, or "" when it must hit
	}{
		{"tpcb-32vcpu", "pull off", "pull on", []string{"workload.clients=8"}, "throughput", throughput, "wash", ""},
		{"tpcb-32vcpu", "pull off", "pull on", []string{"workload.clients=16"}, "throughput", throughput, "wash", ""},
		{"tpcb-32vcpu", "pull off", "pull on", []string{"workload.clients=32"}, "throughput", throughput, "wash", ""},
		// With the preset's row locks the off arm's backends, queued on the ten
		// lowest vCPUs, hold their rows longer, and pull's change passes the
		// threshold (1.19x, published 2.91x: the size still misses,
		// docs/model-notes.md).
		{"tpcb-32vcpu", "pull off", "pull on", []string{"workload.clients=64"}, "throughput", throughput, "up", ""},
		{"tpcb-32vcpu", "pull off", "pull on", []string{"workload.clients=64"}, "mean latency", func(r Results) float64 { return r.LatencyUs.Mean }, "down", ""},
		{"tpcb-32vcpu", "pull off", "pull on", []string{"workload.clients=96"}, "throughput", throughput, "up",
			"no lasting collapse: the row locks are held about 2 ms on average, where the published on arm's 3.5k TPS over 100 branches would need 29 ms (docs/model-notes.md)"},
		{"pgbench-ro", "pull off", "pull on", []string{"workload.clients=16"}, "throughput", throughput, "up",
			"on 8 vCPUs the off arm's backends spread within 2 s; 32 and 48 clients behave alike (docs/calibration.md)"},
		{"durable-write", "fixed 10000", "adaptive", nil, "halt exits", func(r Results) float64 { return r.HaltExitsPerS }, "down", ""},
		{"durable-write", "fixed 10000", "adaptive", nil, "wake-to-run", func(r Results) float64 { return r.WakeToRunUs.Mean }, "down",
			"in the late window the adaptive window shortens a woken writer's wait by 7-13%, short of a change: host halt polling catches most wakes, so a writer waits about 25 µs in either arm where the published waits are 137 and 78 µs (docs/model-notes.md)"},
		{"durable-write", "fixed 10000", "adaptive", nil, "throughput", throughput, "up",
			"with host halt polling catching most wakes and no host contention, the spin saves little: +11% (docs/model-notes.md)"},
		{"hackbench", "old rule", "new rule", nil, "elapsed", func(r Results) float64 { return r.ElapsedS }, "down", ""},
		{"hackbench", "old rule", "linux", nil, "elapsed", func(r Results) float64 { return r.ElapsedS }, "down", ""},
		{"hackbench", "new rule", "linux", nil, "elapsed", func(r Results) float64 { return r.ElapsedS }, "wash", ""},
	} {
		name := fmt.Sprintf("%s %v %s %s over %s", tc.example, tc.sets, tc.metric, tc.b, tc.a)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			seeds := 2
			if tc.miss != "" {
				seeds = 1
			}
			for seed := 1; seed <= seeds; seed++ {
				va := tc.value(runs.get(t, tc.example, tc.a, seed, tc.sets...))
				vb := tc.value(runs.get(t, tc.example, tc.b, seed, tc.sets...))
				got := changeDirection(vb / va)
				t.Logf("seed %d: %s %.4g -> %.4g (%.2fx, %s; published %s)", seed, tc.metric, va, vb, vb/va, got, tc.published)
				switch {
				case tc.miss == "" && got != tc.published:
					t.Errorf("seed %d: the model's change is %s, published %s", seed, got, tc.published)
				case tc.miss != "" && got == tc.published:
					t.Errorf("seed %d: listed as a miss (%s) but the model now goes %s as published: update the list", seed, tc.miss, got)
				}
			}
		})
	}
}

// TestCalibrationIdleGuestWindowDecays: on a genuinely idle guest the adaptive
// window decays to the floor and costs much less host CPU than a fixed 10000 spin
// (published qualitatively, so this is not in the document's rows).
func TestCalibrationIdleGuestWindowDecays(t *testing.T) {
	skipSlow(t)
	fixed := runExample(t, "idle-guest", "fixed 10000")
	adaptive := runExample(t, "idle-guest", "adaptive")
	t.Logf("host CPU per vCPU: fixed %.4f, adaptive %.4f; mean window adaptive %.0f", fixed.HostCPUFrac, adaptive.HostCPUFrac, adaptive.SpinWindowMean)
	if adaptive.HostCPUFrac*2 > fixed.HostCPUFrac {
		t.Errorf("host CPU %.4f -> %.4f, want clearly less (at least 2x) with adaptive", fixed.HostCPUFrac, adaptive.HostCPUFrac)
	}
	// The window starts at the 100000 cap and must decay on an idle guest.
	if adaptive.SpinWindowMean > 10000 {
		t.Errorf("mean adaptive window %.0f, want decayed far below the cap", adaptive.SpinWindowMean)
	}
}
