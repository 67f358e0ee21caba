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
	// ran are the stretches each thread ran, in order.
	ran map[int32][]stretch
	// cpus are the CPUs each thread ran on after the warm-up.
	cpus map[int32]map[int32]bool
}

// stretch is a thread's run on cpu in [from, to) ns.
type stretch struct {
	from, to int64
	cpu      int32
}

// cpuTime is the CPU time (ms) thread th ran in [from, to) ns.
func (r cosmosRun) cpuTime(th int32, from, to int64) float64 {
	var ns int64
	for _, s := range r.ran[th] {
		if a, b := max(s.from, from), min(s.to, to); b > a {
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

// cosmosRunSrc runs sc under src, failing on an ejection.
func cosmosRunSrc(t *testing.T, sc engine.Scenario, src string) cosmosRun {
	t.Helper()
	s, err := engine.NewSimScx(withPolicy(sc, src), CompilerNamed("scx_cosmos.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	n := s.NumCPUs()
	r := cosmosRun{names: map[int32]string{}, ran: map[int32][]stretch{}, cpus: map[int32]map[int32]bool{}}
	cur := make([]int32, n)
	since := make([]int64, n)
	for i := range cur {
		cur[i] = -1
	}
	warm := sc.WarmupMs * 1e6
	stop := func(cpu int32, at int64) {
		th := cur[cpu]
		if th < 0 {
			return
		}
		if at > since[cpu] {
			r.ran[th] = append(r.ran[th], stretch{since[cpu], at, cpu})
		}
		if at > warm {
			if r.cpus[th] == nil {
				r.cpus[th] = map[int32]bool{}
			}
			r.cpus[th][cpu] = true
		}
		cur[cpu] = -1
	}
	s.Observe(func(e engine.VisEvent) {
		if (e.Kind == engine.VisState || e.Kind == engine.VisRun) && e.CPU >= 0 && e.Thread != cur[e.CPU] {
			stop(e.CPU, e.AtNs)
			cur[e.CPU], since[e.CPU] = e.Thread, e.AtNs
			if th := e.Thread; th >= 0 {
				if _, ok := r.names[th]; !ok {
					name, _, _ := s.ThreadInfo(int(th))
					r.names[th] = name
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
	sc := topoScenario(t, "1n2l1c1t", 500, 50, `{"tasks": {
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
	sc := topoScenario(t, "1n1l4c2t", 750, 0, `{"tasks": {"hog": {"instance": 12, "loop": -1, "run": 100000}}}`)
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

// rtappTask is the rt-app results of the task named name.
func rtappTask(t *testing.T, r engine.Results, name string) engine.RTAppTaskResults {
	t.Helper()
	for _, tr := range r.RTApp.Tasks {
		if tr.Name == name {
			return tr
		}
	}
	t.Fatalf("no task %s in %+v", name, r.RTApp)
	return engine.RTAppTaskResults{}
}

// TestCosmosDeadline: "lat" runs 200 us every 10 ms beside eight CPU hogs
// on 1n1l4c1t, under the source's defaults (every CPU busy, so whoever finds
// no idle CPU goes to the shared DSQ). Its deadline is its vruntime, raised
// to no more than slice_lag x its wakeup frequency (20 ms x ~10 wakes per
// 100 ms = 200 ms) behind vtime_now, plus the ~0 it ran since it woke
// (task_dl); a hog's is about vtime_now plus its 20 ms cap of runtime since
// it last slept. So lat is at the head of the DSQ and runs at the first
// slice end. A slice (1 ms) ends at the CPU's next tick, every 4 ms at 250
// Hz, and no CPU idles, so the four CPUs tick together: lat waits at most
// one tick, 4 ms. Controls: the shared DSQ made FIFO, where the 4 hogs
// waiting ahead of lat take the 4 CPUs at the first tick and lat runs at
// the second, so every wake waits exactly 4 ms more (lat's timer and the
// ticks keep the same grid in both runs: it never overruns its period);
// and scx_simple (vtime order too, but 20 ms slices), which it must beat.
func TestCosmosDeadline(t *testing.T) {
	sc := topoScenario(t, "1n1l4c1t", 500, 50, `{"tasks": {
		"hog": {"instance": 8, "loop": -1, "run": 100000},
		"lat": {"loop": -1, "run": 200, "timer": {"ref": "unique", "period": 10000}}}}`)
	dl := rtappTask(t, cosmosRunSrc(t, sc, cosmosSource(t)).res, "lat")
	fifo := rtappTask(t, cosmosRunSrc(t, sc, cosmosSource(t,
		"scx.dsq_insert_vtime(p, shared_dsq(prev_cpu), task_slice(p), task_dl(p, t), enq_flags)",
		"scx.dsq_insert(p, shared_dsq(prev_cpu), task_slice(p), enq_flags)")).res, "lat")
	simple := rtappTask(t, goSimple(t, sc, ""), "lat")
	if dl.TimedLoops == 0 || fifo.TimedLoops == 0 || simple.TimedLoops == 0 {
		t.Fatalf("lat had no timed loops: %+v, %+v, %+v", dl, fifo, simple)
	}
	t.Logf("lat's wake-up latency mean/max, us: deadline %.1f/%.1f, FIFO %.1f/%.1f, scx_simple %.1f/%.1f",
		dl.WuLatMeanUs, dl.WuLatMaxUs, fifo.WuLatMeanUs, fifo.WuLatMaxUs, simple.WuLatMeanUs, simple.WuLatMaxUs)
	// 100 us of slack for the wake's own path and the ticks' 1 us offset.
	if dl.WuLatMaxUs > 4000+100 {
		t.Errorf("lat waited up to %.1f us, over a tick (4 ms): it was not at the head of the shared DSQ", dl.WuLatMaxUs)
	}
	if d := fifo.WuLatMeanUs - dl.WuLatMeanUs; d < 4000-100 || d > 4000+100 {
		t.Errorf("the FIFO DSQ's mean wake-up latency %.1f us is %.1f us over the deadline order's %.1f us, want one tick, 4000 us",
			fifo.WuLatMeanUs, d, dl.WuLatMeanUs)
	}
	if dl.WuLatMeanUs >= simple.WuLatMeanUs {
		t.Errorf("lat's mean wake-up latency %.1f us is not under scx_simple's %.1f us", dl.WuLatMeanUs, simple.WuLatMeanUs)
	}
}

// TestCosmosNodeDSQs: twenty CPU hogs on 2n2l4c2t (16 CPUs, node 0 = CPUs
// 0-7, node 1 = 8-15). Sixteen take a CPU each; the four left over are
// homed on node 0's CPUs 0-3 (rt-app homes thread i on CPU i mod 16) and,
// every CPU being busy, wait in node 0's DSQ (shared_dsq is per node with
// NUMA on), which only node 0's CPUs consume (cosmos_dispatch), and no CPU
// ever idles to pull one across. So twelve hogs share node 0's eight CPUs,
// 2/3 of [50, 400) ms = 233 ms each, and eight own node 1's, 350 ms each,
// and no hog runs on both nodes. With -n (DISABLE_NUMA) there is one
// shared DSQ and all twenty share the sixteen CPUs: 4/5 of 350 = 280 ms
// each, hogs crossing nodes.
func TestCosmosNodeDSQs(t *testing.T) {
	sc := topoScenario(t, "2n2l4c2t", 400, 50, `{"tasks": {"hog": {"instance": 20, "loop": -1, "run": 100000}}}`)
	crossed := func(r cosmosRun) (n int) {
		for _, cpus := range r.cpus {
			var n0, n1 bool
			for c := range cpus {
				n0, n1 = n0 || c < 8, n1 || c >= 8
			}
			if n0 && n1 {
				n++
			}
		}
		return n
	}
	numa := cosmosRunSrc(t, sc, cosmosSource(t))
	flat := cosmosRunSrc(t, sc, cosmosSource(t, "DISABLE_NUMA = False", "DISABLE_NUMA = True"))
	var on0, on1 []float64
	for th, cpus := range numa.cpus {
		ms := numa.cpuTime(th, 50e6, 400e6)
		for c := range cpus {
			if c < 8 {
				on0 = append(on0, ms)
			} else {
				on1 = append(on1, ms)
			}
			break
		}
	}
	fHi, fLo := flat.spread(t, "hog", 50e6, 400e6)
	t.Logf("per-node DSQs: %d hogs on node 0 (CPU time %v ms), %d on node 1 (%v), %d crossed, %.1f node migrations/s; one DSQ (-n): %.1f..%.1f ms, %d crossed",
		len(on0), on0, len(on1), on1, crossed(numa), numa.res.Topology.MigrationsByLevel.Node, fLo, fHi, crossed(flat))
	if n := crossed(numa); n != 0 || len(on0) != 12 || len(on1) != 8 {
		t.Errorf("per-node DSQs: %d hogs ran on both nodes, %d on node 0 and %d on node 1, want 0, 12 and 8", n, len(on0), len(on1))
	}
	// 1 ms slices at 4 ms ticks: a hog's share is counted in 4 ms steps.
	for _, ms := range on0 {
		if ms < 233-8 || ms > 233+8 {
			t.Errorf("a node-0 hog ran %.1f ms, want 2/3 of 350 = 233", ms)
		}
	}
	for _, ms := range on1 {
		if ms < 350-8 {
			t.Errorf("a node-1 hog ran %.1f ms, want all 350", ms)
		}
	}
	if crossed(flat) == 0 || fLo < 280-12 || fHi > 280+12 {
		t.Errorf("one DSQ (-n): hogs ran %.1f..%.1f ms, %d on both nodes; want 280 each, moving across nodes", fLo, fHi, crossed(flat))
	}
}

// TestCosmosOnTwoNodes: on 2n2l4c2t, hackbench under the defaults, and a lighter mix (sixteen tasks running a third of the
// time and four hogs: about 9.3 CPUs' worth of 16, under the 75% threshold,
// so that the per-CPU path and the flat and preferred scans act) under each
// switch the port keeps: not ejected, work done.
func TestCosmosOnTwoNodes(t *testing.T) {
	for _, ex := range []string{"hackbench"} {
		t.Run(ex, func(t *testing.T) {
			sc := readExample(t, ex, "sched.policy=scx_simple", "machine.topology=2n2l4c2t", "duration_ms=300", "warmup_ms=50")
			r := cosmosRunSrc(t, sc, cosmosSource(t))
			if r.res.Completed <= 0 {
				t.Fatalf("completed no work")
			}
			t.Logf("completed %d, busy vCPUs %.2f, migrations by level %+v, waiting at the end %d",
				r.res.Completed, r.res.BusyVCPUsMean, r.res.Topology.MigrationsByLevel, r.res.ScxWaiting.Count)
		})
	}
	perCPU := []string{"CPU_BUSY_THRESH = 0 ", "CPU_BUSY_THRESH = 75 ", "POLLING_MS = 0 ", "POLLING_MS = 20 "}
	for _, tc := range []struct {
		name  string
		edits []string
	}{
		{"defaults", nil},
		{"per-CPU path (-c 75 -p 20)", perCPU},
		{"flat idle scan (-c 75 -p 20 -i)", append([]string{"FLAT_IDLE_SCAN = False", "FLAT_IDLE_SCAN = True"}, perCPU...)},
		{"preferred idle scan (-c 75 -p 20 -P)", append([]string{"PREFERRED_IDLE_SCAN = False", "PREFERRED_IDLE_SCAN = True"}, perCPU...)},
		{"no early clear (-c 75 -p 20 -i -N)", append([]string{"FLAT_IDLE_SCAN = False", "FLAT_IDLE_SCAN = True", "NO_EARLY_CLEAR = False", "NO_EARLY_CLEAR = True"}, perCPU...)},
		{"no wake sync (-w)", []string{"NO_WAKE_SYNC = False", "NO_WAKE_SYNC = True"}},
		{"time preemption", []string{"TIME_PREEMPTION = False", "TIME_PREEMPTION = True"}},
		{"no NUMA (-n)", []string{"DISABLE_NUMA = False", "DISABLE_NUMA = True"}},
		{"no SMT", []string{"DISABLE_SMT = False", "DISABLE_SMT = True"}},
	} {
		t.Run("mix/"+tc.name, func(t *testing.T) {
			sc := topoScenario(t, "2n2l4c2t", 300, 50, `{"tasks": {
				"w": {"instance": 16, "loop": -1, "run": 1000, "sleep": 2000},
				"hog": {"instance": 4, "loop": -1, "run": 100000}}}`)
			r := cosmosRunSrc(t, sc, cosmosSource(t, tc.edits...))
			if w := rtappTask(t, r.res, "w"); w.Loops <= 0 {
				t.Fatalf("the w tasks completed no loop")
			}
			t.Logf("w loops %d, busy vCPUs %.2f, migrations by level %+v, waiting at the end %d",
				rtappTask(t, r.res, "w").Loops, r.res.BusyVCPUsMean, r.res.Topology.MigrationsByLevel, r.res.ScxWaiting.Count)
		})
	}
}
