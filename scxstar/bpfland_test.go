package scxstar

import (
	"strings"
	"testing"

	"schedplay/engine"
)

// bpflandRun runs sc under examples/policies/scx_bpfland.star (src when
// given), failing on an ejection, and returns its results and the CPU time
// (ns) each thread ran on each CPU.
func bpflandRun(t *testing.T, sc engine.Scenario, src string) (engine.Results, map[int32][]int64) {
	t.Helper()
	if src == "" {
		src = policySource(t, "scx_bpfland")
	}
	sc = withPolicy(sc, src)
	s, err := engine.NewSimScx(sc, CompilerNamed("scx_bpfland.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	n := s.NumCPUs()
	ran := map[int32][]int64{}
	cur := make([]int32, n)
	since := make([]int64, n)
	for i := range cur {
		cur[i] = -1
	}
	stop := func(cpu int32, at int64) {
		if th := cur[cpu]; th >= 0 {
			if ran[th] == nil {
				ran[th] = make([]int64, n)
			}
			ran[th][cpu] += at - since[cpu]
			cur[cpu] = -1
		}
	}
	s.Observe(func(e engine.VisEvent) {
		// VisState names the CPU's running thread (-1 for none) at each
		// change of state; VisRun a switch.
		if (e.Kind == engine.VisState || e.Kind == engine.VisRun) && e.CPU >= 0 && e.Thread != cur[e.CPU] {
			stop(e.CPU, e.AtNs)
			cur[e.CPU], since[e.CPU] = e.Thread, e.AtNs
		}
		if e.Kind == engine.VisBlock && e.CPU >= 0 {
			stop(e.CPU, e.AtNs)
		}
	})
	res := s.Run()
	for c := range cur {
		stop(int32(c), sc.DurationMs*1e6)
	}
	if res.ScxExit.Ejected() {
		t.Fatalf("ejected at %d ns: %s", res.ScxExit.AtNs, res.ScxExit.Reason)
	}
	return res, ran
}

// bpflandScenario is an rt-app scenario on machine topo with per-CPU
// capacities caps (nil for all 1024).
func bpflandScenario(t *testing.T, topo string, caps []int, durMs int, rtapp string) engine.Scenario {
	t.Helper()
	sc := topoScenario(t, topo, int64(durMs), 0, rtapp)
	if caps != nil {
		sc.Machine.Capacity = caps
	}
	return sc
}

// mainCPU is the CPU a thread ran on most.
func mainCPU(ran []int64) int {
	best := 0
	for c, ns := range ran {
		if ns > ran[best] {
			best = c
		}
	}
	return best
}

// TestBpflandHogsTakeCores: on 1n1l4c2t, four CPU hogs end on four cores,
// one CPU each, and never share a core: a wake takes a wholly idle core
// first (select_cpu_and's SMT step), and a hog whose sibling is busy while
// CPUs idle is not kept running (keep_running's is_smt_contended) but goes
// through enqueue (OPS_ENQ_LAST) to look for an idle core.
func TestBpflandHogsTakeCores(t *testing.T) {
	sc := bpflandScenario(t, "1n1l4c2t", nil, 200, `{"tasks": {"hog": {"instance": 4, "loop": -1, "run": 10000}}}`)
	res, ran := bpflandRun(t, sc, "")
	cores := map[int]bool{}
	for th, r := range ran {
		c := mainCPU(r)
		cores[c/2] = true // 1n1l4c2t: CPUs 2k and 2k+1 are core k
		t.Logf("thread %d: CPU time by CPU %v", th, r)
	}
	if len(ran) != 4 || len(cores) != 4 {
		t.Errorf("the hogs ran mostly on %d cores: %v", len(cores), ran)
	}
	if res.Topology.SMTContendedFrac > 0.01 {
		t.Errorf("SMT-contended fraction %.3f: hogs shared a core while others idled", res.Topology.SMTContendedFrac)
	}
	t.Logf("smt contended %.4f, busy %.2f", res.Topology.SMTContendedFrac, res.BusyVCPUsMean)
}

// TestBpflandLatencySensitive: a task that runs 200 µs every 5 ms beside
// eight CPU hogs on four CPUs is woken to run sooner than under scx_simple.
// Its deadline is its vruntime plus the little it ran since it woke
// (task_dl), where the hogs' grows by their whole runs, so it is at the
// head of the node DSQ; and the hogs' slices are 1 ms divided by the
// queue's depth (task_slice), where scx_simple's are 20 ms.
func TestBpflandLatencySensitive(t *testing.T) {
	sc := bpflandScenario(t, "1n1l4c1t", nil, 500, `{"tasks": {
		"hog": {"instance": 8, "loop": -1, "run": 100000},
		"lat": {"loop": -1, "run": 200, "timer": {"ref": "tick", "period": 5000}}}}`)
	res, _ := bpflandRun(t, sc, "")
	want := goSimple(t, sc, "")
	lat := func(r engine.Results) engine.RTAppTaskResults {
		for _, tr := range r.RTApp.Tasks {
			if tr.Name == "lat" {
				return tr
			}
		}
		t.Fatalf("no task lat in %+v", r.RTApp)
		return engine.RTAppTaskResults{}
	}
	b, s := lat(res), lat(want)
	t.Logf("wu_lat mean %.1f µs max %.1f µs (scx_simple %.1f, %.1f); loops %d (%d)", b.WuLatMeanUs, b.WuLatMaxUs, s.WuLatMeanUs, s.WuLatMaxUs, b.Loops, s.Loops)
	if b.TimedLoops == 0 || s.TimedLoops == 0 {
		t.Fatalf("no timed loops: %+v, %+v", b, s)
	}
	if b.WuLatMeanUs >= s.WuLatMeanUs {
		t.Errorf("wake-up latency %.1f µs, not under scx_simple's %.1f µs", b.WuLatMeanUs, s.WuLatMeanUs)
	}
}

// TestBpflandPreferredScan: on a big.LITTLE machine (CPUs 0-3 at 512, 4-7
// at 1024), a lone periodic task "b" homed on little CPU 0, where "c" is
// pinned and busy, wakes to find its previous CPU taken. The
// capacity-ordered idle scan (pick_idle_cpu_scan, PREFERRED_IDLE_SCAN =
// True, scx_bpfland -P) puts it on a big CPU, where it stays (each later
// wake finds its previous CPU idle); the default pick (select_cpu_and: the
// first idle CPU in CPU order) takes the little CPU 1 and keeps it there.
func TestBpflandPreferredScan(t *testing.T) {
	caps := []int{512, 512, 512, 512, 1024, 1024, 1024, 1024}
	sc := bpflandScenario(t, "1n1l8c1t", caps, 200, `{"tasks": {
		"b": {"loop": -1, "run": 1000, "sleep": 4000},
		"c": {"cpus": [0], "loop": -1, "run": 10000}}}`)
	src := policySource(t, "scx_bpfland")
	scan := strings.Replace(src, "PREFERRED_IDLE_SCAN = False", "PREFERRED_IDLE_SCAN = True", 1)
	if scan == src {
		t.Fatal("no PREFERRED_IDLE_SCAN = False in scx_bpfland.star")
	}
	// bigShare is the share of b's CPU time on the big CPUs: b is the
	// thread that ran off CPU 0 (c, pinned there, never does).
	bigShare := func(ran map[int32][]int64) float64 {
		for _, r := range ran {
			var tot, big int64
			for c, ns := range r {
				tot += ns
				if c >= 4 {
					big += ns
				}
			}
			if r[0] != tot {
				return float64(big) / float64(tot)
			}
		}
		t.Fatalf("no thread ran off CPU 0: %v", ran)
		return 0
	}
	_, ranScan := bpflandRun(t, sc, scan)
	_, ranDfl := bpflandRun(t, sc, "")
	withScan, without := bigShare(ranScan), bigShare(ranDfl)
	if withScan < 0.95 || without > 0.05 {
		t.Errorf("b's share of time on big CPUs: %.3f with the preferred scan (want all), %.3f without (want none): %v / %v",
			withScan, without, ranScan, ranDfl)
	}
}

// TestBpflandNodeDSQs: on 2n2l4c2t (16 CPUs) with sixteen tasks running a
// third of the time (about 5.3 CPUs' worth, homed round robin), no task
// crosses a node after the warm-up: a wake's idle pick searches the previous CPU's LLC
// and node first (select_cpu_and), and a task that finds no idle CPU waits
// in its node's DSQ (node_dsq), which only that node's CPUs consume.
func TestBpflandNodeDSQs(t *testing.T) {
	sc := bpflandScenario(t, "2n2l4c2t", nil, 300, `{"tasks": {
		"w": {"instance": 16, "loop": -1, "run": 1000, "sleep": 2000}}}`)
	sc.WarmupMs = 20 // the first placements are the engine's homing, not the policy's
	res, ran := bpflandRun(t, sc, "")
	crossed := 0
	for _, r := range ran {
		var n0, n1 int64
		for c, ns := range r {
			if c < 8 {
				n0 += ns
			} else {
				n1 += ns
			}
		}
		if n0 > 0 && n1 > 0 {
			crossed++
		}
	}
	t.Logf("migrations by level %+v; busy %.2f; tasks on both nodes %d of %d", res.Topology.MigrationsByLevel, res.BusyVCPUsMean, crossed, len(ran))
	if res.Topology.MigrationsByLevel.Node != 0 || crossed != 0 {
		t.Errorf("%.1f cross-node migrations/s, %d tasks ran on both nodes", res.Topology.MigrationsByLevel.Node, crossed)
	}
}

// TestBpflandExamples: hackbench and saturated-sync, short, without an
// ejection, doing work.
func TestBpflandExamples(t *testing.T) {
	for _, ex := range []string{"hackbench", "saturated-sync"} {
		sc := readExample(t, ex, "sched.policy=scx_simple", "duration_ms=300", "warmup_ms=50")
		res, _ := bpflandRun(t, sc, "")
		want := goSimple(t, sc, "")
		t.Logf("%s: completed %d (scx_simple %d), busy %.2f (%.2f), runnable wait p99 %.0f µs (%.0f)", ex, res.Completed, want.Completed, res.BusyVCPUsMean, want.BusyVCPUsMean, res.RunnableWaitUs.P99, want.RunnableWaitUs.P99)
	}
}
