package engine

// The fair class's wake and fork placement on the machine's topology
// (docs/mechanisms.md, The Linux reference, On a topology; kernel/sched/fair.c,
// Linux 6.18). The machine's sched domains are those build_sched_domains
// makes of it, degenerate ones dropped: SMT (a core's threads), MC (an LLC,
// its groups the cores), PKG (a node, its groups the LLCs) and NUMA (the
// machine, its groups the nodes). On the flat default (one LLC, no SMT)
// every rule here reduces to the flat reference's.

// topoLevel is one sched domain level for fork placement: its groups are
// the blocks of groupSize consecutive CPUs inside blocks of spanSize.
type topoLevel struct{ spanSize, groupSize int }

// reclaimDistance is RECLAIM_DISTANCE (node_reclaim_distance): a NUMA
// domain whose nodes are further apart loses SD_BALANCE_FORK and
// SD_WAKE_AFFINE (sd_init).
const reclaimDistance = 30

// numaImbalanceMin is NUMA_IMBALANCE_MIN: an imbalance of this many idle
// CPUs or fewer is allowed between nodes while the destination is lightly
// loaded (adjust_numa_imbalance).
const numaImbalanceMin = 2

// llcOf is the first CPU of cpu's LLC and the LLC's size (sd_llc's span):
// an LLC's CPUs are consecutive (engine/topology.go).
func (s *Sim) llcOf(cpu int) (first, n int) {
	sh := s.topo.shape
	n = sh.CoresPerLLC * sh.ThreadsPerCore
	return cpu - cpu%n, n
}

// wakeAffine says whether a domain with SD_WAKE_AFFINE spans the waker's
// CPU and the wakee's previous one (select_task_rq_fair's want_affine walk):
// every level does but a NUMA one whose nodes are further apart than
// RECLAIM_DISTANCE (sd_init).
func (s *Sim) wakeAffine(from, prev int) bool {
	return s.topo.cpus[from].Node == s.topo.cpus[prev].Node || s.maxNodeDistance() <= reclaimDistance
}

// sameLLC is cpus_share_cache.
func (s *Sim) sameLLC(a, b int) bool { return s.topo.cpus[a].LLC == s.topo.cpus[b].LLC }

// smtThreads is the threads per core; more than one is sched_smt_active.
func (s *Sim) smtThreads() int { return s.topo.shape.ThreadsPerCore }

// coreIdle says whether every thread of cpu's core is idle, cpu itself
// counted idle (it is the one going idle).
func (s *Sim) coreIdle(cpu int) bool {
	n := s.smtThreads()
	for sib := cpu - cpu%n; sib < cpu-cpu%n+n; sib++ {
		if sib != cpu && !linuxIdle(s.cpus[sib]) {
			return false
		}
	}
	return true
}

// updateIdleCore is __update_idle_core for c, about to run the idle task:
// when its whole core is idle, its LLC has an idle core again
// (set_idle_cores: sd_llc_shared->has_idle_cores).
func (s *Sim) updateIdleCore(c *cpu) {
	if s.smtThreads() > 1 && s.coreIdle(c.id) {
		s.llcIdleCores[s.topo.cpus[c.id].LLC] = true
	}
}

// selectIdleSibling is select_idle_sibling for t, woken with the
// wake-affine target: the target if idle; the previous CPU if it shares the
// target's LLC and is idle; with SMT and no idle core in the LLC, an idle
// sibling of the previous CPU (select_idle_smt); then the LLC's scan
// (select_idle_cpu). It returns -1 when nothing idle was found.
//
// Left out, with the flat reference: recent_used_cpu, the SIS_UTIL scan
// limit (nr_idle_scan comes from the LLC's PELT utilisation, which the
// engine does not keep), and select_idle_capacity on asymmetric machines
// (it needs the task's utilisation too).
func (s *Sim) selectIdleSibling(prev, target int) (int, string) {
	if linuxIdle(s.cpus[target]) {
		return target, "select_idle_sibling: the wake-affine target is idle"
	}
	if prev != target && s.sameLLC(prev, target) && linuxIdle(s.cpus[prev]) {
		return prev, "select_idle_sibling: the previous CPU is idle"
	}
	hasIdleCore := false
	if s.smtThreads() > 1 {
		hasIdleCore = s.llcIdleCores[s.topo.cpus[target].LLC]
		if !hasIdleCore && s.sameLLC(prev, target) {
			if i := s.selectIdleSMT(prev); i >= 0 {
				return i, "select_idle_smt: no idle core in the LLC; an idle SMT sibling of the previous CPU"
			}
		}
	}
	if i := s.selectIdleCPU(hasIdleCore, target); i >= 0 {
		if hasIdleCore && s.coreIdle(i) {
			return i, "select_idle_core: a whole idle core in the LLC"
		}
		return i, "select_idle_sibling: an idle CPU in the LLC"
	}
	return -1, ""
}

// selectIdleSMT is select_idle_smt: an idle sibling of cpu, in CPU order.
func (s *Sim) selectIdleSMT(cpu int) int {
	n := s.smtThreads()
	for sib := cpu - cpu%n; sib < cpu-cpu%n+n; sib++ {
		if sib != cpu && linuxIdle(s.cpus[sib]) {
			return sib
		}
	}
	return -1
}

// selectIdleCPU is select_idle_cpu over target's LLC, from the CPU after
// target round to target (for_each_cpu_wrap): with an idle core hinted,
// the first whole idle core (select_idle_core; a busy core's threads are
// skipped, and its first idle thread kept in case no core is idle, after
// which the hint is cleared); without, the first idle CPU.
func (s *Sim) selectIdleCPU(hasIdleCore bool, target int) int {
	first, n := s.llcOf(target)
	threads := s.smtThreads()
	idleCPU := -1
	doneCore := -1 // cores are met in order, so the last one checked is enough
	for i := 1; i <= n; i++ {
		cpu := first + (target-first+i)%n
		if !hasIdleCore {
			if linuxIdle(s.cpus[cpu]) {
				return cpu
			}
			continue
		}
		core := cpu / threads
		if core == doneCore {
			continue
		}
		if s.selectIdleCore(cpu, &idleCPU) {
			return cpu
		}
		doneCore = core
	}
	if hasIdleCore {
		s.llcIdleCores[s.topo.cpus[target].LLC] = false
	}
	return idleCPU
}

// selectIdleCore is select_idle_core for the core of cpu: true when all
// its threads are idle; otherwise idleCPU keeps the first idle thread met,
// if none was kept before.
func (s *Sim) selectIdleCore(cpu int, idleCPU *int) bool {
	n := s.smtThreads()
	idle := true
	for sib := cpu - cpu%n; sib < cpu-cpu%n+n; sib++ {
		if !linuxIdle(s.cpus[sib]) {
			idle = false
			if *idleCPU == -1 {
				continue
			}
			break
		}
		if *idleCPU == -1 {
			*idleCPU = sib
		}
	}
	return idle
}

// forkLevels are the sched domains fork placement walks, the highest first:
// NUMA (when there are nodes, and they are near enough to keep
// SD_BALANCE_FORK), PKG (LLCs of a node), MC (cores of an LLC), SMT (a
// core's threads), each only when it has more than one group.
func (s *Sim) forkLevels() []topoLevel {
	sh := s.topo.shape
	core := sh.ThreadsPerCore
	llc := sh.CoresPerLLC * core
	node := llc * sh.LLCsPerNode()
	var lv []topoLevel
	if sh.Nodes > 1 && s.maxNodeDistance() <= reclaimDistance {
		lv = append(lv, topoLevel{len(s.cpus), node})
	}
	if node > llc {
		lv = append(lv, topoLevel{node, llc})
	}
	if llc > core {
		lv = append(lv, topoLevel{llc, core})
	}
	if core > 1 {
		lv = append(lv, topoLevel{core, 1})
	}
	return lv
}

func (s *Sim) maxNodeDistance() int {
	m := 0
	for _, d := range s.topo.dist {
		m = max(m, d)
	}
	return m
}

// groupStats are a sched group's figures for find_idlest_group (group type
// by running tasks against CPUs, as the engine keeps no utilisation).
type groupStats struct {
	first, idle, running int
	kind                 int // group_has_spare 0, group_fully_busy 1, group_overloaded 2
}

func (s *Sim) groupStatsOf(first, size int) groupStats {
	g := groupStats{first: first}
	for _, c := range s.cpus[first : first+size] {
		if linuxIdle(c) {
			g.idle++
		}
		g.running += c.load() + len(c.incoming)
	}
	switch {
	case g.running < size:
		g.kind = 0
	case g.running == size:
		g.kind = 1
	default:
		g.kind = 2
	}
	return g
}

// findIdlestGroup is sched_balance_find_dst_group (find_idlest_group) at
// level lv for a task forked on cpu: the least busy group other than cpu's
// (a lower group type; among groups with spare capacity the most idle CPUs,
// among busy ones the fewest running tasks; the first met on a tie, groups
// met from cpu's onward), or -1 to stay in cpu's group: when that group is
// as idle, or, across nodes, while the destination stays under the NUMA
// imbalance allowance (adjust_numa_imbalance with the domain's
// imb_numa_nr).
func (s *Sim) findIdlestGroup(lv topoLevel, cpu int, numa bool) int {
	spanFirst := cpu - cpu%lv.spanSize
	groups := lv.spanSize / lv.groupSize
	localFirst := cpu - cpu%lv.groupSize
	local := s.groupStatsOf(localFirst, lv.groupSize)
	var idlest groupStats
	found := false
	for i := 1; i < groups; i++ {
		first := spanFirst + (localFirst-spanFirst+i*lv.groupSize)%lv.spanSize
		g := s.groupStatsOf(first, lv.groupSize)
		switch {
		case !found:
		case g.kind != idlest.kind:
			if g.kind > idlest.kind {
				continue
			}
		case g.kind == 0:
			if g.idle <= idlest.idle {
				continue
			}
		default:
			if g.running >= idlest.running {
				continue
			}
		}
		idlest, found = g, true
	}
	switch {
	case !found || local.kind < idlest.kind:
		return -1
	case local.kind > idlest.kind:
		return idlest.first
	case local.kind != 0:
		if local.running <= idlest.running {
			return -1
		}
		return idlest.first
	}
	if numa {
		imb := abs(local.idle - idlest.idle)
		if local.running+1 <= s.imbNUMANr() && imb <= numaImbalanceMin {
			return -1 // adjust_numa_imbalance: a small imbalance is allowed
		}
	}
	if local.idle >= idlest.idle {
		return -1
	}
	return idlest.first
}

// imbNUMANr is the NUMA domain's imb_numa_nr (build_sched_domains): with one
// LLC per node an eighth of the node's CPUs, else the LLCs per node; at
// least 1.
func (s *Sim) imbNUMANr() int {
	sh := s.topo.shape
	if sh.LLCsPerNode() == 1 {
		return max(1, len(s.cpus)/sh.Nodes>>3)
	}
	return max(1, sh.LLCsPerNode())
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// findIdlestGroupCPU is sched_balance_find_dst_group_cpu in the group of
// size CPUs from first: an idle CPU (the first from cpu's place in the
// group onward), else the one with the fewest running tasks (cpu's own on a
// tie). The kernel prefers the idle CPU that idled last; the engine keeps
// the flat reference's order.
func (s *Sim) findIdlestGroupCPU(first, size, cpu int) int {
	start := 0
	if cpu >= first && cpu < first+size {
		start = cpu - first
	}
	for i := range size {
		if c := s.cpus[first+(start+i)%size]; linuxIdle(c) {
			return c.id
		}
	}
	best := s.cpus[first+start]
	for i := 1; i < size; i++ {
		if c := s.cpus[first+(start+i)%size]; c.load()+len(c.incoming) < best.load()+len(best.incoming) {
			best = c
		}
	}
	return best.id
}

// newidleSpans are the CPU counts of the sched domains newidle balancing
// walks, the lowest first: SMT (a core), MC (an LLC), PKG (a node), NUMA
// (the machine), each only when it spans more CPUs than the one below. The
// flat machine has one, the machine.
func (s *Sim) newidleSpans() []int {
	sh := s.topo.shape
	var spans []int
	for _, n := range [...]int{sh.ThreadsPerCore, sh.ThreadsPerCore * sh.CoresPerLLC,
		sh.ThreadsPerCore * sh.CoresPerLLC * sh.LLCsPerNode(), len(s.cpus)} {
		if n > 1 && (len(spans) == 0 || n > spans[len(spans)-1]) {
			spans = append(spans, n)
		}
	}
	return spans
}
