package engine

// One balance at one sched domain level (sched_balance_rq, Linux 6.18
// kernel/sched/fair.c); linux_lb.go says when it runs.

// Group types, in group_classify's order: a higher one is busier.
const (
	groupHasSpare = iota
	groupFullyBusy
	groupSMTBalance
	groupOverloaded
)

// Migration types (enum migration_type).
const (
	migrateLoad = iota
	migrateUtil
	migrateTask
)

// lbStats is a sched group's sg_lb_stats, from the CPUs' present state.
type lbStats struct {
	first, size                 int
	load, util, runnable, cap   int64
	nrRunning, hNrRunning, idle int
	cores                       int
	kind                        int
	avgLoad                     int64
}

// fairRunnable is c's runnable fair tasks (cfs h_nr_runnable: the running
// one and the queued ones, delayed-dequeue ones left out) and their weight.
func fairRunnable(c *cpu) (n int, weight int64) {
	if t := c.cur; t != nil && t.class == classFair {
		n, weight = 1, t.fair.weight
	}
	for _, t := range c.rq {
		if t.class == classFair && !t.fair.delayed {
			n++
			weight += t.fair.weight
		}
	}
	return n, weight
}

// groupLBStats is update_sg_lb_stats for the group of size CPUs from first
// at level l, balancing for dst (idle or not).
func (s *Sim) groupLBStats(l lbLevel, first, size int, idle, local bool) lbStats {
	// sg->cores: the cores the group spans (groups are whole cores, or
	// one CPU of one).
	g := lbStats{first: first, size: size, cores: max(1, size/s.smtThreads())}
	for _, c := range s.cpus[first : first+size] {
		h, w := fairRunnable(c)
		capa := int64(s.topo.cpus[c.id].Capacity)
		g.load += w
		g.runnable += int64(h) * lbCapacity
		if c.cur != nil {
			g.util += capa
		}
		g.cap += capa
		g.hNrRunning += h
		g.nrRunning += len(c.rq) + len(c.hiq)
		if c.cur != nil {
			g.nrRunning++
		}
		if linuxIdle(c) {
			g.idle++
		}
	}
	switch {
	case s.groupOverloaded(l, &g):
		g.kind = groupOverloaded
	case !local && idle && size > 1 && s.groupIsSMT(l) && g.hNrRunning > 1:
		g.kind = groupSMTBalance // smt_balance: an SMT core running more than one task
	case s.groupHasCapacity(l, &g):
		g.kind = groupHasSpare
	default:
		g.kind = groupFullyBusy
	}
	if g.kind == groupOverloaded {
		g.avgLoad = g.load * lbCapacity / g.cap
	}
	return g
}

// groupIsSMT says whether level l's groups are SMT cores (the group's flags
// are its child domain's: SD_SHARE_CPUCAPACITY).
func (s *Sim) groupIsSMT(l lbLevel) bool { return l.group == s.smtThreads() && l.group > 1 }

// groupOverloaded is group_is_overloaded.
func (s *Sim) groupOverloaded(l lbLevel, g *lbStats) bool {
	if g.nrRunning <= g.size {
		return false
	}
	return g.cap*100 < g.util*l.imbalancePct || g.cap*l.imbalancePct < g.runnable*100
}

// groupHasCapacity is group_has_capacity.
func (s *Sim) groupHasCapacity(l lbLevel, g *lbStats) bool {
	if g.nrRunning < g.size {
		return true
	}
	if g.cap*l.imbalancePct < g.runnable*100 {
		return false
	}
	return g.cap*100 > g.util*l.imbalancePct
}

// pickBusiest is update_sd_pick_busiest: whether g replaces b (found says
// whether there is a b yet; smtGroups whether the groups are SMT cores).
func pickBusiest(g, b *lbStats, found, smtGroups bool) bool {
	if g.hNrRunning == 0 {
		return false
	}
	if !found {
		return true // init_sd_lb_stats: any group with a task beats none
	}
	if g.kind != b.kind {
		return g.kind > b.kind
	}
	switch g.kind {
	case groupOverloaded:
		return g.avgLoad > b.avgLoad
	case groupSMTBalance:
		if g.idle != 0 || b.idle != 0 {
			return spareBusier(g, b)
		}
		return false // as fully busy: an SMT busiest stays
	case groupFullyBusy:
		// avg_load is not computed for fully busy groups (0 on both):
		// the later group wins, unless the busiest is an SMT core.
		return !smtGroups
	}
	return spareBusier(g, b)
}

// spareBusier is update_sd_pick_busiest's has_spare case: fewer idle CPUs,
// then more running tasks.
func spareBusier(g, b *lbStats) bool {
	return g.idle < b.idle || g.idle == b.idle && g.nrRunning > b.nrRunning
}

// siblingImbalance is sibling_imbalance: the tasks to move, doubled, to
// even tasks per core between the groups.
func siblingImbalance(idle bool, b, l *lbStats) int {
	if !idle || b.nrRunning == 0 {
		return 0
	}
	if b.cores == l.cores {
		return max(b.nrRunning-l.nrRunning, 0)
	}
	imb := max(l.cores*b.nrRunning-b.cores*l.nrRunning, 0)
	imb = (2*imb + l.cores + b.cores) / (l.cores + b.cores)
	if imb <= 1 && l.nrRunning == 0 && b.nrRunning > 1 {
		imb = 2
	}
	return imb
}

// lbEnv is one balance's lb_env.
type lbEnv struct {
	lv          lbLevel
	runner, dst *cpu
	idle        bool
	migration   int
	imbalance   int64
}

// findBusiestGroup is sched_balance_find_src_group with calculate_imbalance:
// the busiest group of dst's domain at the level, or ok false when the
// domain is balanced.
func (s *Sim) findBusiestGroup(e *lbEnv) (busiest lbStats, ok bool) {
	l := e.lv
	spanFirst := e.dst.id - e.dst.id%l.span
	var local lbStats
	found := false
	var totalLoad, totalCap int64
	for first := spanFirst; first < spanFirst+l.span; first += l.group {
		isLocal := e.dst.id >= first && e.dst.id < first+l.group
		g := s.groupLBStats(l, first, l.group, e.idle, isLocal)
		totalLoad += g.load
		totalCap += g.cap
		if isLocal {
			local = g
			continue
		}
		if pickBusiest(&g, &busiest, found, s.groupIsSMT(l)) {
			busiest, found = g, true
		}
	}
	if !found {
		return busiest, false
	}
	if local.kind > busiest.kind {
		return busiest, false
	}
	sdsAvg := totalLoad * lbCapacity / max(totalCap, 1)
	if local.kind == groupOverloaded {
		if local.avgLoad >= busiest.avgLoad || local.avgLoad >= sdsAvg ||
			100*busiest.avgLoad <= l.imbalancePct*local.avgLoad {
			return busiest, false
		}
	}
	force := l.preferSibling && local.kind == groupHasSpare && siblingImbalance(e.idle, &busiest, &local) > 1
	if !force && busiest.kind != groupOverloaded {
		if !e.idle || busiest.size > 1 && local.idle <= busiest.idle+1 || busiest.hNrRunning == 1 {
			return busiest, false
		}
	}
	s.calculateImbalance(e, &busiest, &local, sdsAvg)
	return busiest, e.imbalance > 0
}

// calculateImbalance is calculate_imbalance.
func (s *Sim) calculateImbalance(e *lbEnv, b, l *lbStats, sdsAvg int64) {
	lv := e.lv
	switch {
	case b.kind == groupSMTBalance:
		e.migration, e.imbalance = migrateTask, 1 // reduce the tasks sharing a core
		return
	case l.kind == groupHasSpare:
		if b.kind > groupFullyBusy && !lv.shareLLC {
			e.migration, e.imbalance = migrateUtil, max(l.cap, l.util)-l.util
			if e.idle && e.imbalance == 0 {
				e.migration, e.imbalance = migrateTask, 1
			}
			return
		}
		e.migration = migrateTask
		if b.size == 1 || lv.preferSibling {
			e.imbalance = int64(siblingImbalance(e.idle, b, l))
		} else {
			e.imbalance = int64(max(l.idle-b.idle, 0))
		}
		if lv.numa && l.nrRunning+1 <= s.imbNUMANr() && e.imbalance <= numaImbalanceMin {
			e.imbalance = 0 // adjust_numa_imbalance
		}
		e.imbalance >>= 1
		return
	}
	if l.kind < groupOverloaded {
		l.avgLoad = l.load * lbCapacity / l.cap
		if l.avgLoad >= b.avgLoad || l.avgLoad >= sdsAvg {
			e.imbalance = 0
			return
		}
	}
	e.migration = migrateLoad
	e.imbalance = min((b.avgLoad-sdsAvg)*b.cap, (sdsAvg-l.avgLoad)*l.cap) / lbCapacity
}

// findBusiestQueue is sched_balance_find_src_rq in group g.
func (s *Sim) findBusiestQueue(e *lbEnv, g *lbStats) *cpu {
	var busiest *cpu
	var bestLoad, bestCap int64 = 0, 1
	bestNr := 0
	for _, c := range s.cpus[g.first : g.first+g.size] {
		nr, load := fairRunnable(c)
		if nr == 0 {
			continue
		}
		capa := int64(s.topo.cpus[c.id].Capacity)
		switch e.migration {
		case migrateLoad:
			if nr == 1 && load > e.imbalance {
				continue
			}
			if load*bestCap > bestLoad*capa {
				busiest, bestLoad, bestCap = c, load, capa
			}
		case migrateUtil:
			if nr <= 1 {
				continue
			}
			if c.cur != nil && capa > bestLoad { // cpu_util_cfs: a busy CPU's capacity
				busiest, bestLoad = c, capa
			}
		case migrateTask:
			if nr > bestNr {
				busiest, bestNr = c, nr
			}
		}
	}
	return busiest
}
