package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Per-node idle masks (scx_nodeidle.go, SCX_OPS_BUILTIN_IDLE_PER_NODE): the
// flag's validation, the node searches and their order, the helpers' errors,
// the masks' invariant through a run, and numa.bpf.c ported as the kernel
// runs it.

// farNodes is a distance matrix for four nodes in which node 1's nearest
// other node is 3, then 0, then 2: the order differs from the node numbers
// and from the CPU numbers.
var farNodes = [][]int{
	{10, 20, 30, 30},
	{20, 10, 30, 15},
	{30, 30, 10, 20},
	{30, 15, 20, 10},
}

// nodeIdleKernel is a probe policy with ops flags flags on an idle machine
// of shape topo (with distances dist, nil for the default), 1 ms in: every
// CPU halted, in the idle mask, none claimed.
func nodeIdleKernel(t *testing.T, topo string, dist [][]int, flags int64) (*Sim, *ScxKernel) {
	t.Helper()
	sc := topoScenario(t, topo, `{"tasks": {"late": {"delay": 900000, "run": 100}}}`)
	sc.Machine.NUMADistance = dist
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# the ops below stand in for its compiler\n"
	ops := &probeOps{flags: flags}
	s, err := NewSimScx(sc, func(string, string, int64) (ScxOps, error) { return ops, nil })
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	s.RunUntil(1e6)
	k := s.pol.(*ScxKernel)
	if k.exit != "" {
		t.Fatalf("ejected: %s", k.exit)
	}
	for _, c := range s.cpus {
		if !k.idleCPU(c) {
			t.Fatalf("CPU %d is not idle 1 ms into an idle run (state %v)", c.id, c.state)
		}
	}
	return s, k
}

// TestScxNodeIdleFlags: the flag loads only with the built-in idle tracking
// on (validate_ops: "SCX_OPS_BUILTIN_IDLE_PER_NODE requires CPU idle
// selection enabled"); a policy with update_idle keeps it with
// OPS_KEEP_BUILTIN_IDLE. Flags the core does not model are still refused.
func TestScxNodeIdleFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flags   int64
		defined ScxOpSet
		eject   string // a part of the reason, "" for a run that keeps the policy
	}{
		{"per-node", ScxOpsBuiltinIdlePerNode, 0, ""},
		{"per-node with update_idle kept", ScxOpsBuiltinIdlePerNode | ScxOpsKeepBuiltinIdle, ScxOpUpdateIdle, ""},
		{"per-node with update_idle", ScxOpsBuiltinIdlePerNode, ScxOpUpdateIdle,
			"flags: SCX_OPS_BUILTIN_IDLE_PER_NODE requires CPU idle selection enabled (validate_ops)"},
		{"unmodelled", 1 << 3, 0, "ops flags 0x8: only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := topoScenario(t, "2n2l4c2t", `{"tasks": {"t": {"instance": 4, "loop": 20, "run": 500, "sleep": 300}}}`)
			sc.DurationMs = 20
			ops := &probeOps{flags: tc.flags, defined: tc.defined}
			ops.idle = func(*ScxKernel, int, bool) error { return nil }
			_, r := runProbe(t, sc, ops)
			switch {
			case tc.eject == "" && r.ScxExit.Ejected():
				t.Errorf("ejected: %s", r.ScxExit.Reason)
			case tc.eject != "" && !strings.Contains(r.ScxExit.Reason, tc.eject):
				t.Errorf("exit %q, want one with %q", r.ScxExit.Reason, tc.eject)
			case tc.eject != "" && r.ScxExit.AtNs != 0:
				t.Errorf("ejected at %d ns, want at load (0)", r.ScxExit.AtNs)
			}
		})
	}
}

// TestScxNodeIdlePickNode: pick_idle_cpu_node searches its node first, so a
// task gets node 1's one idle CPU although node 0 has lower-numbered idle
// CPUs and wholly idle cores (where the global pick_idle_cpu goes); with
// node 1 full, SCX_PICK_IDLE_IN_NODE finds nothing (-EBUSY) and without it
// the search goes on to node 0 (scx_pick_idle_cpu). pick_any_cpu_node then
// returns a busy CPU of the node with IN_NODE, an idle CPU of another node
// without.
func TestScxNodeIdlePickNode(t *testing.T) {
	busyNode1 := []int{8, 9, 10, 11, 12, 14, 15} // CPU 13 idle, its core not
	s, k := idleKernel(t, "2n2l4c2t")
	p := s.handle(s.newThread("w", RoleWorker, 9, false))
	for _, c := range busyNode1 {
		k.claimed[c] = true
	}
	if c, _ := k.PickIdleCPUFlags(p, 0); c != 0 {
		t.Fatalf("global pick_idle_cpu: CPU %d, want 0 (a wholly idle core of node 0)", c)
	}

	s, k = nodeIdleKernel(t, "2n2l4c2t", nil, ScxOpsBuiltinIdlePerNode)
	p = s.handle(s.newThread("w", RoleWorker, 9, false))
	for _, c := range busyNode1 {
		k.claimed[c] = true
	}
	for _, step := range []struct {
		name  string
		pick  func(node int, flags int64) (int, error)
		flags int64
		want  int
		claim bool // want is claimed by the call
	}{
		{"pick_idle_cpu_node", k.pickNode(p), 0, 13, true},
		{"pick_idle_cpu_node, node 1 full, IN_NODE", k.pickNode(p), ScxPickIdleInNode, -1, false},
		// Any CPU of node 1 after the cursor (CPU 13, the last found).
		{"pick_any_cpu_node, node 1 full, IN_NODE", k.anyNode(p), ScxPickIdleInNode, 14, false},
		// Node 0 from the cursor (CPU 14), wrapping: core 0 first.
		{"pick_idle_cpu_node, node 1 full", k.pickNode(p), 0, 0, true},
		{"pick_any_cpu_node, node 1 full", k.anyNode(p), 0, 2, true},
		{"pick_idle_cpu_node, node 1 full, PICK_IDLE_CORE", k.pickNode(p), ScxPickIdleCore, 4, true},
	} {
		before := slices.Clone(k.claimed)
		c, err := step.pick(1, step.flags)
		if err != nil || c != step.want {
			t.Fatalf("%s: CPU %d, %v; want %d", step.name, c, err, step.want)
		}
		if c >= 0 && step.claim != (!before[c] && k.claimed[c]) {
			t.Errorf("%s: CPU %d claimed %v by the call, want %v", step.name, c, !before[c] && k.claimed[c], step.claim)
		}
	}
	if c, err := k.PickIdleCPUNode(p, nil, -1, 0); c != -1 || err != nil {
		t.Errorf("pick_idle_cpu_node(NUMA_NO_NODE): %d, %v; want -1 (-ENOENT), no error", c, err)
	}
	if _, err := k.PickIdleCPUNode(p, nil, 2, 0); err == nil || !strings.Contains(err.Error(), "invalid node 2") {
		t.Errorf("pick_idle_cpu_node(2) on two nodes: %v, want invalid node 2", err)
	}
	// cpus_allowed: node 1's CPUs only, node 1 full: nothing idle, with or
	// without IN_NODE; pick_any_cpu_node returns one of them.
	node1 := []int{8, 9, 10, 11, 12, 13, 14, 15}
	if c, _ := k.PickIdleCPUNode(p, node1, 0, 0); c != -1 {
		t.Errorf("pick_idle_cpu_node(node 1's CPUs, node 0): CPU %d, want -1", c)
	}
	if c, _ := k.PickAnyCPUNode(p, node1, 0, 0); c < 8 {
		t.Errorf("pick_any_cpu_node(node 1's CPUs, node 0): CPU %d, want one of node 1's", c)
	}
}

func (k *ScxKernel) pickNode(p ScxTask) func(int, int64) (int, error) {
	return func(node int, flags int64) (int, error) { return k.PickIdleCPUNode(p, nil, node, flags) }
}

func (k *ScxKernel) anyNode(p ScxTask) func(int, int64) (int, error) {
	return func(node int, flags int64) (int, error) { return k.PickAnyCPUNode(p, nil, node, flags) }
}

// TestScxNodeIdleNearestNode: with per-node idle masks, scx_select_cpu_dfl
// goes from prev's node to the nearest other node with an idle CPU
// (for_each_node_numadist), where the global search takes the first idle CPU
// after the cursor; SCX_PICK_IDLE_IN_NODE (select_cpu_and's flags) stops at
// prev's node. 4n4l2c1t: an LLC per node, so the kernel's NUMA step is off
// without the flag too, and node 1's nearest is node 3 (farNodes).
func TestScxNodeIdleNearestNode(t *testing.T) {
	for _, tc := range []struct {
		flags  int64 // ops flags
		pick   int64 // select_cpu_and's flags
		want   int
		reason string
	}{
		{0, 0, 0, dflAny},
		{0, ScxPickIdleInNode, 0, dflAny},
		{ScxOpsBuiltinIdlePerNode, 0, 6, dflFar},
		{ScxOpsBuiltinIdlePerNode, ScxPickIdleInNode, -1, dflNoIdle},
	} {
		t.Run(fmt.Sprintf("flags %#x pick %#x", tc.flags, tc.pick), func(t *testing.T) {
			s, k := nodeIdleKernel(t, "4n4l2c1t", farNodes, tc.flags)
			k.claimed[2], k.claimed[3] = true, true // node 1
			th := s.newThread("w", RoleWorker, 3, false)
			got, reason := k.scxSelectCPUDfl(th, 3, -1, nil, tc.pick)
			if got != tc.want || reason != tc.reason {
				t.Errorf("CPU %d (%s), want %d (%s)", got, reason, tc.want, tc.reason)
			}
		})
	}
	// The whole order from each node: nearest first, the lower node of two
	// at the same distance first.
	_, k := nodeIdleKernel(t, "4n4l2c1t", farNodes, ScxOpsBuiltinIdlePerNode)
	for start, want := range [][]int{{1, 2, 3}, {3, 0, 2}, {3, 0, 1}, {1, 2, 0}} {
		var got []int
		for n := k.nextNode(start, -1); n >= 0; n = k.nextNode(start, n) {
			got = append(got, n)
		}
		if !slices.Equal(got, want) {
			t.Errorf("from node %d: %v, want %v", start, got, want)
		}
	}
}

// TestScxNodeIdlePrevNodeFirst: on 2n2l4c2t with per-node idle masks, a wakee
// whose prev is in node 1 is placed in node 1 while it has an idle CPU, node
// 0's lower-numbered ones notwithstanding, and in node 0 once node 1 is
// full. A wholly idle core anywhere still comes first (scx_select_cpu_dfl's
// SMT steps search every node before prev): node 0 has none here. The
// machine has an LLC per node, so the LLC step keeps the wakee in node 1
// without the flag too; TestScxNodeIdleNearestNode has the case that tells
// them apart.
func TestScxNodeIdlePrevNodeFirst(t *testing.T) {
	s, k := nodeIdleKernel(t, "2n2l4c2t", nil, ScxOpsBuiltinIdlePerNode)
	th := s.newThread("w", RoleWorker, 9, false)
	for _, c := range []int{0, 2, 4, 6, 8, 9, 10, 11, 12, 14, 15} {
		k.claimed[c] = true
	}
	if c, reason := k.scxSelectCPUDfl(th, 9, -1, nil, 0); c != 13 || reason != dflLLC {
		t.Errorf("node 1 with CPU 13 idle: CPU %d (%s), want 13 (%s)", c, reason, dflLLC)
	}
	// Node 1 full: node 0's first idle CPU after the cursor (13), wrapping.
	if c, reason := k.scxSelectCPUDfl(th, 9, -1, nil, 0); c != 1 || reason != dflFar {
		t.Errorf("node 1 full: CPU %d (%s), want 1 (%s)", c, reason, dflFar)
	}
	// A wholly idle core in node 0 beats node 1's idle CPU.
	k.claimed[13], k.claimed[1], k.claimed[2], k.claimed[3] = false, true, false, false
	if c, reason := k.scxSelectCPUDfl(th, 9, -1, nil, 0); c != 2 || reason != dflFarCore {
		t.Errorf("a wholly idle core in node 0: CPU %d (%s), want 2 (%s)", c, reason, dflFarCore)
	}
}

// TestScxNodeIdleGlobalHelpersRefused: under per-node idle masks the global
// idle helpers are the policy's error, with the kernel's words
// (scx_bpf_get_idle_cpumask, scx_bpf_get_idle_smtmask: "SCX_OPS_BUILTIN_
// IDLE_PER_NODE enabled"; scx_bpf_pick_idle_cpu: "per-node idle tracking is
// enabled"); without them the _node helpers are (validate_node: "per-node
// idle tracking is disabled"). test_and_clear_cpu_idle and cpu_node serve
// both.
func TestScxNodeIdleGlobalHelpersRefused(t *testing.T) {
	s, k := nodeIdleKernel(t, "2n2l4c2t", nil, ScxOpsBuiltinIdlePerNode)
	p := s.handle(s.newThread("w", RoleWorker, 0, false))
	errOf := func(_ any, err error) error { return err }
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errOf(k.IdleCPUs()), "get_idle_cpumask: SCX_OPS_BUILTIN_IDLE_PER_NODE enabled"},
		{errOf(k.IdleSMTCPUs()), "get_idle_smtmask: SCX_OPS_BUILTIN_IDLE_PER_NODE enabled"},
		{errOf(k.IdleCPUMaskEmpty()), "idle_cpumask_empty: SCX_OPS_BUILTIN_IDLE_PER_NODE enabled"},
		{errOf(k.PickIdleCPU(p)), "pick_idle_cpu: per-node idle tracking is enabled"},
		{errOf(k.PickIdleCPUIn(p, []int{1}, ScxPickIdleCore)), "pick_idle_cpu: per-node idle tracking is enabled"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want %q", tc.err, tc.want)
		}
	}
	if ok, err := k.TestAndClearCPUIdle(3); !ok || err != nil {
		t.Errorf("test_and_clear_cpu_idle(3) under per-node masks: %v, %v", ok, err)
	}
	if n, err := k.CPUNode(9); n != 1 || err != nil {
		t.Errorf("cpu_node(9): %d, %v", n, err)
	}

	s, k = idleKernel(t, "2n2l4c2t")
	p = s.handle(s.newThread("w", RoleWorker, 0, false))
	for name, err := range map[string]error{
		"get_idle_cpumask_node": errOf(k.IdleCPUsNode(0)),
		"get_idle_smtmask_node": errOf(k.IdleSMTCPUsNode(0)),
		"pick_idle_cpu_node":    errOf(k.PickIdleCPUNode(p, nil, 0, 0)),
		"pick_any_cpu_node":     errOf(k.PickAnyCPUNode(p, nil, 0, 0)),
	} {
		if want := name + ": per-node idle tracking is disabled"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// TestScxNodeIdleGlobalHelperEjects: a per-node policy that reads the global
// idle mask in running is ejected at its first call, with the kernel's
// message.
func TestScxNodeIdleGlobalHelperEjects(t *testing.T) {
	sc := topoScenario(t, "2n2l4c2t", `{"tasks": {"t": {"instance": 2, "loop": 5, "run": 500, "sleep": 300}}}`)
	sc.DurationMs = 10
	ops := &probeOps{flags: ScxOpsBuiltinIdlePerNode, defined: ScxOpRunning}
	ops.running = func(k *ScxKernel, _ ScxTask) error {
		_, err := k.IdleCPUs()
		return err
	}
	_, r := runProbe(t, sc, ops)
	if want := "running: get_idle_cpumask: SCX_OPS_BUILTIN_IDLE_PER_NODE enabled"; !strings.Contains(r.ScxExit.Reason, want) {
		t.Errorf("exit %q, want %q", r.ScxExit.Reason, want)
	}
}

// checkNodeMasks fails t unless each node's idle and SMT idle masks are the
// global pair restricted to the node (what update_builtin_idle and
// scx_idle_test_and_clear_cpu keep per node, a CPU's bits in its node's
// masks only): the global pair as the helpers give it without per-node
// masks, node by node. It returns 1, a check made.
func checkNodeMasks(t *testing.T, k *ScxKernel, when string) int {
	t.Helper()
	k.perNode = false
	global, err := k.IdleCPUs()
	globalSMT, err2 := k.IdleSMTCPUs()
	k.perNode = true
	if err != nil || err2 != nil {
		t.Fatalf("%s: the global masks: %v, %v", when, err, err2)
	}
	for node := range k.s.topo.Shape().Nodes {
		lo, hi := k.nodeSpan(node)
		in := func(c int) bool { return c >= lo && c < hi }
		cpus, err := k.IdleCPUsNode(node)
		smt, err2 := k.IdleSMTCPUsNode(node)
		if err != nil || err2 != nil {
			t.Fatalf("%s: node %d: %v, %v", when, node, err, err2)
		}
		wantCPUs, wantSMT := slices.DeleteFunc(slices.Clone(global), func(c int) bool { return !in(c) }),
			slices.DeleteFunc(slices.Clone(globalSMT), func(c int) bool { return !in(c) })
		if !slices.Equal(cpus, wantCPUs) || !slices.Equal(smt, wantSMT) {
			t.Fatalf("%s: node %d: idle %v, SMT %v; the global masks restricted to it: %v, %v", when, node, cpus, smt, wantCPUs, wantSMT)
		}
	}
	return 1
}

// TestScxNodeIdleMasksInvariant: through hackbench under a per-node policy
// (select_cpu picks in prev's node first with pick_idle_cpu_node, and claims
// CPUs), each node's masks are the global masks restricted to it, at every
// callback and at sample points between events.
func TestScxNodeIdleMasksInvariant(t *testing.T) {
	for _, topo := range []string{"2n2l4c2t", "2n4l2c2t"} {
		t.Run(topo, func(t *testing.T) {
			sc := loadExample(t, "hackbench", "workload.hackbench.loops=10", "duration_ms=1000")
			shape, _ := ParseTopology(topo)
			sc.Machine.Topology, sc.Machine.VCPUs = topo, shape.CPUs()
			sc.Sched.Policy = "scx"
			sc.Sched.Scx.Source = "# the ops below stand in for its compiler\n"
			checks := 0
			ops := &probeOps{flags: ScxOpsBuiltinIdlePerNode, defined: ScxOpSelectCPU | ScxOpRunning}
			ops.sel = func(k *ScxKernel, p ScxTask, prev int, _ int64) (int, error) {
				checks += checkNodeMasks(t, k, fmt.Sprintf("select_cpu at %d ns", k.NowNs()))
				node, _ := k.CPUNode(prev)
				c, err := k.PickIdleCPUNode(p, nil, node, 0)
				if c < 0 {
					c = prev
				}
				checks += checkNodeMasks(t, k, fmt.Sprintf("after pick_idle_cpu_node at %d ns", k.NowNs()))
				return c, err
			}
			ops.running = func(k *ScxKernel, _ ScxTask) error {
				checks += checkNodeMasks(t, k, fmt.Sprintf("running at %d ns", k.NowNs()))
				return nil
			}
			s, err := NewSimScx(sc, func(string, string, int64) (ScxOps, error) { return ops, nil })
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			k := s.pol.(*ScxKernel)
			for at := int64(0); at < 1e9 && !s.Done(); at += 97_000 {
				s.RunUntil(at)
				checks += checkNodeMasks(t, k, fmt.Sprintf("at %d ns", at))
			}
			r := s.Run()
			if r.ScxExit.Ejected() {
				t.Fatalf("ejected: %s", r.ScxExit.Reason)
			}
			if checks < 1000 {
				t.Errorf("only %d checks", checks)
			}
		})
	}
}

// TestScxSelftestNumaPerNode is numa.bpf.c as the kernel runs it, with
// SCX_OPS_BUILTIN_IDLE_PER_NODE: a DSQ per node; select_cpu takes an idle
// CPU of the task's node (pick_idle_cpu_node with SCX_PICK_IDLE_IN_NODE),
// else any CPU of it (pick_any_cpu_node, IN_NODE), and checks that the CPU
// is not in the node's idle mask (get_idle_cpumask_node) and is in the node;
// enqueue queues on the node's DSQ, dispatch consumes its own node's. So a
// task never leaves the node it started in.
func TestScxSelftestNumaPerNode(t *testing.T) {
	for _, topo := range selftestTopos() {
		t.Run(topo, func(t *testing.T) {
			var errs []string
			ops := &probeOps{flags: ScxOpsBuiltinIdlePerNode, defined: ScxOpSelectCPU | ScxOpRunning}
			ops.sel = func(k *ScxKernel, p ScxTask, _ int, _ int64) (int, error) {
				node := scxNodeOf(k, p.CPU())
				cpu, err := k.PickIdleCPUNode(p, nil, node, ScxPickIdleInNode)
				if err == nil && cpu < 0 {
					cpu, err = k.PickAnyCPUNode(p, nil, node, ScxPickIdleInNode)
				}
				if err != nil {
					return 0, err
				}
				idle, err := k.IdleCPUsNode(node)
				if slices.Contains(idle, cpu) {
					errs = append(errs, fmt.Sprintf("CPU %d should be marked as busy", cpu))
				}
				if scxNodeOf(k, cpu) != node {
					errs = append(errs, fmt.Sprintf("CPU %d should be in node %d", cpu, node))
				}
				return cpu, err
			}
			numaNodeDSQs(ops, &errs)
			selftestRun(t, topo, &numaInit{probeOps: ops})
			if len(errs) > 0 {
				t.Errorf("%d errors; the first: %s", len(errs), errs[0])
			}
		})
	}
}

// TestScxNodeIdleWakeSync: scx_select_cpu_dfl's WAKE_SYNC branch asks
// whether the waker's node has an idle CPU (idle_cpumask(waker_node), the
// one mask kept under per-node masks), not the machine; and with
// SCX_PICK_IDLE_IN_NODE (select_cpu_and's flags) the wakee joins a waker in
// prev's node only. Without per-node masks both are the machine's.
func TestScxNodeIdleWakeSync(t *testing.T) {
	for _, tc := range []struct {
		flags  int64
		joins  bool // node 0 full, node 1 idle: the sync rule fires
		inNode bool // waker in node 0, prev in node 1, IN_NODE: the branch runs
	}{
		{0, true, true},
		{ScxOpsBuiltinIdlePerNode, false, false},
	} {
		_, k := nodeIdleKernel(t, "2n2l4c2t", nil, tc.flags)
		k.rule = syncNew
		for c := range 8 {
			k.claimed[c] = true
		}
		if got := k.wakeSyncReason(3) != ""; got != tc.joins {
			t.Errorf("flags %#x: node 0 full, node 1 idle: the wakee joins the waker: %v, want %v", tc.flags, got, tc.joins)
		}
		if got := k.syncInNode(3, 9, ScxPickIdleInNode); got != tc.inNode {
			t.Errorf("flags %#x: IN_NODE, waker in node 0, prev in node 1: branch runs %v, want %v", tc.flags, got, tc.inNode)
		}
		if !k.syncInNode(3, 9, 0) || !k.syncInNode(3, 5, ScxPickIdleInNode) {
			t.Errorf("flags %#x: without IN_NODE, or with the waker in prev's node, the branch must run", tc.flags)
		}
	}
}
