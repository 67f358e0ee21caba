package scxstar

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"schedplay/engine"
)

// exampleScenarios are what every example policy runs on, shortened: the
// checks need a few hundred simulated ms, not the published horizons.
var exampleScenarios = []struct {
	name string
	sets []string
}{
	// 400 tasks on 8 CPUs, a tenth of the messages (testing.Short runs this
	// one only).
	{"hackbench", []string{"workload.hackbench.loops=100", "duration_ms=1000"}},
	// Half a second past the warm-up: spinners and sync pairs, 4 CPUs.
	{"saturated-sync", []string{"duration_ms=1000"}},
}

// exampleRun is one run of an example policy and what the test watched of it.
type exampleRun struct {
	res engine.Results
	// runs counts the tasks switched in, by CPU.
	runs []int64
	// ipis counts the IPIs sent, by sender (index 0 is from no CPU, a timer
	// or a wake from outside; i+1 is CPU i) and target.
	ipis [][]int64
}

func runExamplePolicy(t *testing.T, sc engine.Scenario, file string) exampleRun {
	t.Helper()
	s, err := engine.NewSimScx(sc, CompilerNamed(file))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	n := s.NumCPUs()
	r := exampleRun{runs: make([]int64, n), ipis: make([][]int64, n+1)}
	for i := range r.ipis {
		r.ipis[i] = make([]int64, n)
	}
	s.Observe(func(e engine.VisEvent) {
		switch e.Kind {
		case engine.VisRun:
			r.runs[e.CPU]++
		case engine.VisIPISend:
			r.ipis[e.CPU+1][e.Other]++
		}
	})
	r.res = s.Run()
	return r
}

// goSimple runs sc under the engine's Go scx_simple with the given WAKE_SYNC
// rule ("" keeps sc's).
func goSimple(t *testing.T, sc engine.Scenario, rule string) engine.Results {
	t.Helper()
	sc.Sched.Policy = "scx_simple"
	sc.Sched.Scx = engine.ScxConfig{}
	if rule != "" {
		sc.Sched.WakeSync = rule
	}
	s, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return s.Run()
}

// policyChecks assert what each example policy is about.
var policyChecks = map[string]struct {
	// sets are overrides of the scenario for this policy's run.
	sets  []string
	check func(t *testing.T, sc engine.Scenario, r exampleRun)
}{
	// scx_simple.star makes the Go scx_simple's decisions.
	"scx_simple": {check: func(t *testing.T, sc engine.Scenario, r exampleRun) {
		if want := goSimple(t, sc, ""); !sameResults(r.res, want) {
			t.Errorf("results differ from the Go scx_simple's:\nstar %+v\ngo   %+v", r.res, want)
		}
	}},
	// scx_wakesync.star applies the merged (new) WAKE_SYNC rule itself: run
	// under a scenario that asks for the proposed rule, it still makes the Go
	// scx_simple's decisions under the new one (and the two rules make
	// different ones on both examples, so the check can fail).
	"scx_wakesync": {sets: []string{"sched.wake_sync=proposed"}, check: func(t *testing.T, sc engine.Scenario, r exampleRun) {
		if want := goSimple(t, sc, "new"); !sameResults(r.res, want) {
			t.Errorf("results differ from the Go scx_simple's under the new rule:\nstar %+v\ngo   %+v", r.res, want)
		}
		if other := goSimple(t, sc, "proposed"); sameResults(r.res, other) {
			t.Errorf("results are the Go scx_simple's under the proposed rule, the scenario's: the scenario's rule acted, not the policy's")
		}
	}},
	// scx_qmap.star: select_cpu claims an idle CPU without inserting the
	// task and enqueue queues it; the claimed CPU must be woken and run it,
	// so the machine is kept as busy as under scx_simple and hackbench
	// finishes in a comparable time.
	"scx_qmap": {check: func(t *testing.T, sc engine.Scenario, r exampleRun) {
		want := goSimple(t, sc, "")
		if r.res.BusyVCPUsMean < 0.9*want.BusyVCPUsMean {
			t.Errorf("busy vCPUs %.3f, under 0.9 of scx_simple's %.3f: CPUs idle while tasks wait", r.res.BusyVCPUsMean, want.BusyVCPUsMean)
		}
		if want.ElapsedS > 0 && (r.res.ElapsedS == 0 || r.res.ElapsedS > 1.5*want.ElapsedS) {
			t.Errorf("hackbench took %v s, scx_simple %v s", r.res.ElapsedS, want.ElapsedS)
		}
		t.Logf("completed %d (scx_simple %d); elapsed %v (%v); busy %v (%v)",
			r.res.Completed, want.Completed, r.res.ElapsedS, want.ElapsedS, r.res.BusyVCPUsMean, want.BusyVCPUsMean)
	}},
	// scx_central.star: CPU 0 decides for every CPU. Tasks run on the other
	// CPUs too; an IPI to another CPU comes from CPU 0 (its dispatch placing a
	// task) or from its timer, never from a third CPU; the other CPUs only
	// ever kick CPU 0; and the work done is of the order of scx_simple's.
	"scx_central": {check: func(t *testing.T, sc engine.Scenario, r exampleRun) {
		var others int64
		for cpu, n := range r.runs {
			if cpu != 0 {
				others += n
			}
		}
		if others == 0 {
			t.Errorf("no task ran on a CPU other than the central CPU 0: runs by CPU %v", r.runs)
		}
		var fromCentral int64
		for from := range r.ipis {
			for to, n := range r.ipis[from] {
				switch {
				case n == 0:
				case from == 1 && to != 0:
					fromCentral += n
				case from >= 2 && to != 0:
					t.Errorf("CPU %d sent %d IPIs to CPU %d: only the central CPU places tasks", from-1, n, to)
				}
			}
		}
		if fromCentral == 0 {
			t.Errorf("the central CPU sent no IPI to another CPU: it placed no task there")
		}
		// Comparable work: the CPUs are kept as busy as under scx_simple, and
		// hackbench finishes in a comparable time. (Its messages are not
		// comparable on saturated-sync: a woken pair partner waits in the
		// FIFO behind spinners that run SLICE_DFL each, where scx_simple's
		// vtime order puts it first.)
		want := goSimple(t, sc, "")
		if r.res.BusyVCPUsMean < 0.9*want.BusyVCPUsMean {
			t.Errorf("busy vCPUs %.3f, under 0.9 of scx_simple's %.3f: CPUs idle while tasks wait", r.res.BusyVCPUsMean, want.BusyVCPUsMean)
		}
		if want.ElapsedS > 0 && (r.res.ElapsedS == 0 || r.res.ElapsedS > 3*want.ElapsedS) {
			t.Errorf("hackbench took %v s, scx_simple %v s", r.res.ElapsedS, want.ElapsedS)
		}
		t.Logf("completed %d (scx_simple %d); elapsed %v (%v); busy %v (%v); runs by CPU %v; IPIs from CPU 0 to others %d",
			r.res.Completed, want.Completed, r.res.ElapsedS, want.ElapsedS, r.res.BusyVCPUsMean, want.BusyVCPUsMean, r.runs, fromCentral)
	}},
	// scx_cosmos.star (defaults: every CPU busy): each wake and requeue
	// looks for an idle CPU, and a task that finds none goes to one shared
	// DSQ that every CPU consumes, so the CPUs are kept as busy as under
	// scx_simple and hackbench finishes in a comparable time. On
	// saturated-sync a pair partner's deadline heads that DSQ (a task waking
	// as often as the pairs may lag vtime_now by slice_lag x its wakeup
	// frequency, 20 ms x 1024, where a spinner's deadline carries its 20 ms
	// of runtime since it last slept), so it runs as soon as its waker
	// blocks, and the pairs pass more messages than under scx_simple, whose
	// vtime order lags by 20 ms at most.
	"scx_cosmos": {check: func(t *testing.T, sc engine.Scenario, r exampleRun) {
		want := goSimple(t, sc, "")
		if r.res.BusyVCPUsMean < 0.9*want.BusyVCPUsMean {
			t.Errorf("busy vCPUs %.3f, under 0.9 of scx_simple's %.3f: CPUs idle while tasks wait", r.res.BusyVCPUsMean, want.BusyVCPUsMean)
		}
		if want.ElapsedS > 0 && (r.res.ElapsedS == 0 || r.res.ElapsedS > 1.5*want.ElapsedS) {
			t.Errorf("hackbench took %v s, scx_simple %v s", r.res.ElapsedS, want.ElapsedS)
		}
		if sc.Workload.Kind == engine.WorkloadSyncPairs && r.res.Completed <= want.Completed {
			t.Errorf("the pairs passed %d messages, scx_simple's %d: the woken partner did not head the shared DSQ", r.res.Completed, want.Completed)
		}
		t.Logf("completed %d (scx_simple %d); elapsed %v (%v); busy %v (%v)",
			r.res.Completed, want.Completed, r.res.ElapsedS, want.ElapsedS, r.res.BusyVCPUsMean, want.BusyVCPUsMean)
	}},
}

// sameResults compares the numbers two runs are judged by.
func sameResults(a, b engine.Results) bool {
	return a.Completed == b.Completed && a.Events == b.Events && a.ElapsedS == b.ElapsedS &&
		a.LatencyUs == b.LatencyUs && a.IPIsPerS == b.IPIsPerS && a.MigrationsPerS == b.MigrationsPerS &&
		a.TaskFairness == b.TaskFairness
}

// TestExamples: every examples/policies/*.star compiles and runs on
// hackbench and saturated-sync without being ejected, completes work, and
// does what it is about (policyChecks).
func TestExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "policies", "*.star"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".star"))
	}
	for _, want := range []string{"scx_bpfland", "scx_central", "scx_cosmos", "scx_p2dq", "scx_qmap", "scx_simple", "scx_wakesync"} {
		if !slices.Contains(names, want) {
			t.Errorf("examples/policies/%s.star is missing", want)
		}
	}
	for _, name := range names {
		pc, known := policyChecks[name]
		for i, ex := range exampleScenarios {
			t.Run(name+"/"+ex.name, func(t *testing.T) {
				if testing.Short() && i > 0 {
					t.Skip("short: " + exampleScenarios[0].name + " only")
				}
				sc := readExample(t, ex.name, append(append([]string{"sched.policy=scx_simple"}, ex.sets...), pc.sets...)...)
				sc = withPolicy(sc, policySource(t, name))
				r := runExamplePolicy(t, sc, name+".star")
				if r.res.ScxExit.Ejected() {
					t.Fatalf("ejected at %d ns: %s", r.res.ScxExit.AtNs, r.res.ScxExit.Reason)
				}
				if r.res.Completed <= 0 {
					t.Fatalf("completed no work in %.3f s", r.res.SimSeconds)
				}
				if !known {
					t.Logf("no policy-specific check for %s", name)
					return
				}
				pc.check(t, sc, r)
			})
		}
	}
}
