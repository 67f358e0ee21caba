package engine

import "fmt"

// Per-node idle masks: sched_ext's built-in idle tracking under
// SCX_OPS_BUILTIN_IDLE_PER_NODE (kernel/sched/ext_idle.c of Linux 6.18;
// docs/mechanisms.md, The sched_ext core).
//
// The masks. With the flag the kernel keeps an idle cpumask and an SMT idle
// mask per node (scx_idle_node_masks, idle_cpumask(node)) and leaves the
// global pair alone: update_builtin_idle (from __scx_update_idle) and
// scx_idle_test_and_clear_cpu set and clear bits in the masks of the CPU's
// own node (scx_cpu_node_if_enabled). A CPU is in one node and a core never
// spans two (topology.go numbers them in runs), so node n's masks hold what
// the global pair would hold, restricted to n's CPUs. The core derives them
// so, from the idle mask as scx_topo.go derives the SMT idle mask: no state
// of their own, nothing to checkpoint, and a resumed run has them as they
// were.
//
// The searches. scx_pick_idle_cpu(cpus_allowed, node, flags) searches node
// first (pick_idle_cpu_in_node on node's masks) and then, unless
// SCX_PICK_IDLE_IN_NODE, the other nodes, nearest first
// (pick_idle_cpu_from_online_nodes, for_each_node_numadist). scx_select_cpu_dfl
// starts it at prev's node, and its NUMA step is off (selTopo).
//
// The helpers. The _node kfuncs need the flag (validate_node); the global
// ones refuse it (scx_bpf_get_idle_cpumask, scx_bpf_get_idle_smtmask,
// scx_bpf_pick_idle_cpu): each is an error that ejects the policy, with the
// kernel's words.

// scxOpsModelled are the ops flags the core models; start refuses others.
const scxOpsModelled = ScxOpsKeepBuiltinIdle | ScxOpsEnqLast | ScxOpsBuiltinIdlePerNode

// validateFlags is the ops flags' part of validate_ops (ext.c): the reason
// the policy may not load, or "". Per-node idle masks need the built-in idle
// tracking (a policy with update_idle keeps it only with
// OPS_KEEP_BUILTIN_IDLE).
func (k *ScxKernel) validateFlags() string {
	if bad := k.flags &^ scxOpsModelled; bad != 0 {
		return fmt.Sprintf("ops flags %#x: only OPS_KEEP_BUILTIN_IDLE, OPS_ENQ_LAST and OPS_BUILTIN_IDLE_PER_NODE are modelled", bad)
	}
	if k.perNode && !k.builtinIdle {
		return "flags: SCX_OPS_BUILTIN_IDLE_PER_NODE requires CPU idle selection enabled (validate_ops): the policy defines update_idle without OPS_KEEP_BUILTIN_IDLE"
	}
	return ""
}

// cpuNodeIfEnabled is scx_cpu_node_if_enabled: cpu's node with per-node
// idle masks, -1 (NUMA_NO_NODE, the global masks) without.
func (k *ScxKernel) cpuNodeIfEnabled(cpu int) int {
	if !k.perNode {
		return -1
	}
	return k.s.topo.CPU(cpu).Node
}

// nodeSpan is node's CPUs, lo..hi-1 (cpumask_of_node: a run of CPU numbers).
func (k *ScxKernel) nodeSpan(node int) (lo, hi int) {
	per := len(k.s.cpus) / k.s.topo.Shape().Nodes
	return node * per, (node + 1) * per
}

// inNode is sc restricted to node's CPUs: a search of node's idle masks
// (idle_cpumask(node)) with sc's cpus_allowed.
func (k *ScxKernel) inNode(sc *idleScope, node int) idleScope {
	lo, hi := k.nodeSpan(node)
	in := *sc
	in.lo, in.hi = max(sc.lo, lo), min(sc.hi, hi)
	return in
}

// nextNode is one step of for_each_node_numadist from start: the node
// nearest start after node last (-1 to begin) in the order of distance, then
// node number (nearest_node_nodemask takes the lowest of equal distances);
// -1 when none is left. start itself is not visited
// (pick_idle_cpu_from_online_nodes clears it first).
func (k *ScxKernel) nextNode(start, last int) int {
	tt := k.s.topo
	lastDist := -1
	if last >= 0 {
		lastDist = tt.Distance(start, last)
	}
	best, bestDist := -1, 0
	for n := range tt.Shape().Nodes {
		d := tt.Distance(start, n)
		if n == start || d < lastDist || d == lastDist && n <= last {
			continue
		}
		if best < 0 || d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// scxPickIdle is scx_pick_idle_cpu(cpus_allowed, node, flags) called on CPU
// from: with node -1, the global search (pick_idle_cpu_in_node on the global
// masks); else node's CPUs first, then, unless ScxPickIdleInNode, each other
// node nearest first (pick_idle_cpu_from_online_nodes). It returns the CPU
// claimed, or -1 (-EBUSY), and whether it came from node (or the global
// search).
func (k *ScxKernel) scxPickIdle(sc *idleScope, node, from int, flags int64) (int, bool) {
	if node < 0 {
		return k.pickIdleIn(sc, from, flags), true
	}
	in := k.inNode(sc, node)
	if c := k.pickIdleIn(&in, from, flags); c >= 0 || flags&ScxPickIdleInNode != 0 {
		return c, true
	}
	for n := k.nextNode(node, -1); n >= 0; n = k.nextNode(node, n) {
		in = k.inNode(sc, n)
		if c := k.pickIdleIn(&in, from, flags); c >= 0 {
			return c, false
		}
	}
	return -1, false
}

// The reasons scx_select_cpu_dfl's last steps give with per-node idle masks
// when prev's node had nothing (dflNodeCore and dflNode when it had).
const (
	dflFarCore = "a wholly idle core in the nearest other node with one (claimed)"
	dflFar     = "an idle CPU in the nearest other node with one (claimed)"
)

// pickReason is the reason of a search scxPickIdle answered: global without
// per-node idle masks, else from the start node or from another.
func pickReason(node int, home bool, global, near, far string) string {
	switch {
	case node < 0:
		return global
	case home:
		return near
	}
	return far
}

// wakerNodeIdle is the WAKE_SYNC branch's !cpumask_empty(idle_cpumask(
// waker_node)->cpu) (scx_select_cpu_dfl): any idle CPU on the machine, or,
// with per-node idle masks, in the waker's node, whose mask is then the one
// kept.
func (k *ScxKernel) wakerNodeIdle(from int) bool {
	if !k.perNode {
		return k.anyIdle()
	}
	lo, hi := k.nodeSpan(k.s.topo.CPU(from).Node)
	for c := lo; c < hi; c++ {
		if k.idleCPU(k.s.cpus[c]) {
			return true
		}
	}
	return false
}

// syncInNode is the WAKE_SYNC branch's test of SCX_PICK_IDLE_IN_NODE in
// scx_select_cpu_dfl: with the flag the wakee joins the waker only when the
// waker's node is prev's (waker_node == node). Without per-node idle masks
// both are NUMA_NO_NODE and the flag changes nothing.
func (k *ScxKernel) syncInNode(from, prev int, flags int64) bool {
	return flags&ScxPickIdleInNode == 0 || k.cpuNodeIfEnabled(from) == k.cpuNodeIfEnabled(prev)
}

// checkGlobalIdle refuses a helper of the global idle masks under per-node
// idle masks, as the kernel does with msg (scx_error, which ejects).
func (k *ScxKernel) checkGlobalIdle(what, msg string) error {
	if k.perNode {
		return fmt.Errorf("%s: %s (use the _node helpers with OPS_BUILTIN_IDLE_PER_NODE)", what, msg)
	}
	return nil
}

// The kernel's messages for a global idle helper under per-node idle masks:
// scx_bpf_get_idle_cpumask and scx_bpf_get_idle_smtmask say the first,
// scx_bpf_pick_idle_cpu (and scx_bpf_pick_any_cpu) the second.
const (
	perNodeMaskMsg = "SCX_OPS_BUILTIN_IDLE_PER_NODE enabled"
	perNodePickMsg = "per-node idle tracking is enabled"
)

// validateNode is validate_node: the node helpers need per-node idle masks;
// node -1 (NUMA_NO_NODE) is no error but finds nothing (-ENOENT: an empty
// mask, CPU -1); a node out of range is.
func (k *ScxKernel) validateNode(node int, what string) (ok bool, err error) {
	if !k.perNode {
		return false, fmt.Errorf("%s: per-node idle tracking is disabled (set OPS_BUILTIN_IDLE_PER_NODE in the policy's flags)", what)
	}
	if node == -1 {
		return false, nil
	}
	if n := k.s.topo.Shape().Nodes; node < 0 || node >= n {
		return false, fmt.Errorf("%s: invalid node %d (the machine's are 0..%d)", what, node, n-1)
	}
	return true, nil
}

// IdleCPUsNode is scx_bpf_get_idle_cpumask_node: node's idle CPUs, in order,
// claiming none; none for node -1.
func (k *ScxKernel) IdleCPUsNode(node int) ([]int, error) {
	ok, err := k.validateNode(node, "get_idle_cpumask_node")
	if !ok {
		return nil, err
	}
	var out []int
	lo, hi := k.nodeSpan(node)
	for c := lo; c < hi; c++ {
		if k.idleCPU(k.s.cpus[c]) {
			out = append(out, c)
		}
	}
	return out, nil
}

// IdleSMTCPUsNode is scx_bpf_get_idle_smtmask_node: the CPUs of node's
// wholly idle cores; without SMT, node's idle CPUs (as the kernel returns).
func (k *ScxKernel) IdleSMTCPUsNode(node int) ([]int, error) {
	ok, err := k.validateNode(node, "get_idle_smtmask_node")
	if !ok {
		return nil, err
	}
	if !k.smtActive() {
		return k.IdleCPUsNode(node)
	}
	var out []int
	lo, hi := k.nodeSpan(node)
	for c := lo; c < hi; c++ {
		if k.smtIdle(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// PickIdleCPUNode is scx_bpf_pick_idle_cpu_node with cpus_allowed the CPUs
// of cpus p may run on (nil: all of p's): scx_pick_idle_cpu from node, the
// CPU claimed, or -1 when none is (-EBUSY; for node -1, -ENOENT).
func (k *ScxKernel) PickIdleCPUNode(p ScxTask, cpus []int, node int, flags int64) (int, error) {
	sc, ok, err := k.nodeSearch(p, cpus, node, flags, "pick_idle_cpu_node")
	if !ok {
		return -1, err
	}
	c, _ := k.scxPickIdle(&sc, node, k.thisCPU, flags)
	return c, nil
}

// PickAnyCPUNode is scx_bpf_pick_any_cpu_node: an idle CPU as
// PickIdleCPUNode finds it (claimed), else any CPU of cpus p may run on, in
// node only with ScxPickIdleInNode, the first after the calling CPU's
// cursor (cpumask_any_distribute, cpumask_any_and_distribute with
// cpumask_of_node), not claimed; -1 when there is none.
func (k *ScxKernel) PickAnyCPUNode(p ScxTask, cpus []int, node int, flags int64) (int, error) {
	sc, ok, err := k.nodeSearch(p, cpus, node, flags, "pick_any_cpu_node")
	if !ok {
		return -1, err
	}
	if c, _ := k.scxPickIdle(&sc, node, k.thisCPU, flags); c >= 0 {
		return c, nil
	}
	if flags&ScxPickIdleInNode != 0 {
		sc = k.inNode(&sc, node)
	}
	return k.distributeAny(&sc, k.thisCPU), nil
}

// nodeSearch checks a node helper's arguments and returns its cpus_allowed;
// ok is false when the helper returns -1 at once (err nil for node -1).
func (k *ScxKernel) nodeSearch(p ScxTask, cpus []int, node int, flags int64, what string) (idleScope, bool, error) {
	ok, err := k.validateNode(node, what)
	if err == nil && ok {
		err = k.checkPickFlags(flags, what)
	}
	var mask []bool
	if err == nil && ok {
		mask, err = k.cpusMask(cpus, what)
	}
	return idleScope{t: p.t, hi: len(k.s.cpus), mask: mask}, ok && err == nil, err
}

// distributeAny is cpumask_any_distribute for the calling CPU from: the
// first CPU in scope after the caller's cursor, wrapping, idle or not; the
// cursor moves to it (the same distribute_cpu_mask_prev as distribute's).
// -1 when the scope is empty.
func (k *ScxKernel) distributeAny(sc *idleScope, from int) int {
	n := len(k.s.cpus)
	slot := from
	if slot < 0 {
		slot = n
	}
	for i := range n {
		if c := (k.distPrev[slot] + 1 + i) % n; sc.has(c) {
			k.distPrev[slot] = c
			return c
		}
	}
	return -1
}
