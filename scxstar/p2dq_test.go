package scxstar

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The promises of examples/policies/scx_p2dq.star, each from the mechanism of
// scx_p2dq's main.bpf.c, on 1n2l4c2t: 16 CPUs, LLC 0 = CPUs 0-7, LLC 1 =
// CPUs 8-15.

// p2dqRun runs scx_p2dq.star (with edits, old -> new pairs of its text) on
// an rt-app description over topo and returns the sim, its results, its
// policy (for its globals) and the CPU each thread named hog* last ran on.
func p2dqRun(t *testing.T, topo, rtapp string, durMs, warmMs int64, edits ...string) (*engine.Sim, engine.Results, *Policy, map[int32]int32) {
	t.Helper()
	src := policySource(t, "scx_p2dq")
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(src, edits[i]) {
			t.Fatalf("scx_p2dq.star has no %q to edit", edits[i])
		}
		src = strings.Replace(src, edits[i], edits[i+1], 1)
	}
	sc := topoScenario(t, topo, durMs, warmMs, rtapp)
	var pol *Policy
	compile := func(_, s string, slice int64) (engine.ScxOps, error) {
		p, err := Compile("scx_p2dq.star", s, slice)
		pol = p
		return p, err
	}
	s, err := engine.NewSimScx(withPolicy(sc, src), compile)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	last := map[int32]int32{}
	s.Observe(func(e engine.VisEvent) {
		if e.Kind == engine.VisRun && e.Thread >= 0 {
			if name, _, _ := s.ThreadInfo(int(e.Thread)); strings.HasPrefix(name, "hog") {
				last[e.Thread] = e.CPU
			}
		}
	})
	r := s.Run()
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected at %d ns: %s", r.ScxExit.AtNs, r.ScxExit.Reason)
	}
	return s, r, pol, last
}

// hogsInLLC0 is 12 CPU-bound threads homed on LLC 0's CPUs (rt-app homes
// unpinned threads round robin: hog-0..7 on CPUs 0-7, hogb on 0-3 after
// the 8 pinned blockers take indexes 8-15), while a blocker pinned on each
// of LLC 1's CPUs holds it for the first 50 ms: so at their first wake the
// hogs find LLC 1 busy (the source tries a random LLC first) and stay in
// LLC 0, 12 runnable tasks on its 8 CPUs.
func hogsInLLC0() string {
	var b strings.Builder
	b.WriteString(`{"tasks": {"hog": {"instance": 8, "delay": 1000, "loop": -1, "run": 10000}`)
	for cpu := 8; cpu < 16; cpu++ {
		fmt.Fprintf(&b, `, "blk%d": {"cpus": [%d], "loop": 1, "run": 25000}`, cpu, cpu)
	}
	b.WriteString(`, "hogb": {"instance": 4, "delay": 1000, "loop": -1, "run": 10000}}}`)
	return b.String()
}

// TestP2DQMovesWorkAcrossLLCs: 12 hogs in LLC 0, LLC 1 idle once its
// blockers end. A saturated LLC makes its tasks migratable once they have
// run min_llc_runs_pick2 times there (can_migrate): they queue on the LLC's
// migration DSQ and LLC 1's CPUs take them, by pick-two in dispatch
// (dispatch_pick_two: LLC 0's load is above LLC 1's) and by the idle pick
// of a requeue (pick_idle_cpu's node step). With can_migrate returning
// False (every migration path closed) LLC 1 runs no hog: the move is the
// policy's doing.
func TestP2DQMovesWorkAcrossLLCs(t *testing.T) {
	inLLC1 := func(last map[int32]int32) (n int) {
		for _, cpu := range last {
			if cpu >= 8 {
				n++
			}
		}
		return n
	}
	_, r, _, last := p2dqRun(t, "1n2l4c2t", hogsInLLC0(), 300, 0)
	_, rOff, _, lastOff := p2dqRun(t, "1n2l4c2t", hogsInLLC0(), 300, 0,
		"    if t[\"llc_runs\"] > 0:\n        return False\n", "    if True:\n        return False\n")
	t.Logf("hogs last on a CPU of LLC 1: %d of %d, migrations by level %+v; with migration closed: %d, %+v",
		inLLC1(last), len(last), r.Topology.MigrationsByLevel, inLLC1(lastOff), rOff.Topology.MigrationsByLevel)
	if len(last) != 12 || len(lastOff) != 12 {
		t.Fatalf("%d and %d hogs ran, want 12", len(last), len(lastOff))
	}
	if n := inLLC1(lastOff); n != 0 {
		t.Errorf("with migration closed, %d hogs ended in LLC 1: the scenario does not keep them in LLC 0", n)
	}
	// 12 hogs, 8 CPUs in LLC 0: while fewer than 4 are in LLC 1, LLC 0 has
	// tasks queued (saturated) and LLC 1 idle CPUs, and p2dq moves more.
	if n := inLLC1(last); n < 4 {
		t.Errorf("%d hogs ended in LLC 1, want at least 4 (12 hogs, 8 CPUs in LLC 0): p2dq did not move work to the idle LLC", n)
	}
}

// TestP2DQStaysInLLC: 4 tasks that run 1 ms and sleep 2 ms on a machine with
// 16 CPUs: the previous CPU is idle at each wake (pick_idle_cpu's first
// step) and no LLC is saturated, so no task leaves its LLC after its first
// placement (a random LLC, before the warm-up ends).
func TestP2DQStaysInLLC(t *testing.T) {
	_, r, _, _ := p2dqRun(t, "1n2l4c2t",
		`{"tasks": {"w": {"instance": 4, "loop": -1, "run": 1000, "sleep": 2000}}}`, 300, 50)
	t.Logf("migrations by level %+v, completed %d", r.Topology.MigrationsByLevel, r.Completed)
	if r.Topology.MigrationsByLevel.LLC > 0.5 || r.Topology.MigrationsByLevel.Node > 0 {
		t.Errorf("tasks left their LLC: %+v migrations/s", r.Topology.MigrationsByLevel)
	}
}

// TestP2DQSliceLevels: the slice level climbs for a task that runs its
// whole slice before it sleeps and falls for one that sleeps early
// (p2dq_stopping, at a sleep only). A task running 20 ms bursts ends on the
// top level (5 ms slices), one running 100 us between 5 ms sleeps on level
// 0 (500 us); a task that never sleeps keeps the level it started on (0),
// as the source changes levels only when a task stops to sleep.
func TestP2DQSliceLevels(t *testing.T) {
	s, _, pol, _ := p2dqRun(t, "1n2l4c2t", `{"tasks": {
		"long": {"loop": -1, "run": 20000, "sleep": 1000},
		"short": {"loop": -1, "run": 100, "sleep": 5000},
		"hog": {"instance": 20, "loop": -1, "run": 10000}}}`, 300, 0)
	tasks := pol.globals["tasks"].(*starlark.Dict)
	level := func(prefix string) (idx, slice int64) {
		for _, k := range tasks.Keys() {
			pid, _ := starlark.AsInt32(k)
			name, _, _ := s.ThreadInfo(pid)
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			v, _, _ := tasks.Get(k)
			d := v.(*starlark.Dict)
			get := func(k string) int64 {
				x, _, _ := d.Get(starlark.String(k))
				n, _ := starlark.AsInt32(x)
				return int64(n)
			}
			return get("dsq_index"), get("slice_ns")
		}
		t.Fatalf("no task_ctx for a thread named %s*", prefix)
		return 0, 0
	}
	li, ls := level("long")
	si, ss := level("short")
	hi, hs := level("hog")
	t.Logf("dsq_index/slice: long %d/%d, short %d/%d, hog %d/%d", li, ls, si, ss, hi, hs)
	if li != 2 || ls != 5000000 {
		t.Errorf("the 20 ms-burst task is on level %d (slice %d ns), want 2 (5 ms)", li, ls)
	}
	if si != 0 || ss != 500000 {
		t.Errorf("the 100 us-burst task is on level %d (slice %d ns), want 0 (500 us)", si, ss)
	}
	if hi != 0 {
		t.Errorf("a task that never sleeps moved to level %d", hi)
	}
}

// TestP2DQExamplesOnTwoLLCs: hackbench and saturated-sync, short, on
// 1n2l4c2t (where the LLC DSQs, the migration DSQs and pick-two all act):
// not ejected, work done, no task left waiting at the end for long.
func TestP2DQExamplesOnTwoLLCs(t *testing.T) {
	for _, ex := range []string{"hackbench", "saturated-sync"} {
		t.Run(ex, func(t *testing.T) {
			sc := readExample(t, ex, "sched.policy=scx_simple", "machine.topology=1n2l4c2t", "duration_ms=300", "warmup_ms=50")
			sc = withPolicy(sc, policySource(t, "scx_p2dq"))
			r := runExamplePolicy(t, sc, "scx_p2dq.star")
			if r.res.ScxExit.Ejected() {
				t.Fatalf("ejected at %d ns: %s", r.res.ScxExit.AtNs, r.res.ScxExit.Reason)
			}
			if r.res.Completed <= 0 {
				t.Fatalf("completed no work")
			}
			t.Logf("completed %d, busy vCPUs %.2f, migrations by level %+v, runs by CPU %v, waiting %d",
				r.res.Completed, r.res.BusyVCPUsMean, r.res.Topology.MigrationsByLevel, r.runs, r.res.ScxWaiting.Count)
		})
	}
}
