package scxstar

import (
	"slices"
	"strings"
	"testing"

	"schedplay/engine"
)

// The promises of examples/policies/scx_cosmos.star, each from the mechanism
// of scx_cosmos's main.bpf.c. Its defaults (cpu_busy_thresh 0, polling_ms
// 0) make every CPU busy, so the per-CPU path is tested with -c 75 -p 250,
// the defaults before scx 3631a6063.

// localMode is the edit that turns the per-CPU path on: the busy threshold
// at 75% of a CPU, the utilisation fed every 250 ms.
var localMode = []string{"CPU_BUSY_THRESH = 0 ", "CPU_BUSY_THRESH = 75 ", "POLLING_MS = 0 ", "POLLING_MS = 250 "}

// cosmosRun is one run of scx_cosmos.star and what the test watched of it.
type cosmosRun struct {
	res engine.Results
	// names are the threads' names by id.
	names map[int32]string
	// ran are the stretches [from, to) ns each thread ran, in order.
	ran map[int32][][2]int64
	// cpus are the CPUs each thread ran on after the warm-up.
	cpus map[int32]map[int32]bool
}

// cpuTime is the CPU time (ms) thread th ran in [from, to) ns.
func (r cosmosRun) cpuTime(th int32, from, to int64) float64 {
	var ns int64
	for _, s := range r.ran[th] {
		if a, b := max(s[0], from), min(s[1], to); b > a {
			ns += b - a
		}
	}
	return float64(ns) / 1e6
}

// spread is the largest and the smallest CPU time (ms) in [from, to) ns of
// the threads whose names start with prefix.
func (r cosmosRun) spread(t *testing.T, prefix string, from, to int64) (hi, lo float64) {
	t.Helper()
	var v []float64
	for th, name := range r.names {
		if strings.HasPrefix(name, prefix) {
			v = append(v, r.cpuTime(th, from, to))
		}
	}
	if len(v) == 0 {
		t.Fatalf("no thread named %s*", prefix)
	}
	return slices.Max(v), slices.Min(v)
}

// cosmosSource is scx_cosmos.star with edits (old, new pairs of its text).
func cosmosSource(t *testing.T, edits ...string) string {
	t.Helper()
	src := policySource(t, "scx_cosmos")
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(src, edits[i]) {
			t.Fatalf("scx_cosmos.star has no %q to edit", edits[i])
		}
		src = strings.Replace(src, edits[i], edits[i+1], 1)
	}
	return src
}

// cosmosScenario is an rt-app scenario on machine topo.
func cosmosScenario(t *testing.T, topo string, durMs, warmMs int64, rtapp string) engine.Scenario {
	t.Helper()
	sc := engine.DefaultScenario()
	shape, err := engine.ParseTopology(topo)
	if err != nil {
		t.Fatal(err)
	}
	sc.Machine.Topology, sc.Machine.VCPUs = topo, shape.CPUs()
	sc.DurationMs, sc.WarmupMs = durMs, warmMs
	sc.Workload.Kind = engine.WorkloadRTApp
	sc.Workload.RTApp = rtapp
	return sc
}

// cosmosRunSrc runs sc under src, failing on an ejection.
func cosmosRunSrc(t *testing.T, sc engine.Scenario, src string) cosmosRun {
	t.Helper()
	s, err := engine.NewSimScx(withPolicy(sc, src), CompilerNamed("scx_cosmos.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	n := s.NumCPUs()
	r := cosmosRun{names: map[int32]string{}, ran: map[int32][][2]int64{}, cpus: map[int32]map[int32]bool{}}
	cur := make([]int32, n)
	since := make([]int64, n)
	for i := range cur {
		cur[i] = -1
	}
	stop := func(cpu int32, at int64) {
		th := cur[cpu]
		if th < 0 {
			return
		}
		if at > since[cpu] {
			r.ran[th] = append(r.ran[th], [2]int64{since[cpu], at})
		}
		cur[cpu] = -1
	}
	warm := sc.WarmupMs * 1e6
	s.Observe(func(e engine.VisEvent) {
		if (e.Kind == engine.VisState || e.Kind == engine.VisRun) && e.CPU >= 0 && e.Thread != cur[e.CPU] {
			stop(e.CPU, e.AtNs)
			cur[e.CPU], since[e.CPU] = e.Thread, e.AtNs
			if th := e.Thread; th >= 0 {
				if _, ok := r.names[th]; !ok {
					name, _, _ := s.ThreadInfo(int(th))
					r.names[th] = name
				}
				if e.AtNs >= warm {
					if r.cpus[th] == nil {
						r.cpus[th] = map[int32]bool{}
					}
					r.cpus[th][e.CPU] = true
				}
			}
		}
		if e.Kind == engine.VisBlock && e.CPU >= 0 {
			stop(e.CPU, e.AtNs)
		}
	})
	r.res = s.Run()
	for c := range cur {
		stop(int32(c), sc.DurationMs*1e6)
	}
	if r.res.ScxExit.Ejected() {
		t.Fatalf("ejected at %d ns: %s", r.res.ScxExit.AtNs, r.res.ScxExit.Reason)
	}
	return r
}

// TestCosmosLocality: on 1n2l1c1t (two CPUs, each its own LLC), "x" and
// "y" wake together every 10 ms and run 0.3 ms and 0.9 ms in turn (x: 0.3,
// 0.9, 0.3, ...; y: 0.9, 0.3, ...), each on its own CPU (its previous CPU is
// idle at every wake); "w" wakes 150 us later (past the ~70 us an idle CPU
// takes to wake x and y), runs 0.5 ms and finds no idle CPU. Every run is
// shorter than the 1 ms slice, so no task is requeued (cosmos_enqueue's look
// for an idle CPU at a requeue never runs) and only the wake decides where w
// runs. Its previous CPU is at most 14% busy (0.9 ms of x's or y's plus w's
// 0.5 ms per 10 ms), under the 75% threshold, so with the per-CPU path on w
// waits in that CPU's local DSQ (cosmos_select_cpu: !is_busy inserts into
// SCX_DSQ_LOCAL) and never leaves it: 0 migrations. With the source's
// defaults every CPU is busy: w goes to the shared DSQ and runs on the CPU
// that frees first, the other one each period, so it crosses the LLC
// boundary once every 10 ms: 100/s.
func TestCosmosLocality(t *testing.T) {
	sc := cosmosScenario(t, "1n2l1c1t", 500, 50, `{"tasks": {
		"x": {"loop": -1, "phases": {
			"a": {"run": 300, "timer": {"ref": "unique", "period": 10000}},
			"b": {"run": 900, "timer": {"ref": "unique", "period": 10000}}}},
		"y": {"loop": -1, "phases": {
			"a": {"run": 900, "timer": {"ref": "unique", "period": 10000}},
			"b": {"run": 300, "timer": {"ref": "unique", "period": 10000}}}},
		"w": {"delay": 150, "loop": -1, "run": 500, "timer": {"ref": "unique", "period": 10000}}}}`)
	local := cosmosRunSrc(t, sc, cosmosSource(t, localMode...))
	shared := cosmosRunSrc(t, sc, cosmosSource(t))
	l, s := local.res.Topology.MigrationsByLevel, shared.res.Topology.MigrationsByLevel
	t.Logf("migrations/s by level: per-CPU path %+v, shared DSQ (defaults) %+v; w's CPUs %v / %v", l, s, local.cpus, shared.cpus)
	if l.LLC != 0 || local.res.MigrationsPerS != 0 {
		t.Errorf("per-CPU path: %.1f migrations/s (%.1f across LLCs), want 0", local.res.MigrationsPerS, l.LLC)
	}
	// 450 ms after the warm-up hold 45 periods, one LLC crossing each; one
	// may fall across the window's edge: at least 44 / 0.45 s.
	if s.LLC < 44/0.45 {
		t.Errorf("shared DSQ: %.1f LLC migrations/s, want about 100 (w follows the CPU that frees first)", s.LLC)
	}
}

// TestCosmosBusySwitch: twelve CPU hogs on 1n1l4c2t (8 CPUs) with the
// per-CPU path on. Until the first utilisation poll at 250 ms no CPU is
// busy: the 8 first hogs take a CPU each and the other 4 wait in their
// home CPU's local DSQ (cosmos_select_cpu), each requeue at the end of a
// slice goes back to that CPU (cosmos_enqueue: no idle CPU, !is_cpu_busy),
// so four hogs own a CPU and eight share four: CPU time 250 ms against 125
// ms, a ratio of 2. The poll finds every CPU 100% busy (1024 >= 768), so
// from then on requeues go to the shared deadline DSQ and all twelve share
// the eight CPUs: 2/3 of 450 ms, 300 ms each, in [300, 750) ms (50 ms left
// for the deadline to catch the lagging hogs up, at most slice_lag = 20 ms
// of vruntime). Without the feed (POLLING_MS = 0) the split stays 2:1.
func TestCosmosBusySwitch(t *testing.T) {
	sc := cosmosScenario(t, "1n1l4c2t", 750, 0, `{"tasks": {"hog": {"instance": 12, "loop": -1, "run": 100000}}}`)
	on := cosmosRunSrc(t, sc, cosmosSource(t, localMode...))
	off := cosmosRunSrc(t, sc, cosmosSource(t, "CPU_BUSY_THRESH = 0 ", "CPU_BUSY_THRESH = 75 "))
	bHi, bLo := on.spread(t, "hog", 0, 250e6)
	aHi, aLo := on.spread(t, "hog", 300e6, 750e6)
	oHi, oLo := off.spread(t, "hog", 300e6, 750e6)
	t.Logf("hog CPU time, ms: before the poll %.1f..%.1f; in [300, 750) ms %.1f..%.1f; without the feed %.1f..%.1f",
		bLo, bHi, aLo, aHi, oLo, oHi)
	if bHi/bLo < 1.9 {
		t.Errorf("before the first poll the hogs ran %.1f..%.1f ms, want a 2:1 split (per-CPU round robin)", bLo, bHi)
	}
	if aHi/aLo > 1.1 || aLo < 270 {
		t.Errorf("after the poll the hogs ran %.1f..%.1f ms of 450, want about 300 each (the shared DSQ)", aLo, aHi)
	}
	if oHi/oLo < 1.9 {
		t.Errorf("without the utilisation feed the hogs ran %.1f..%.1f ms in [300, 750) ms, want the 2:1 split to stay", oLo, oHi)
	}
}
