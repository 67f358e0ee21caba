package engine

import (
	"slices"
	"strings"
	"testing"
)

// The fair class's placement on a topology (linux_topo.go).

// runsByThread runs sc under the linux policy and returns, for each thread
// whose name starts with prefix, the CPUs it was switched in on.
func runsByThread(t *testing.T, sc Scenario, prefix string) map[string][]int {
	t.Helper()
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[int][]int{}
	s.Observe(func(e VisEvent) {
		if e.Kind == VisRun && !slices.Contains(runs[int(e.Thread)], int(e.CPU)) {
			runs[int(e.Thread)] = append(runs[int(e.Thread)], int(e.CPU))
		}
	})
	s.Run()
	var snap Snapshot
	s.Snapshot(&snap)
	out := map[string][]int{}
	for _, th := range snap.Threads {
		if strings.HasPrefix(th.Name, prefix) {
			out[th.Name] = runs[th.ID]
		}
	}
	return out
}

func linuxTopoScenario(t *testing.T, src string, knobs ...string) Scenario {
	t.Helper()
	sc, err := rtappScenario(src).WithKnobs(append([]string{"sched.policy=linux"}, knobs...)...)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestForkedHogsTakeACoreEach: four hogs forked one after another on
// 1n1l4c2t land on four cores (find_idlest_group at the MC level prefers
// the core with the most idle CPUs), and stay there; on 2n2l4c2t the NUMA
// level keeps the first ones on the parent's node while the imbalance is
// allowed (adjust_numa_imbalance, imb_numa_nr 2), then they spread.
func TestForkedHogsTakeACoreEach(t *testing.T) {
	const src = `{"tasks": {
		"hog": {"instance": 0, "loop": -1, "run": 100000},
		"main": {"loop": 1, "phases": {"a": {"fork": "hog"}, "b": {"fork": "hog"}, "c": {"fork": "hog"},
			"d": {"fork": "hog"}, "e": {"run": 10, "sleep": 2000000}}}}}`
	for _, tc := range []struct {
		topology string
		vcpus    int
	}{{"1n1l4c2t", 8}, {"1n2l2c2t", 8}, {"2n2l4c2t", 16}} {
		t.Run(tc.topology, func(t *testing.T) {
			sc := linuxTopoScenario(t, src, "machine.topology="+tc.topology, "duration_ms=1000")
			runs := runsByThread(t, sc, "hog")
			if len(runs) != 4 {
				t.Fatalf("%d hogs, want 4: %v", len(runs), runs)
			}
			cores := map[int]string{}
			for name, cpus := range runs {
				if len(cpus) != 1 {
					t.Errorf("%s ran on CPUs %v: it moved", name, cpus)
					continue
				}
				core := cpus[0] / 2
				if other, ok := cores[core]; ok {
					t.Errorf("%s and %s share core %d (CPUs %v)", name, other, core, runs)
				}
				cores[core] = name
			}
		})
	}
	// The flat machine of as many CPUs: the first idle CPUs after the
	// parent's, whatever core they would be.
	runs := runsByThread(t, linuxTopoScenario(t, src, "machine.vcpus=8", "duration_ms=1000"), "hog")
	var cpus []int
	for _, c := range runs {
		cpus = append(cpus, c...)
	}
	slices.Sort(cpus)
	if !slices.Equal(cpus, []int{1, 2, 3, 4}) {
		t.Errorf("flat: the hogs ran on %v, want CPUs 1-4 (the first idle after the parent's CPU 0)", cpus)
	}
}

// TestWakeTakesAWholeIdleCore: a periodic task homed on CPU 0, where a
// pinned hog runs, is woken by its timer there; CPU 0 is busy, so it goes
// to a whole idle core (select_idle_core, with the LLC's has_idle_cores
// hint set), not to the hog's idle SMT sibling, which on a flat machine is
// the first idle CPU after the target. From then on its timer fires on its
// own idle CPU, which keeps it (idle_cpu holds in the interrupt).
func TestWakeTakesAWholeIdleCore(t *testing.T) {
	const src = `{"tasks": {"p": {"loop": -1, "run": 1000, "timer": {"ref": "t", "period": 10000}},
		"hog": {"cpus": [0], "loop": -1, "run": 100000}}}`
	for _, tc := range []struct {
		knob string
		want []int
	}{
		{"machine.topology=1n1l4c2t", []int{2}},
		{"machine.vcpus=8", []int{1}},
	} {
		runs := runsByThread(t, linuxTopoScenario(t, src, tc.knob, "duration_ms=500"), "p")
		if got := runs["p-0"]; !slices.Equal(got, append([]int{0}, tc.want...)) {
			t.Errorf("%s: the periodic task ran on CPUs %v, want 0 (its home, at its start), then %v", tc.knob, got, tc.want)
		}
	}
}

// TestTopologyFlatIsTheFlatReference: a topology of one LLC without SMT is
// the flat machine: the same run, result for result.
func TestTopologyFlatIsTheFlatReference(t *testing.T) {
	a := runExample(t, "hackbench", "linux", "machine.topology=1n1l8c1t", "duration_ms=200")
	b := runExample(t, "hackbench", "linux", "machine.vcpus=8", "duration_ms=200")
	if a.Topology.MigrationsByLevel.Core != a.MigrationsPerS {
		t.Errorf("1n1l8c1t: migrations by level %+v, want all %.1f/s to another core of the LLC", a.Topology.MigrationsByLevel, a.MigrationsPerS)
	}
	a.Topology.MigrationsByLevel = MigrationLevels{} // only a topology reports them
	if string(mustJSON(t, a)) != string(mustJSON(t, b)) {
		t.Error("1n1l8c1t and the flat 8-CPU machine ran differently")
	}
}

// TestNewidlePullsFromTheNearestDomain: a CPU going idle pulls from its own
// LLC before a busier queue in another LLC (sched_balance_newidle stops at
// the lowest domain that pulls); on the flat machine, from the busiest queue.
func TestNewidlePullsFromTheNearestDomain(t *testing.T) {
	for _, tc := range []struct {
		knob string
		from int
	}{{"machine.topology=1n2l4c1t", 1}, {"machine.vcpus=8", 4}} {
		sc := linuxTopoScenario(t, `{"tasks": {"x": {"loop": 1, "run": 10}}}`, tc.knob)
		s, err := NewSim(sc)
		if err != nil {
			t.Fatal(err)
		}
		queue := func(cpu, n int) {
			for range n {
				s.rqInsert(s.cpus[cpu], s.newThread("q", RoleWorker, cpu, false))
			}
		}
		queue(1, 1) // CPU 1 shares LLC 0 with CPU 0
		queue(4, 3) // CPU 4 is in LLC 1
		if !s.pol.idleEnter(s, s.cpus[0]) {
			t.Fatalf("%s: CPU 0 pulled nothing", tc.knob)
		}
		if got := len(s.cpus[tc.from].rq); got != map[int]int{1: 0, 4: 2}[tc.from] {
			t.Errorf("%s: CPU %d still queues %d: the pull came from elsewhere", tc.knob, tc.from, got)
		}
	}
}
