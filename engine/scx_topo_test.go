package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The built-in idle selection on the machine's topology (scx_topo.go): the
// SMT idle mask, scx_select_cpu_dfl's order, pick_idle_cpu's
// SCX_PICK_IDLE_CORE, and the flat machine's choices unchanged.

// topoScenario is an rt-app scenario on machine topo ("" for 4 flat CPUs).
func topoScenario(t *testing.T, topo, rtapp string) Scenario {
	t.Helper()
	sc := rtappScenario(rtapp)
	if topo != "" {
		shape, err := ParseTopology(topo)
		if err != nil {
			t.Fatal(err)
		}
		sc.Machine.Topology, sc.Machine.VCPUs = topo, shape.CPUs()
	}
	return sc
}

// idleKernel is scx_simple on an idle machine of shape topo, 1 ms in: every
// CPU halted, in the idle mask, none claimed.
func idleKernel(t *testing.T, topo string) (*Sim, *ScxKernel) {
	t.Helper()
	sc := topoScenario(t, topo, `{"tasks": {"late": {"delay": 900000, "run": 100}}}`)
	sc.Sched.Policy = "scx_simple"
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	s.RunUntil(1e6)
	k := s.pol.(*ScxKernel)
	for _, c := range s.cpus {
		if !k.idleCPU(c) {
			t.Fatalf("CPU %d is not idle 1 ms into an idle run (state %v)", c.id, c.state)
		}
	}
	return s, k
}

// coreOf is the core of cpu on s's machine.
func coreOf(s *Sim, cpu int) int { return s.topo.CPU(cpu).Core }

// TestScxTopoFourHogs is issue 34's "four hogs on 1n1l4c2t take a core
// each": four CPU-bound tasks homed on CPUs 0 to 3 (two cores' siblings) and
// woken one after another under scx_simple (scx_bpf_select_cpu_dfl) land on
// four cores, not on two: the second finds its previous CPU's core half
// busy and takes a wholly idle core instead (scx_select_cpu_dfl's SMT steps).
// With more than one LLC the cores come from the previous CPU's LLC first,
// then its node (the LLC and NUMA steps); without SMT the previous CPU wins.
func TestScxTopoFourHogs(t *testing.T) {
	for _, tc := range []struct {
		topo string
		want []int // the CPU each hog runs on
	}{
		{"1n1l4c2t", []int{0, 2, 4, 6}},
		// One LLC per node: the LLC step finds the cores, in node 0.
		{"2n2l4c2t", []int{0, 2, 4, 6}},
		// Two LLCs of two cores per node: the third and fourth hogs find
		// no idle core left in LLC 0 and take node 0's others (the NUMA
		// step), not LLC 2's in node 1.
		{"2n4l2c2t", []int{0, 2, 4, 6}},
		{"", []int{0, 1, 2, 3}},
		{"1n2l4c1t", []int{0, 1, 2, 3}},
	} {
		t.Run(tc.topo, func(t *testing.T) {
			sc := topoScenario(t, tc.topo, `{"tasks": {"hog": {"instance": 4, "loop": -1, "run": 10000}}}`)
			sc.Sched.Policy = "scx_simple"
			sc.DurationMs = 20
			s, err := NewSim(sc)
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			s.RunUntil(5e6)
			got := make([]int, 4)
			cores := map[int]bool{}
			for i := range got {
				th := s.threads[len(s.threads)-4+i]
				if th.state != ThreadRunning {
					t.Fatalf("%s is %v 5 ms in, not running", th.name, th.state)
				}
				got[i] = th.cpu
				cores[coreOf(s, th.cpu)] = true
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("the hogs run on CPUs %v, want %v", got, tc.want)
			}
			if len(cores) != 4 {
				t.Errorf("the hogs share cores: CPUs %v", got)
			}
		})
	}
}

// TestScxTopoSMTMask: the SMT idle mask holds a core only while all its CPUs
// are in the idle mask (update_builtin_idle), claiming one CPU takes its
// whole core out while its sibling stays in the idle mask
// (scx_idle_test_and_clear_cpu), and without SMT get_idle_smtmask is the
// idle mask (scx_bpf_get_idle_smtmask).
func TestScxTopoSMTMask(t *testing.T) {
	for _, tc := range []struct {
		topo     string
		claim    []int
		wantIdle []int
		wantSMT  []int
	}{
		{"1n1l4c2t", nil, []int{0, 1, 2, 3, 4, 5, 6, 7}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"1n1l4c2t", []int{1}, []int{0, 2, 3, 4, 5, 6, 7}, []int{2, 3, 4, 5, 6, 7}},
		{"1n1l4c2t", []int{1, 4}, []int{0, 2, 3, 5, 6, 7}, []int{2, 3, 6, 7}},
		{"1n1l2c4t", []int{6}, []int{0, 1, 2, 3, 4, 5, 7}, []int{0, 1, 2, 3}},
		{"", []int{2}, []int{0, 1, 3}, []int{0, 1, 3}},
	} {
		t.Run(tc.topo, func(t *testing.T) {
			_, k := idleKernel(t, tc.topo)
			for _, c := range tc.claim {
				if ok, err := k.TestAndClearCPUIdle(c); !ok || err != nil {
					t.Fatalf("test_and_clear_cpu_idle(%d): %v, %v", c, ok, err)
				}
				if ok, _ := k.TestAndClearCPUIdle(c); ok {
					t.Fatalf("CPU %d claimed twice", c)
				}
			}
			idle, _ := k.IdleCPUs()
			smt, _ := k.IdleSMTCPUs()
			if !slices.Equal(idle, tc.wantIdle) || !slices.Equal(smt, tc.wantSMT) {
				t.Errorf("claimed %v: idle mask %v, SMT mask %v; want %v, %v", tc.claim, idle, smt, tc.wantIdle, tc.wantSMT)
			}
		})
	}
}

// TestScxTopoCoreReenters: a core leaves the SMT idle mask when one CPU of it
// runs a task and comes back only once that CPU is idle again, its sibling
// idle all along (update_builtin_idle's cpumask_subset test).
func TestScxTopoCoreReenters(t *testing.T) {
	sc := topoScenario(t, "1n1l2c2t", `{"tasks": {"t": {"cpus": [0], "loop": -1, "run": 1000, "sleep": 2000}}}`)
	sc.Sched.Policy = "scx_simple"
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	k := s.pol.(*ScxKernel)
	for _, step := range []struct {
		atNs     int64
		busy     bool // CPU 0 runs the task
		wantSMT  []int
		wantIdle []int
	}{
		{500_000, true, []int{2, 3}, []int{1, 2, 3}},
		{2_000_000, false, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}},
		{3_500_000, true, []int{2, 3}, []int{1, 2, 3}},
		{5_000_000, false, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}},
	} {
		s.RunUntil(step.atNs)
		if busy := s.cpus[0].cur != nil; busy != step.busy {
			t.Fatalf("at %d ns CPU 0 busy %v, want %v", step.atNs, busy, step.busy)
		}
		smt, _ := k.IdleSMTCPUs()
		idle, _ := k.IdleCPUs()
		if !slices.Equal(smt, step.wantSMT) || !slices.Equal(idle, step.wantIdle) {
			t.Errorf("at %d ns: SMT mask %v, idle mask %v; want %v, %v", step.atNs, smt, idle, step.wantSMT, step.wantIdle)
		}
	}
}

// TestScxTopoSelectOrder: scx_select_cpu_dfl's steps, each the first to
// find a CPU for some claimed set, on an idle machine (the wake from
// outside, so no WAKE_SYNC).
func TestScxTopoSelectOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		topo   string
		claim  []int
		prev   int
		want   int
		reason string
	}{
		{"prev's core wholly idle", "1n1l4c2t", nil, 3, 3, dflPrevCore},
		{"another core before prev's sibling", "1n1l4c2t", []int{2}, 3, 0, dflAnyCore},
		{"prev when no core is wholly idle", "1n1l2c2t", []int{0, 2}, 3, 3, dflPrev},
		{"any idle CPU last", "1n1l2c2t", []int{0, 2, 3}, 3, 1, dflAny},
		{"a core in prev's LLC", "1n2l2c2t", []int{4}, 5, 6, dflLLCCore},
		{"a core in another LLC", "1n2l2c2t", []int{4, 6}, 5, 0, dflAnyCore},
		{"an idle CPU in prev's LLC first", "1n2l2c2t", []int{0, 2, 4, 6, 5}, 5, 7, dflLLC},
		{"a core in prev's node", "2n4l2c2t", []int{0, 2}, 1, 4, dflNodeCore},
		{"an idle CPU in prev's node", "2n4l2c2t", []int{0, 1, 2, 3, 4, 6, 8, 10, 12, 14}, 1, 5, dflNode},
		{"no SMT: prev", "1n2l2c1t", nil, 3, 3, dflPrev},
		{"no SMT: prev's LLC", "1n2l2c1t", []int{3}, 3, 2, dflLLC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, k := idleKernel(t, tc.topo)
			for _, c := range tc.claim {
				k.claimed[c] = true
			}
			th := s.newThread("w", RoleWorker, tc.prev, false)
			got, reason := k.scxSelectCPUDfl(th, tc.prev, -1, nil, 0)
			if got != tc.want || reason != tc.reason {
				t.Errorf("claimed %v, prev %d: CPU %d (%s), want %d (%s)", tc.claim, tc.prev, got, reason, tc.want, tc.reason)
			}
			if got >= 0 && !k.claimed[got] {
				t.Errorf("CPU %d was not claimed", got)
			}
		})
	}
}

// TestScxTopoPickIdleCore: pick_idle_cpu with SCX_PICK_IDLE_CORE returns only
// a CPU of a wholly idle core, -1 when none is left; without the flag a
// wholly idle core comes first, then any idle CPU (pick_idle_cpu_in_node).
func TestScxTopoPickIdleCore(t *testing.T) {
	s, k := idleKernel(t, "1n1l2c2t")
	th := s.handle(s.newThread("w", RoleWorker, 0, false))
	k.claimed[1] = true // core 0 half busy
	var got []int
	for range 3 {
		c, err := k.PickIdleCPUFlags(th, ScxPickIdleCore)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if !slices.Equal(got, []int{2, -1, -1}) {
		t.Errorf("PICK_IDLE_CORE picks %v, want [2 -1 -1]: core 1 once, then none", got)
	}
	c, _ := k.PickIdleCPUFlags(th, 0)
	c2, _ := k.PickIdleCPUFlags(th, 0)
	if c != 3 || c2 != 0 {
		t.Errorf("without the flag: %d then %d, want 3 then 0 (the idle CPUs, from the cursor on)", c, c2)
	}
	if _, err := k.PickIdleCPUFlags(th, 4); err == nil {
		t.Errorf("an unknown PICK_IDLE_* flag accepted")
	}
	// Without per-node idle masks the search has no node to stay in
	// (scx_pick_idle_cpu with NUMA_NO_NODE): PICK_IDLE_IN_NODE changes nothing.
	k.claimed[2] = false
	if c, err := k.PickIdleCPUFlags(th, ScxPickIdleInNode); c != 2 || err != nil {
		t.Errorf("PICK_IDLE_IN_NODE without per-node idle masks: %d, %v; want 2 (the next idle CPU), no error", c, err)
	}
}

// handle makes a task handle for tests (ScxKernel.handle of the sim's core).
func (s *Sim) handle(t *thread) ScxTask { return s.pol.(*ScxKernel).handle(t) }

// TestScxTopoFlatUnchanged: on machines without SMT, with one LLC and one
// node, scx_select_cpu_dfl's steps reduce to what the engine did before the
// topology: prev if idle, else the first idle CPU after the caller's cursor.
// Random claimed sets, cursors and prev CPUs give the same CPU, the same
// claims and the same cursor both ways.
func TestScxTopoFlatUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 4))
	for _, topo := range []string{"", "1n1l8c1t"} {
		s, k := idleKernel(t, topo)
		n := len(s.cpus)
		th := s.newThread("w", RoleWorker, 0, false)
		for range 2000 {
			for i := range n {
				k.claimed[i] = rng.IntN(3) == 0
			}
			from := rng.IntN(n+1) - 1
			slot := from
			if slot < 0 {
				slot = n
			}
			k.distPrev[slot] = rng.IntN(n+1) - 1
			prev := rng.IntN(n)
			th.cpu = prev
			claimed, cursor := slices.Clone(k.claimed), k.distPrev[slot]
			// The rule before the topology, on copies.
			want := -1
			if !claimed[prev] {
				want = prev
			} else {
				for i := range n {
					if c := (cursor + 1 + i) % n; !claimed[c] {
						want, cursor = c, c
						break
					}
				}
			}
			if want >= 0 {
				claimed[want] = true
			}
			got, _ := k.scxSelectCPUDfl(th, prev, from, nil, 0)
			if got != want || !slices.Equal(k.claimed, claimed) || k.distPrev[slot] != cursor {
				t.Fatalf("%q prev %d from %d: CPU %d, cursor %d; the flat rule gives %d, cursor %d", topo, prev, from, got, k.distPrev[slot], want, cursor)
			}
		}
	}
}
