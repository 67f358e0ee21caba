package engine

// The fair class's periodic and NOHZ idle load balancing (docs/mechanisms.md,
// The Linux reference, Load balancing; kernel/sched/fair.c, Linux 6.18).
//
// Each CPU keeps, per sched domain (linux_topo.go's levels, the lowest
// first), a balance interval, when it last balanced there and how many
// balances there failed. A busy CPU's tick (sched_balance_trigger) runs
// sched_balance_domains for itself when its next_balance is due, then
// nohz_balancer_kick: idle CPUs have stopped their ticks, so one of them,
// the idle load balancer, is sent an IPI and balances on behalf of every
// tickless idle CPU (_nohz_idle_balance). A balance at one level
// (sched_balance_rq) classifies the domain's groups (group_classify), takes
// the busiest (update_sd_pick_busiest), decides whether and how much to move
// (sched_balance_find_src_group, calculate_imbalance), takes the busiest
// runqueue of that group (sched_balance_find_src_rq) and moves queued tasks
// from it (detach_tasks). When only running tasks could move and balancing
// has failed often enough, the busiest CPU's stopper pushes its running
// task (active balance, active_load_balance_cpu_stop).
//
// The figures the kernel takes from PELT's averages (a group's load,
// utilisation and runnable sums) are taken here as the values those
// averages reach for tasks that stay runnable: a task's weight, a busy
// CPU's full capacity, 1024 per runnable task. Left out: misfit tasks and
// asymmetric packing (they need a task's utilisation), NUMA balancing's
// locality preference, task affinity (group_imbalanced: pinned tasks are
// skipped), the stopper's own context switches, and SD_SERIALIZE.

// lbLevel is one sched domain of the balancer: groups of group CPUs inside
// spans of span CPUs, with sd_init's flags and tunables.
type lbLevel struct {
	span, group   int
	shareCapacity bool // SD_SHARE_CPUCAPACITY (SMT)
	shareLLC      bool // SD_SHARE_LLC (SMT and MC)
	numa          bool // SD_NUMA
	preferSibling bool // the child domain has SD_PREFER_SIBLING
	imbalancePct  int64
	cacheNiceTry  int
}

// lbDomain is one CPU's copy of a sched domain's balancing state.
type lbDomain struct {
	intervalMs int64 // balance_interval
	lastJiffy  int64 // last_balance
	failed     int   // nr_balance_failed
}

// cpuLB is a CPU's balancing state: rq->next_balance, its domains, and an
// active balance it asked for (the destination its stopper pushes to, or -1;
// rq->active_balance and push_cpu on the busiest CPU) or a NOHZ kick it was
// sent (nohz_flags).
type cpuLB struct {
	nextJiffy int64
	dom       []lbDomain
	pushTo    int
	kicked    bool
}

// Balancer constants (kernel/sched/fair.c, topology.c).
const (
	lbBusyFactor   = 16  // sd->busy_factor
	lbMigrateMax   = 32  // sysctl_sched_nr_migrate
	lbMigrationNs  = 500 // sysctl_sched_migration_cost, µs
	lbCapacity     = SchedCapacityScale
	lbNextIdleSecs = 60 // sched_balance_domains' first next_balance: 60*HZ
)

// lbLevels are the machine's sched domains for balancing, the lowest first
// (newidleSpans' levels), with sd_init's flags: SMT domains share capacity
// and the LLC (imbalance_pct 110, cache_nice_tries 0), MC shares the LLC
// (117, 1), PKG (117, 1), NUMA (117, 2, no SD_PREFER_SIBLING). A domain
// spanning CPUs of different capacities (SD_ASYM_CPUCAPACITY) takes
// SD_PREFER_SIBLING from its child.
func (s *Sim) lbLevels() []lbLevel {
	sh := s.topo.shape
	core := sh.ThreadsPerCore
	llc := core * sh.CoresPerLLC
	node := llc * sh.LLCsPerNode()
	var lv []lbLevel
	add := func(span, group int, l lbLevel) {
		if span <= group || (len(lv) > 0 && span <= lv[len(lv)-1].span) {
			return
		}
		l.span, l.group = span, group
		l.preferSibling = len(lv) > 0 && !lv[len(lv)-1].numa
		if len(lv) > 0 && s.asymSpan(span) {
			l.preferSibling = false
		}
		lv = append(lv, l)
	}
	add(core, 1, lbLevel{shareCapacity: true, shareLLC: true, imbalancePct: 110})
	add(llc, core, lbLevel{shareLLC: true, imbalancePct: 117, cacheNiceTry: 1})
	add(node, llc, lbLevel{imbalancePct: 117, cacheNiceTry: 1})
	add(len(s.cpus), node, lbLevel{numa: true, imbalancePct: 117, cacheNiceTry: 2})
	return lv
}

// asymSpan says whether some span of span CPUs holds CPUs of different
// capacities.
func (s *Sim) asymSpan(span int) bool {
	for first := 0; first < len(s.cpus); first += span {
		for _, c := range s.topo.cpus[first : first+span] {
			if c.Capacity != s.topo.cpus[first].Capacity {
				return true
			}
		}
	}
	return false
}

// initBalancer sets every CPU's domains up as sd_init does: the interval at
// the domain's weight in ms, last balanced at boot.
func (s *Sim) initBalancer() {
	if !s.fair {
		return
	}
	s.lbLv = s.lbLevels()
	s.lb = make([]cpuLB, len(s.cpus))
	for i := range s.lb {
		s.lb[i].pushTo = -1
		s.lb[i].dom = make([]lbDomain, len(s.lbLv))
		for j, l := range s.lbLv {
			s.lb[i].dom[j].intervalMs = int64(l.span)
		}
	}
}

// jiffies is the tick count.
func (s *Sim) jiffies() int64 { return s.now / s.tickNs }

// balanceInterval is get_sd_balance_interval in jiffies.
func (s *Sim) balanceInterval(d *lbDomain, busy bool) int64 {
	ms := d.intervalMs
	if busy {
		ms *= lbBusyFactor
	}
	j := (ms*1_000_000 + s.tickNs - 1) / s.tickNs // msecs_to_jiffies rounds up
	if busy {
		j--
	}
	maxJ := int64(s.sc.Sched.HZ) * int64(len(s.cpus)) / 10 // max_load_balance_interval
	return min(max(j, 1), max(maxJ, 1))
}

// balanceTick is sched_balance_trigger from busy CPU c's tick: its own
// balance when due, then nohz_balancer_kick.
func (s *Sim) balanceTick(c *cpu) {
	if s.lb == nil {
		return
	}
	if s.jiffies() >= s.lb[c.id].nextJiffy {
		s.balanceDomains(c, c, false)
	}
	s.nohzKick(c)
}

// balanceDomains is sched_balance_domains for c, idle or not
// (CPU_IDLE / CPU_NOT_IDLE), walking its domains from the lowest.
func (s *Sim) balanceDomains(runner, c *cpu, idle bool) {
	now := s.jiffies()
	next := now + lbNextIdleSecs*int64(s.sc.Sched.HZ)
	busy := !idle
	for j := range s.lbLv {
		d := &s.lb[c.id].dom[j]
		interval := s.balanceInterval(d, busy)
		if now >= d.lastJiffy+interval {
			moved, stop := s.balanceRQ(runner, c, j, idle)
			if moved {
				idle = linuxIdle(c)
				busy = !idle
			}
			d.lastJiffy = now
			interval = s.balanceInterval(d, busy)
			if stop {
				next = min(next, d.lastJiffy+interval)
				break
			}
		}
		next = min(next, d.lastJiffy+interval)
	}
	s.lb[c.id].nextJiffy = next
}

// nohzIdle says whether c is in nohz.idle_cpus_mask: idle with its tick
// stopped.
func (s *Sim) nohzIdle(c *cpu) bool { return c.cfs.tickAt < 0 && linuxIdle(c) }

// nohzKick is nohz_balancer_kick from busy CPU c's tick: when the idle
// balance is due and c runs two tasks or more, or (on a machine of equal
// capacities) more than one CPU of c's LLC is busy, the first tickless idle
// CPU is asked, by IPI, to balance for all of them (kick_ilb), unless it
// was already.
func (s *Sim) nohzKick(c *cpu) {
	if s.jiffies() < s.nohzNext {
		return
	}
	ilb := -1
	for _, o := range s.cpus {
		if o != c && s.nohzIdle(o) {
			ilb = o.id
			break
		}
	}
	if ilb < 0 {
		return
	}
	why := ""
	if n := len(c.rq) + 1; n >= 2 {
		why = "nohz_balancer_kick: this CPU runs two tasks or more; the first tickless idle CPU balances for the idle ones"
	} else if !s.asymSpan(len(s.cpus)) {
		first, size := s.llcOf(c.id)
		busy := 0
		for _, o := range s.cpus[first : first+size] {
			if !s.nohzIdle(o) {
				busy++
			}
		}
		if busy > 1 {
			why = "nohz_balancer_kick: more than one CPU of the LLC is busy (nr_busy_cpus); the first tickless idle CPU balances for the idle ones"
		}
	}
	if why == "" {
		return
	}
	s.nohzNext = s.jiffies() + 1
	if s.lb[ilb].kicked {
		return
	}
	s.lb[ilb].kicked = true
	s.decide(DecPullRequest, c.id, ilb, -1, why, int64(len(c.rq)+1))
	s.sendIPI(c.id, s.cpus[ilb], IPIPull, -1)
}

// servePullLinux runs in the handler of a pull IPI under the linux policy:
// a NOHZ kick makes c balance for the tickless idle CPUs
// (_nohz_idle_balance); a stopper request makes c push its running task
// (active_load_balance_cpu_stop).
func (s *Sim) servePullLinux(c *cpu) {
	if s.lb == nil {
		return
	}
	if to := s.lb[c.id].pushTo; to >= 0 {
		s.lb[c.id].pushTo = -1
		s.activePush(c, s.cpus[to])
	}
	if s.lb[c.id].kicked {
		s.lb[c.id].kicked = false
		s.nohzIdleBalance(c)
	}
}

// nohzIdleBalance is _nohz_idle_balance on ilb: every tickless idle CPU
// whose balance is due is balanced as CPU_IDLE, starting after ilb and
// ending with it; it stops if ilb itself got work.
func (s *Sim) nohzIdleBalance(ilb *cpu) {
	n := len(s.cpus)
	next := s.jiffies() + lbNextIdleSecs*int64(s.sc.Sched.HZ)
	for i := 1; i <= n; i++ {
		o := s.cpus[(ilb.id+i)%n]
		if !linuxIdle(o) || (o != ilb && !s.nohzIdle(o)) {
			continue
		}
		if !linuxIdle(ilb) {
			return // need_resched: the next kick picks the rest up
		}
		if s.jiffies() >= s.lb[o.id].nextJiffy {
			s.balanceDomains(ilb, o, true)
		}
		next = min(next, s.lb[o.id].nextJiffy)
	}
	s.nohzNext = next
}

// ckSaveBalancer writes the balancers' state (checkpoint_body.go); the
// levels are the topology's, built again on resume.
func (s *Sim) ckSaveBalancer(w *ckWriter) {
	if s.lb == nil {
		return
	}
	w.iv(s.nohzNext)
	for _, b := range s.lb {
		w.iv(b.nextJiffy)
		w.ref(b.pushTo)
		w.flags(b.kicked)
		for _, d := range b.dom {
			w.iv(d.intervalMs)
			w.iv(d.lastJiffy)
			w.n(d.failed)
		}
	}
}

// ckLoadBalancer reads what ckSaveBalancer wrote, each interval within its
// domain's bounds.
func (s *Sim) ckLoadBalancer(r *ckReader) {
	if s.lb == nil {
		return
	}
	r.in("load balancer", -1)
	s.nohzNext = r.iv()
	for i := range s.lb {
		b := &s.lb[i]
		b.nextJiffy = r.iv()
		b.pushTo = r.ref(len(s.cpus))
		b.kicked = r.flags(1)[0]
		for j := range b.dom {
			d := &b.dom[j]
			d.intervalMs = r.intIn(1, 2*int64(s.lbLv[j].span))
			d.lastJiffy = r.iv()
			d.failed = r.n(1<<31 - 1)
		}
	}
}
