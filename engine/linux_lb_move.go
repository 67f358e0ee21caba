package engine

// Moving tasks for the periodic and NOHZ idle balancers (Linux 6.18
// kernel/sched/fair.c: sched_balance_rq's tail, detach_tasks,
// can_migrate_task, need_active_balance, active_load_balance_cpu_stop).

import "fmt"

// balanceRQ is sched_balance_rq for dst at level j, run by the CPU whose
// tick or kick it is (dst itself, or the idle load balancer for a tickless
// dst). It reports whether tasks moved, and stop when dst is not the CPU
// that balances its group at this level (should_we_balance), which ends
// the walk up the domains.
func (s *Sim) balanceRQ(runner, dst *cpu, j int, idle bool) (moved, stop bool) {
	l := s.lbLv[j]
	d := &s.lb[dst.id].dom[j]
	if !s.shouldWeBalance(dst, l) {
		lbBalanced(d, l)
		return false, true
	}
	e := lbEnv{lv: l, runner: runner, dst: dst, idle: idle}
	runner.debtNs += s.sc.Machine.Costs.NewidleBalanceNs
	g, ok := s.findBusiestGroup(&e)
	if !ok {
		lbBalanced(d, l)
		return false, false
	}
	src := s.findBusiestQueue(&e, &g)
	if src == nil {
		lbBalanced(d, l)
		return false, false
	}
	n := 0
	if nr := src.load(); nr > 1 {
		n = s.detachTasks(&e, src, d, min(lbMigrateMax, nr))
	}
	if n > 0 {
		d.failed = 0
		d.intervalMs = int64(l.span) // min_interval
		return true, false
	}
	d.failed++
	if e.migration == migrateTask && d.failed > l.cacheNiceTry+2 {
		// need_active_balance (imbalanced_active_balance): what could move
		// is running; src's stopper is asked to push it here.
		if t := src.cur; t != nil && !t.pinned && t.class == classFair && s.lb[src.id].pushTo < 0 {
			s.lb[src.id].pushTo = dst.id
			s.decide(DecPullRequest, runner.id, src.id, t.id, fmt.Sprintf("active balance at %s: balancing failed %d times and only a running task could move; the busiest CPU's stopper pushes it (active_load_balance_cpu_stop)",
				s.lbLevelName(l), d.failed), int64(src.load()))
			s.sendIPI(runner.id, src, IPIPull, t.id)
		}
	}
	d.intervalMs = int64(l.span)
	return false, false
}

// lbBalanced is sched_balance_rq's out_balanced: no failure, and the
// interval doubles up to max_interval, twice the domain's weight.
func lbBalanced(d *lbDomain, l lbLevel) {
	d.failed = 0
	if d.intervalMs < 2*int64(l.span) {
		d.intervalMs *= 2
	}
}

// shouldWeBalance is should_we_balance for dst at level l: the first idle
// CPU of dst's group balances it (one on a wholly idle core first, except
// in an SMT domain); with none idle, the group's first CPU.
func (s *Sim) shouldWeBalance(dst *cpu, l lbLevel) bool {
	first := dst.id - dst.id%l.group
	idleSMT := -1
	for _, c := range s.cpus[first : first+l.group] {
		if !linuxIdle(c) {
			continue
		}
		if !l.shareCapacity && s.smtThreads() > 1 && !s.coreIdle(c.id) {
			if idleSMT < 0 {
				idleSMT = c.id
			}
			continue
		}
		return c == dst
	}
	if idleSMT >= 0 {
		return idleSMT == dst.id
	}
	return first == dst.id
}

// detachTasks is detach_tasks and attach_tasks: queued fair tasks of src
// move to dst, from the runqueue's tail, until the imbalance is met; a
// task that ran within sysctl_sched_migration_cost stays (task_hot) unless
// balancing here already failed more than cache_nice_tries, or the level is
// an SMT core's.
func (s *Sim) detachTasks(e *lbEnv, src *cpu, d *lbDomain, loopMax int) int {
	moved, loop := 0, 0
	for i := len(src.rq) - 1; i >= 0 && e.imbalance > 0; i-- {
		if e.idle && src.load() <= 1 {
			break
		}
		if loop++; loop > loopMax {
			break
		}
		t := src.rq[i]
		if t.class != classFair || t.pinned || t.fair.delayed || throttledPair(t, src, e.dst) {
			continue
		}
		hot := !e.lv.shareCapacity && s.now-t.lastRanNs < lbMigrationNs*1000
		if hot && d.failed <= e.lv.cacheNiceTry {
			continue
		}
		switch e.migration {
		case migrateLoad:
			if t.fair.weight>>min(d.failed, 63) > e.imbalance {
				continue
			}
			e.imbalance -= t.fair.weight
		case migrateUtil:
			if lbCapacity>>min(d.failed, 63) > e.imbalance {
				continue
			}
			e.imbalance -= lbCapacity
		default:
			e.imbalance--
		}
		s.fairDetach(src, t)
		s.attachBalanced(t, src, e.dst, e.runner, fmt.Sprintf("load balance at %s (sched_balance_rq): moved from the busiest runqueue of the busiest group", s.lbLevelName(e.lv)))
		moved++
	}
	return moved
}

// attachBalanced is attach_task, run on CPU runner: t, detached from src,
// queued on dst; dst reschedules if t preempts there (resched_curr: an IPI
// unless dst is runner, whose interrupt exit reschedules), and an idle dst
// is woken.
func (s *Sim) attachBalanced(t *thread, src, dst, runner *cpu, reason string) {
	s.migrateCount(t, src.id, dst.id)
	s.decide(DecBalancePush, src.id, dst.id, t.id, reason, int64(src.load()))
	if dst != runner && dst.cur == nil {
		s.enqueueRemote(dst, t, runner.id, remoteWake)
		return
	}
	s.rqInsert(dst, t)
	if s.wakePreempt(dst, t) && dst != runner {
		s.reschedRemote(dst, runner.id, t, reason)
	}
}

// activePush is active_load_balance_cpu_stop on c, to CPU dst: the stopper
// preempts c's running task, and a queued fair task that may move (the
// runqueue's tail, the preempted task if it is the only one) goes to dst.
func (s *Sim) activePush(c, dst *cpu) {
	t := c.cur
	if t == nil || !c.irqPaused || t.class != classFair {
		return // it blocked, or a higher class runs: nothing to push
	}
	if _, w := fairRunnable(c); w == 0 {
		return
	}
	// The stopper takes the CPU: put_prev_task for the running task.
	s.chargeRuntime(c)
	c.irqPaused = false
	c.cur = nil
	c.hystCredit = 0
	t.lastRanNs = s.now
	t.requeuedAtNs = s.now
	s.putPrevRunnable(c, t)
	for i := len(c.rq) - 1; i >= 0; i-- {
		p := c.rq[i]
		if p.class == classFair && !p.pinned && !p.fair.delayed && !throttledPair(p, c, dst) {
			s.fairDetach(c, p)
			s.attachBalanced(p, c, dst, c, "active balance: the stopper pushed the task to the idle CPU that asked (active_load_balance_cpu_stop)")
			return
		}
	}
}

// lbLevelName names level l as sched domains are named.
func (s *Sim) lbLevelName(l lbLevel) string {
	switch {
	case l.shareCapacity:
		return "SMT"
	case l.shareLLC:
		return "MC"
	case l.numa:
		return "NUMA"
	}
	return "PKG"
}
