package engine

import (
	"slices"
	"testing"
)

// The periodic and NOHZ idle balancers (linux_lb.go).

// lastCPUs runs sc and returns, for each thread whose name starts with
// prefix, the CPU it was last switched in on.
func lastCPUs(t *testing.T, sc Scenario, prefix string) []int {
	t.Helper()
	var out []int
	for _, cpus := range runsByThreadLast(t, sc, prefix) {
		out = append(out, cpus)
	}
	slices.Sort(out)
	return out
}

// runsByThreadLast is runsByThread's last CPU of each thread.
func runsByThreadLast(t *testing.T, sc Scenario, prefix string) map[string]int {
	t.Helper()
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	last := map[int]int{}
	s.Observe(func(e VisEvent) {
		if e.Kind == VisRun {
			last[int(e.Thread)] = int(e.CPU)
		}
	})
	s.Run()
	var snap Snapshot
	s.Snapshot(&snap)
	out := map[string]int{}
	for _, th := range snap.Threads {
		if len(th.Name) >= len(prefix) && th.Name[:len(prefix)] == prefix {
			out[th.Name] = last[th.ID]
		}
	}
	return out
}

// TestStartedHogsSpreadToCores: four hogs started on CPUs 0-3 of a
// 1n1l4c2t machine (two cores, both threads busy) end a core each: the
// idle cores' balance, run by the NOHZ idle load balancer, finds an SMT
// core running two tasks (group_smt_balance), fails to detach a running
// task, and after cache_nice_tries+2 failures asks the busiest CPU's
// stopper to push it (active balance).
func TestStartedHogsSpreadToCores(t *testing.T) {
	const src = `{"tasks": {"hog": {"instance": 4, "loop": -1, "run": 100000}}}`
	for _, topo := range []string{"1n1l4c2t", "2n2l4c2t", "1n2l2c2t"} {
		t.Run(topo, func(t *testing.T) {
			sc := linuxTopoScenario(t, src, "machine.topology="+topo, "duration_ms=1000")
			cpus := lastCPUs(t, sc, "hog")
			cores := map[int]bool{}
			for _, c := range cpus {
				cores[c/2] = true
			}
			if len(cores) != 4 {
				t.Errorf("hogs end on CPUs %v: %d cores, want 4", cpus, len(cores))
			}
		})
	}
}

// TestNOHZIdleBalanceSpreadsTasks: four hogs start pinned to CPU 0 and
// then allow CPUs 0-3. The other CPUs are idle with their ticks stopped,
// so only the NOHZ idle balancer can give them work: CPU 0's tick, running
// two tasks or more, kicks the first tickless idle CPU, which balances for
// the idle ones. Without it the hogs would share CPU 0 for the whole run
// (newidle balancing runs only on a CPU going idle).
func TestNOHZIdleBalanceSpreadsTasks(t *testing.T) {
	const src = `{"tasks": {"hog": {"instance": 4, "loop": 1, "phases": {
		"start": {"cpus": [0], "run": 1000}, "go": {"cpus": [0, 1, 2, 3], "run": 2000000}}}}}`
	sc := linuxTopoScenario(t, src, "machine.vcpus=4", "duration_ms=300")
	cpus := lastCPUs(t, sc, "hog")
	if !slices.Equal(cpus, []int{0, 1, 2, 3}) {
		t.Errorf("hogs end on CPUs %v, want one on each of 0-3", cpus)
	}
	r, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	if r.IPIsPerS.Pull == 0 {
		t.Errorf("no pull IPI: the idle CPUs were never kicked to balance")
	}
	// Each hog had its first millisecond on CPU 0 (4 ms), then one CPU
	// each: the machine is busy but for the first ticks.
	if r.BusyVCPUsMean < 3.5 {
		t.Errorf("%.2f busy CPUs on average, want nearly 4", r.BusyVCPUsMean)
	}
}

// TestBusyBalanceSharesOverload: six hogs on four flat CPUs start two on
// CPUs 0 and 1, one on 2 and 3. Never moved, two hogs would have a CPU
// each and four half of one: Jain's fairness (Σx)²/(n·Σx²) with
// x = 1, 1, .5, .5, .5, .5 is 16/18. The busy CPUs' own balance
// (CPU_NOT_IDLE, migrate_load) moves a hog from a CPU running two to one
// running one once the load it would move, halved by each failed balance
// (shr_bound), fits the imbalance, so the hogs take turns.
func TestBusyBalanceSharesOverload(t *testing.T) {
	const src = `{"tasks": {"hog": {"instance": 6, "loop": -1, "run": 100000}}}`
	sc := linuxTopoScenario(t, src, "machine.vcpus=4", "duration_ms=4000")
	r, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	if static := 16.0 / 18; r.TaskFairness <= static+0.01 {
		t.Errorf("task fairness %.3f, no better than the hogs never moving (%.3f)", r.TaskFairness, static)
	}
	if r.MigrationsPerS == 0 {
		t.Errorf("no migration")
	}
}
