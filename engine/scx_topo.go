package engine

// sched_ext's built-in idle tracking on the machine's topology
// (kernel/sched/ext_idle.c of Linux 6.18; docs/mechanisms.md, The sched_ext
// core): the SMT idle mask, the idle search of pick_idle_cpu_in_node, and
// scx_select_cpu_dfl's steps in its order, the LLC and NUMA ones only where
// scx_idle_update_selcpu_topology enables them.
//
// The idle cpumask is ScxKernel.idleCPU's (a CPU in its idle loop with
// nothing queued, not claimed since). The SMT idle mask is derived from it:
// a core is in it when every one of its CPUs is in the idle mask. That is the
// set the kernel keeps by hand: update_builtin_idle sets a core's bits only
// when the CPU going idle finds all its siblings idle (cpumask_subset of the
// core in the idle mask) and clears them when any sibling leaves idle, and
// scx_idle_test_and_clear_cpu clears the whole core when one CPU of it is
// claimed, so the kernel's mask never holds a core with a CPU out of the
// idle mask, and never lacks one whose CPUs all are (each was set by the last
// of them going idle). Derived, it needs no state of its own to keep or
// checkpoint.
//
// Without SCX_OPS_BUILTIN_IDLE_PER_NODE the masks are the one global pair
// (idle_cpumask(NUMA_NO_NODE)); with it, a pair per node and searches that
// start in a node (scx_nodeidle.go).

// The SCX_PICK_IDLE_* flags (enum scx_pick_idle_cpu_flags).
const (
	// ScxPickIdleCore is SCX_PICK_IDLE_CORE: pick only a CPU whose whole
	// core is idle (a core in the SMT idle mask).
	ScxPickIdleCore int64 = 1 << 0
	// ScxPickIdleInNode is SCX_PICK_IDLE_IN_NODE: with per-node idle masks,
	// search the starting node only (scx_pick_idle_cpu); without them it
	// changes nothing, as there is no node to start from.
	ScxPickIdleInNode int64 = 1 << 1
)

// idleScope is the cpus_allowed of one idle search: CPUs lo..hi-1 (an LLC,
// a node, the whole machine: each is a run of CPU numbers, topology.go) that
// t may run on and, when mask is not nil, that mask holds (the cpus_allowed
// a policy passes to select_cpu_and or pick_idle_cpu).
type idleScope struct {
	t      *thread
	lo, hi int
	mask   []bool
}

func (sc *idleScope) has(c int) bool {
	return c >= sc.lo && c < sc.hi && (!sc.t.pinned || c == sc.t.cpu) && (sc.mask == nil || sc.mask[c])
}

// smtActive is sched_smt_active(): the machine's cores have more than one
// CPU.
func (k *ScxKernel) smtActive() bool { return k.s.topo.Shape().ThreadsPerCore > 1 }

// smtIdle reports whether c's core is in the SMT idle mask: every CPU of it
// (cpu_smt_mask) is in the idle mask.
func (k *ScxKernel) smtIdle(c int) bool {
	t := k.s.topo.Shape().ThreadsPerCore
	first := c - c%t
	for i := first; i < first+t; i++ {
		if !k.idleCPU(k.s.cpus[i]) {
			return false
		}
	}
	return true
}

// llcWeight is llc_weight(cpu): the CPUs of an LLC, 0 when the LLC is one
// CPU (its sched domain degenerates, so sd_llc is NULL).
func (k *ScxKernel) llcWeight() int {
	sh := k.s.topo.Shape()
	if w := sh.CoresPerLLC * sh.ThreadsPerCore; w > 1 {
		return w
	}
	return 0
}

// selTopo is scx_idle_update_selcpu_topology: the LLC step is on when an
// LLC holds some CPUs but not all (llc_weight below num_online_cpus); the
// NUMA step when there is more than one node and the nodes are not the LLCs
// (llc_numa_mismatch: llc_weight differs from numa_weight, a node's CPUs),
// and never with per-node idle masks, whose searches start in the node
// anyway (the function skips the NUMA check when ops->flags has
// SCX_OPS_BUILTIN_IDLE_PER_NODE).
func (k *ScxKernel) selTopo() (llc, numa bool) {
	sh := k.s.topo.Shape()
	n := len(k.s.cpus)
	w := k.llcWeight()
	llc = w > 0 && w < n
	numa = !k.perNode && sh.Nodes > 1 && w != n/sh.Nodes
	return llc, numa
}

// distribute is cpumask_any_and_distribute for the calling CPU from (-1:
// none): the first CPU after the one the caller's last search returned
// (distribute_cpu_mask_prev), wrapping, that is in scope and, with core,
// in the SMT idle mask, else in the idle mask; -1 when none is. A search
// that finds one moves the caller's cursor to it.
func (k *ScxKernel) distribute(sc *idleScope, from int, core bool) int {
	n := len(k.s.cpus)
	slot := from
	if slot < 0 {
		slot = n
	}
	start := k.distPrev[slot] + 1
	for i := range n {
		c := (start + i) % n
		if !sc.has(c) {
			continue
		}
		if core && !k.smtIdle(c) || !core && !k.idleCPU(k.s.cpus[c]) {
			continue
		}
		k.distPrev[slot] = c
		return c
	}
	return -1
}

// pickIdleIn is pick_idle_cpu_in_node on the global masks: with SMT, a CPU
// of a wholly idle core first (and nothing else with ScxPickIdleCore), then
// any idle CPU; the CPU found is claimed (scx_idle_test_and_clear_cpu, which
// takes its core out of the SMT idle mask). -1 when none is (-EBUSY).
func (k *ScxKernel) pickIdleIn(sc *idleScope, from int, flags int64) int {
	if k.smtActive() {
		if c := k.distribute(sc, from, true); c >= 0 {
			k.claimed[c] = true
			return c
		}
		if flags&ScxPickIdleCore != 0 {
			return -1
		}
	}
	c := k.distribute(sc, from, false)
	if c >= 0 {
		k.claimed[c] = true
	}
	return c
}

// pickIdle is scx_pick_idle_cpu(p->cpus_ptr, NUMA_NO_NODE, flags) called on
// CPU from.
func (k *ScxKernel) pickIdle(t *thread, from int, mask []bool, flags int64) int {
	return k.pickIdleIn(&idleScope{t: t, hi: len(k.s.cpus), mask: mask}, from, flags)
}

// The reasons scx_select_cpu_dfl's steps give, for the decision record.
const (
	dflPrevCore = "the previous CPU's core is wholly idle (claimed)"
	dflLLCCore  = "a wholly idle core in the previous CPU's LLC (claimed)"
	dflNodeCore = "a wholly idle core in the previous CPU's node (claimed)"
	dflAnyCore  = "a wholly idle core (claimed)"
	dflPrev     = "previous CPU is idle (claimed)"
	dflLLC      = "an idle CPU in the previous CPU's LLC (claimed)"
	dflNode     = "an idle CPU in the previous CPU's node (claimed)"
	dflAny      = "an idle CPU was found (claimed)"
)

// scxSelectCPUDfl is scx_select_cpu_dfl (ext_idle.c, 6.18) after its
// WAKE_SYNC branch (selectCPUDfl runs that by the scenario's rule), for t
// woken with prev its previous CPU, called on CPU from; mask is the
// cpus_allowed of select_cpu_and (nil: t's own), flags its SCX_PICK_IDLE_*.
// It returns the idle CPU it claimed and the step that found it, or -1.
//  1. With SMT (sched_smt_active): prev if its whole core is idle, then a
//     wholly idle core in prev's LLC, then in prev's node, then anywhere; with
//     ScxPickIdleCore, nothing else.
//  2. prev if it is idle.
//  3. An idle CPU in prev's LLC, then in prev's node, then anywhere.
//
// The LLC and node searches run only where selTopo enables them. With
// per-node idle masks the searches "anywhere" are scx_pick_idle_cpu from
// prev's node (prev's node first, then the others nearest first; only prev's
// with ScxPickIdleInNode), and the NUMA step is off (selTopo).
func (k *ScxKernel) scxSelectCPUDfl(t *thread, prev, from int, mask []bool, flags int64) (int, string) {
	n := len(k.s.cpus)
	all := idleScope{t: t, hi: n, mask: mask}
	prevOK := all.has(prev) // is_prev_allowed
	home := k.cpuNodeIfEnabled(prev)
	var llc, node *idleScope
	if onLLC, onNUMA := k.selTopo(); onLLC || onNUMA {
		at := k.s.topo.CPU(prev)
		sh := k.s.topo.Shape()
		if onNUMA {
			per := n / sh.Nodes
			node = &idleScope{t: t, lo: at.Node * per, hi: (at.Node + 1) * per, mask: mask}
		}
		if onLLC {
			per := k.llcWeight()
			llc = &idleScope{t: t, lo: at.LLC * per, hi: (at.LLC + 1) * per, mask: mask}
		}
	}
	if k.smtActive() {
		if prevOK && k.smtIdle(prev) {
			k.claimed[prev] = true
			return prev, dflPrevCore
		}
		if llc != nil {
			if c := k.pickIdleIn(llc, from, ScxPickIdleCore); c >= 0 {
				return c, dflLLCCore
			}
		}
		if node != nil {
			if c := k.pickIdleIn(node, from, ScxPickIdleCore); c >= 0 {
				return c, dflNodeCore
			}
		}
		if c, at := k.scxPickIdle(&all, home, from, flags|ScxPickIdleCore); c >= 0 {
			return c, pickReason(home, at, dflAnyCore, dflNodeCore, dflFarCore)
		}
		if flags&ScxPickIdleCore != 0 {
			return -1, dflNoIdle
		}
	}
	if prevOK && k.idleCPU(k.s.cpus[prev]) {
		k.claimed[prev] = true
		return prev, dflPrev
	}
	if llc != nil {
		if c := k.pickIdleIn(llc, from, 0); c >= 0 {
			return c, dflLLC
		}
	}
	if node != nil {
		if c := k.pickIdleIn(node, from, 0); c >= 0 {
			return c, dflNode
		}
	}
	if c, at := k.scxPickIdle(&all, home, from, flags); c >= 0 {
		return c, pickReason(home, at, dflAny, dflNode, dflFar)
	}
	return -1, dflNoIdle
}
