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
