package engine

// Task groups: the CPU controller's hierarchical fair scheduling as
// kernel/sched/fair.c runs it with CONFIG_FAIR_GROUP_SCHED (docs/mechanisms.md,
// Task groups). A group has a queue (a cfs_rq) on every CPU; on each CPU
// where it has runnable tasks its entity (a sched_entity of its own) waits on
// its parent's queue, weighted by the group's cpu.weight shared out among the
// CPUs by their loads (calc_group_shares). A pick goes down from the root,
// each level picking by EEVDF among its entities (pick_task_fair), so a
// group's tasks share what the group's entity gets. A group with a cpu.max
// spends a global pool of quota per period; a CPU's queue that runs out is
// throttled (throttle_cfs_rq), its entity off its parent, until the period
// timer gives it runtime again (distribute_cfs_runtime, unthrottle_cfs_rq).
//
// The weight of a group's entity follows each CPU queue's load.weight, the
// summed weights of its runnable entities, where the kernel takes the larger
// of that and the queue's PELT load average: for tasks that run without
// sleeping the two agree, for tasks that sleep the kernel's decays more
// slowly (a modelled difference, docs/mechanisms.md).

// groupLoad is a group queue's load.weight: its entities', curr included.
func groupLoad(c *cpu, q *fairRQ) int64 {
	load := q.sumW
	if curr := currAt(c, q); curr != nil {
		load += curr.weight
	}
	return load
}

// updateShares is update_cfs_group for q's entity: the group's shares
// times this CPU's part of the group's load (calc_group_shares), after this
// CPU's contribution to the group's load is brought up to date
// (update_tg_load_avg, at most once a millisecond and only for a change of
// more than 1/64). An empty queue keeps its entity's weight.
func (s *Sim) updateShares(c *cpu, q *fairRQ) {
	g := q.grq
	load := groupLoad(c, q)
	if load == 0 {
		return
	}
	tg := g.tg
	if d := load - g.contrib; (d > g.contrib/64 || -d > g.contrib/64) && s.now-g.contribAt >= 1_000_000 {
		tg.loadAvg += d
		g.contrib, g.contribAt = load, s.now
	}
	shares := tg.shares * load
	if w := tg.loadAvg - g.contrib + load; w > 0 {
		shares /= w
	}
	shares = min(max(shares, minShares), tg.shares)
	if shares != g.se.weight {
		s.reweightEntity(c, g.parent, g.se, shares)
	}
}

// reweightEntity is reweight_entity: e's lag and deadline, relative to its
// vruntime, scaled by old weight / new weight (vlag holds V - v, so w·vlag
// stays the lag), then it is placed again against q's V.
func (s *Sim) reweightEntity(c *cpu, q *fairRQ, e *fairEntity, w int64) {
	if !e.onRQ && e.owner == nil {
		e.vlag = e.vlag * e.weight / w
		e.weight = w
		return
	}
	curr := currAt(c, q)
	isCurr := curr == e
	if c.cur != nil && curr != nil {
		s.chargeRuntime(c)
	}
	s.saveLag(q, curr, e)
	e.deadline -= e.vruntime
	if !isCurr {
		q.sub(e)
		if !e.delayed {
			q.remove(e)
		}
	}
	e.vlag = e.vlag * e.weight / w
	e.deadline = e.deadline * e.weight / w
	e.weight = w
	e.place = placeMigrate
	s.placeEntity(q, currAt(c, q), e)
	if !isCurr {
		q.add(e)
		if !e.delayed {
			q.insert(e)
		}
	}
}

// groupsUp brings the entities of the groups above q (on c) up to date
// after a task joined or left q: each is the kernel's enqueue_entity,
// put_prev_entity or dequeue_entity for that level. An entity that was
// curr above a task that just left the CPU goes back in its parent's tree
// (put_prev_entity), leaves it when its queue is now empty (dequeue_entity;
// with sleep, DELAY_DEQUEUE applies to it too), or, out of cpu.max runtime,
// is throttled (check_cfs_rq_runtime); one off its parent whose queue has
// entities again goes on (enqueue_entity, after check_enqueue_throttle).
func (s *Sim) groupsUp(c *cpu, q *fairRQ, sleep bool) {
	for g := q.grq; g != nil; g = q.grq {
		se, p := g.se, g.parent
		running := se.isCurr && currAt(c, p) == se
		putPrev := se.isCurr && !running
		se.isCurr = running
		empty := q.waiting() == 0 && currAt(c, q) == nil
		switch {
		case g.throttled:
			return // its entity stays off until unthrottle_cfs_rq
		case empty:
			s.groupLeaves(c, g, putPrev, sleep)
		case !running && g.outOfRuntime() && !s.assignRuntime(g, 1):
			s.throttle(c, g, putPrev)
		case putPrev:
			p.add(se)
			p.insert(se)
			s.updateShares(c, q)
		case !se.onRQ || se.delayed:
			s.updateShares(c, q)
			se.slice, se.custom = minSlice(q, currAt(c, q)), true
			s.enqueueEntity(c, p, se)
			se.onRQ = true
			if runningBelow(c, q) {
				// Unthrottled with the running task below it: curr again
				// above that task (set_next_entity), not in the tree.
				s.fairSetNext(c, c.cur)
			}
		default:
			s.updateShares(c, q)
			return
		}
		q = p
	}
}

// groupLeaves takes g's entity off its parent, g's queue being empty: from
// curr (it was, until its task left), or from the tree.
func (s *Sim) groupLeaves(c *cpu, g *groupRQ, putPrev, sleep bool) {
	se, p := g.se, g.parent
	if !se.onRQ || se.delayed {
		return
	}
	if !putPrev {
		p.sub(se)
		p.remove(se)
	}
	if sleep {
		se.onRQ = s.dequeueSleep(p, se)
		return
	}
	p.add(se)
	s.saveLag(p, currAt(c, p), se)
	p.sub(se)
	se.deadline -= se.vruntime
	se.place = placeMigrate
	se.onRQ = false
}

// groupEmptied is groupsUp after a task left q other than by blocking as
// the running task (a migration, or the end of a delayed dequeue).
func (s *Sim) groupEmptied(c *cpu, q *fairRQ, sleep bool) { s.groupsUp(c, q, sleep) }

// groupEnqueued is groupsUp after a task was queued on q.
func (s *Sim) groupEnqueued(c *cpu, q *fairRQ) { s.groupsUp(c, q, false) }

// groupPutPrev is groupsUp after c's running task left q.
func (s *Sim) groupPutPrev(c *cpu, q *fairRQ, sleep bool) { s.groupsUp(c, q, sleep) }

// fairSetNext is set_next_entity for each group above t, just picked on c:
// their entities leave their parents' trees to be curr there, up to one
// off its queue (a throttled group's: set_next_entity's on_rq test).
func (s *Sim) fairSetNext(c *cpu, t *thread) {
	for q := taskRQ(c, t); q.grq != nil; q = q.grq.parent {
		se, p := q.grq.se, q.grq.parent
		switch {
		case se.isCurr:
			continue
		case !se.onRQ:
			return
		}
		p.sub(se)
		p.remove(se)
		se.isCurr = true
		setProtectSlice(p, se)
	}
}

// runningBelow says c's running fair task is at or below q.
func runningBelow(c *cpu, q *fairRQ) bool {
	t := fairCurr(c)
	if t == nil {
		return false
	}
	for p := taskRQ(c, t); ; p = p.grq.parent {
		if p == q {
			return true
		}
		if p.grq == nil {
			return false
		}
	}
}

// groupRan is account_cfs_rq_runtime for ran ns on q's group: cpu.stat's
// usage, and for a group with a cpu.max its runtime, topped up from the
// pool a slice at a time; none left asks for a reschedule, where the queue
// is throttled.
func (s *Sim) groupRan(c *cpu, q *fairRQ, ran int64) {
	g := q.grq
	g.tg.usageNs += ran
	if !g.runtimeEnabled() {
		return
	}
	if g.runtime -= ran; g.runtime > 0 {
		return
	}
	if !s.assignRuntime(g, cfsBandwidthSliceNs) {
		c.cfs.resched = true
	}
}

// assignRuntime is __assign_cfs_rq_runtime: g's queue takes up to target
// less what it has from the pool (starting the period timer). It reports
// whether the queue has runtime.
func (s *Sim) assignRuntime(g *groupRQ, target int64) bool {
	tg := g.tg
	s.startCFSPeriod(tg)
	if tg.pool > 0 {
		amount := min(tg.pool, target-g.runtime)
		tg.pool -= amount
		g.runtime += amount
		tg.idle = false
	}
	return g.runtime > 0
}

// throttle is throttle_cfs_rq: g's entity leaves its parent (as a sleep,
// without DELAY_DEQUEUE: DEQUEUE_SPECIAL) until its group's period timer
// gives it runtime again.
func (s *Sim) throttle(c *cpu, g *groupRQ, putPrev bool) {
	se, p := g.se, g.parent
	switch {
	case se.delayed:
		// Still on its parent from a sleep: that dequeue ends now.
		p.undelay(se)
		s.saveLag(p, currAt(c, p), se)
		p.sub(se)
		se.place = placeWake
	case se.onRQ:
		curr := currAt(c, p)
		if putPrev {
			curr = se // it was p's curr until now: V counts it
		}
		s.saveLag(p, curr, se)
		if !putPrev {
			p.sub(se)
			p.remove(se)
		}
		se.place = placeWake
	}
	se.onRQ = false
	g.throttled, g.throttledAt = true, s.now
	g.tg.throttled = append(g.tg.throttled, g)
	s.decide(DecPreempt, c.id, c.id, -1, "cpu.max: task group "+g.tg.path+" spent its quota for this period; its tasks here wait for the next (throttle_cfs_rq)", g.tg.quotaNs/1000)
}

// startCFSPeriod is start_cfs_bandwidth: the period timer runs on the
// grid of periods (hrtimer_forward_now from its last expiry).
func (s *Sim) startCFSPeriod(tg *taskGroup) {
	if tg.periodAt >= 0 {
		return
	}
	tg.periodAt = (s.now/tg.periodNs + 1) * tg.periodNs
	s.at(tg.periodAt, evCFSPeriod, 0, tg.index, 0)
}

// cfsPeriod is do_sched_cfs_period_timer: the pool is refilled to the
// quota; a period that throttled nothing and took no runtime stops the
// timer; throttled queues get runtime in the order they were throttled
// (distribute_cfs_runtime) and run again (unthrottle_cfs_rq), an idle CPU
// woken to run them.
func (s *Sim) cfsPeriod(tg *taskGroup) {
	if s.now != tg.periodAt {
		return
	}
	tg.nrPeriods++
	tg.pool = tg.quotaNs
	if tg.idle && len(tg.throttled) == 0 {
		tg.periodAt = -1
		return
	}
	tg.periodAt = s.now + tg.periodNs
	s.at(tg.periodAt, evCFSPeriod, 0, tg.index, 0)
	if len(tg.throttled) == 0 {
		tg.idle = true
		return
	}
	tg.nrThrottled++
	for len(tg.throttled) > 0 && tg.pool > 0 {
		g := tg.throttled[0]
		tg.throttled = tg.throttled[1:]
		amount := min(tg.pool, 1-g.runtime)
		tg.pool -= amount
		g.runtime += amount
		s.unthrottle(g)
	}
	tg.idle = false
}

// unthrottle is unthrottle_cfs_rq: g's entity goes back on its parent if
// its queue has tasks; an idle CPU is woken for them.
func (s *Sim) unthrottle(g *groupRQ) {
	c := s.cpus[g.cpu]
	g.throttled = false
	g.tg.throttledNs += s.now - g.throttledAt
	q := g.tg.rqs[g.cpu]
	if q.waiting() == 0 {
		return
	}
	s.groupsUp(c, q, false)
	if c.cur == nil && len(c.rq) > 0 {
		s.reschedRemote(c, -1, c.rq[0], "cpu.max: task group "+g.tg.path+" has runtime again this period (unthrottle_cfs_rq)")
	}
}

// fairTickGroups is entity_tick's update_cfs_group for each group above c's
// running task.
func (s *Sim) fairTickGroups(c *cpu) {
	t := fairCurr(c)
	if t == nil || t.fair.grp == nil {
		return
	}
	for q := taskRQ(c, t); q.grq != nil; q = q.grq.parent {
		s.updateShares(c, q)
	}
}

// fairBecomeCurr makes c's running task t, new to the fair class or to a
// task group, its queue's curr: enqueued as a wakeup would be, then picked
// (set_next_task_fair), so that its groups' entities are curr above it.
func (s *Sim) fairBecomeCurr(c *cpu, t *thread) {
	c.cur = nil
	s.fairEnqueue(c, t)
	s.rqRemove(c, t)
	s.fairSetNext(c, t)
	c.cur = t
	t.state = ThreadRunning
}

// taskRQ is the queue t's entity goes on at c: the root's, or its task
// group's there.
func taskRQ(c *cpu, t *thread) *fairRQ {
	if t.fair.grp == nil {
		return &c.cfs
	}
	return t.fair.grp.rqs[c.id]
}

// currAt is q's curr: the entity at q's level above c's running fair task
// (the task itself on its own queue), or nil when that task is not below q,
// or is below a group entity off its queue (throttled: the kernel's curr
// counts only while on_rq).
func currAt(c *cpu, q *fairRQ) *fairEntity {
	t := fairCurr(c)
	if t == nil {
		return nil
	}
	e, p := &t.fair, taskRQ(c, t)
	for p != q {
		if p.grq == nil || !p.grq.se.onRQ {
			return nil
		}
		e, p = p.grq.se, p.grq.parent
	}
	return e
}

// matchingLevel is find_matching_se: the queue where the entities above
// tasks a and b (both on c) meet, and each one's entity there.
func matchingLevel(c *cpu, a, b *thread) (*fairRQ, *fairEntity, *fairEntity) {
	qa, ea := taskRQ(c, a), &a.fair
	qb, eb := taskRQ(c, b), &b.fair
	if qa == qb {
		return qa, ea, eb
	}
	da, db := rqDepth(qa), rqDepth(qb)
	for ; da > db; da-- {
		ea, qa = qa.grq.se, qa.grq.parent
	}
	for ; db > da; db-- {
		eb, qb = qb.grq.se, qb.grq.parent
	}
	for qa != qb {
		ea, qa = qa.grq.se, qa.grq.parent
		eb, qb = qb.grq.se, qb.grq.parent
	}
	return qa, ea, eb
}

// rqDepth is how many groups q is below its CPU's root.
func rqDepth(q *fairRQ) int {
	d := 0
	for ; q.grq != nil; q = q.grq.parent {
		d++
	}
	return d
}
