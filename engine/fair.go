package engine

import "schedplay/rtapp"

// The fair class as kernel/sched/fair.c runs it in Linux 6.12-6.18: EEVDF
// (docs/mechanisms.md, The Linux reference). Every name below is the kernel
// function whose rule it follows.
//
// A task's sched_entity has a weight (sched_prio_to_weight by nice), a vruntime
// that advances by its run time scaled by NICE_0_LOAD/weight (calc_delta_fair),
// a slice (sysctl_sched_base_slice, or a custom one from sched_attr) and a
// virtual deadline one weighted slice past the vruntime at which it got it
// (update_deadline). A CPU's cfs_rq keeps the weighted sum of its entities'
// vruntimes against a reference (zero_vruntime), so that avg_vruntime, the
// queue's virtual time V, and entity_eligible (v <= V, a lag of 0 or more) cost
// no pass over the queue. pick_eevdf runs the eligible entity with the earliest
// deadline; the queue is kept in deadline order, as the kernel's tree is, and
// the pick walks it to the first eligible entity (the kernel prunes the same
// walk with its augmented min_vruntime; the result is the same).

// nice0Load is NICE_0_LOAD (scale_load_down'd): the weight of nice 0.
const nice0Load = 1024

// niceWeight is sched_prio_to_weight[nice+20] (kernel/sched/core.c,
// niceToWeight): each nice step is about 10% of CPU between two tasks, a
// factor of 1.25. A nice outside -20..19 is clamped.
func niceWeight(nice int) int64 { return niceToWeight()[min(max(nice, -20), 19)+20] }

// weightIdlePrio is WEIGHT_IDLEPRIO, a SCHED_IDLE task's weight.
const weightIdlePrio = 3

// WeightIdlePrio is a SCHED_IDLE task's weight (WEIGHT_IDLEPRIO).
const WeightIdlePrio = weightIdlePrio

// How an entity is placed by its next enqueue (place_entity's callers).
const (
	placeNone    uint8 = iota // put_prev_entity: back in the tree as it was
	placeWake                 // a wakeup: PLACE_LAG from the lag saved at dequeue
	placeInitial              // a new task (ENQUEUE_INITIAL): PLACE_DEADLINE_INITIAL
	placeMigrate              // a migration: PLACE_LAG and PLACE_REL_DEADLINE
)

// fairEntity is a task's sched_entity.
type fairEntity struct {
	weight   int64
	vruntime int64
	deadline int64 // relative to vruntime while place == placeMigrate
	slice    int64
	vlag     int64 // the lag saved at dequeue (update_entity_lag)
	vprot    int64 // set_protect_slice: RUN_TO_PARITY keeps it running below this
	custom   bool  // custom_slice: sched_attr.sched_runtime set slice
	delayed  bool  // sched_delayed: blocked, still on its cfs_rq (DELAY_DEQUEUE)
	place    uint8
	// batch and idle are SCHED_BATCH and SCHED_IDLE: neither preempts on
	// wakeup (check_preempt_wakeup_fair's normal_policy test); an idle one is
	// preempted by any other.
	batch, idle bool
	// owner is the task whose entity this is; nil for a task group's entity
	// on one CPU, whose own queue is my (fairgroup.go).
	owner *thread
	my    *fairRQ
	// grp is a task's task group (nil: the root group).
	grp *taskGroup
	// A group entity's state on its parent queue: onRQ while queued, curr
	// or delayed (se->on_rq); isCurr while the CPU's running task is below it.
	onRQ, isCurr bool
}

// fairRQ is a cfs_rq: a CPU's root queue (cpu.cfs), or a task group's on
// one CPU (fairgroup.go).
type fairRQ struct {
	zero  int64 // zero_vruntime: the reference the sums are kept against
	sumWV int64 // sum_w_vruntime: Σ w·(v - zero) over the queued entities, curr excluded
	sumW  int64 // sum_weight
	// queued is the tree: the entities waiting, in deadline order (ties in
	// arrival order), curr excluded. At the root without task groups they
	// are the fair tasks of the CPU's rq, in the same order.
	queued []*fairEntity
	// resched is TIF_NEED_RESCHED as the fair class sets it (update_curr,
	// check_preempt_wakeup_fair): the next reschedule point picks again.
	resched bool
	// delayed are DELAY_DEQUEUE'd entities: blocked tasks (or emptied
	// groups) still counted in the sums until they are picked (and dequeued)
	// or woken (and requeued).
	delayed []*fairEntity
	// tickAt is when this CPU's next periodic tick is due, -1 when its tick
	// is stopped (NOHZ idle). Root only.
	tickAt int64
	// grq is the task group's part; nil at a CPU's root.
	grq *groupRQ
}

// newFairEntity is a new task's entity: nice 0, the base slice, and placed
// as a forked task at its first enqueue.
func (s *Sim) newFairEntity() fairEntity {
	return fairEntity{weight: nice0Load, slice: s.baseSliceNs, place: placeInitial}
}

// setPolicy gives the entity a task's policy, nice and custom slice
// (set_load_weight: a SCHED_IDLE task weighs WEIGHT_IDLEPRIO whatever its
// nice; __setscheduler_params: a sched_runtime on a fair policy is a custom
// slice, clamped to 0.1-100 ms; rt-app asks for one only under SCHED_OTHER
// and SCHED_BATCH).
func (f *fairEntity) setPolicy(p rtapp.Policy, nice int, sliceNs int64) {
	f.weight = niceWeight(nice)
	f.batch = p == rtapp.SchedBatch
	f.idle = p == rtapp.SchedIdle
	if f.idle {
		f.weight = weightIdlePrio
	}
	if sliceNs > 0 && !f.idle {
		f.custom = true
		f.slice = min(max(sliceNs, 100_000), 100_000_000)
	}
}

// calcDeltaFair is calc_delta_fair: delta of run time in weight's virtual time.
func calcDeltaFair(delta, weight int64) int64 {
	if weight == nice0Load {
		return delta
	}
	return delta * nice0Load / weight
}

// lagLimit is update_entity_lag's clamp: a weighted max(2 slices, a tick).
func (s *Sim) lagLimit(e *fairEntity) int64 {
	return calcDeltaFair(max(2*e.slice, s.tickNs), e.weight)
}

// saveLag is update_entity_lag: how far e is behind q's V, clamped.
func (s *Sim) saveLag(q *fairRQ, curr, e *fairEntity) {
	lag := q.avgVruntime(curr) - e.vruntime
	lim := s.lagLimit(e)
	e.vlag = min(max(lag, -lim), lim)
}

// placeEntity is place_entity: V less the saved lag, scaled up by the weight
// e adds (PLACE_LAG, so that placing it does not move V), and a deadline one
// weighted slice on (half of one for a new task: PLACE_DEADLINE_INITIAL; the
// kept relative deadline for a migration: PLACE_REL_DEADLINE).
func (s *Sim) placeEntity(q *fairRQ, curr, e *fairEntity) {
	if !e.custom {
		e.slice = s.baseSliceNs
	}
	v := q.avgVruntime(curr)
	var lag int64
	load := q.sumW
	if curr != nil {
		load += curr.weight
	}
	if load > 0 && e.vlag != 0 {
		lag = e.vlag * (load + e.weight) / load
	}
	e.vruntime = v - lag
	vslice := calcDeltaFair(e.slice, e.weight)
	switch e.place {
	case placeMigrate:
		e.deadline += e.vruntime
	case placeInitial:
		e.deadline = e.vruntime + vslice/2
	default:
		e.deadline = e.vruntime + vslice
	}
	e.place = placeNone
}

// fairEnqueue is enqueue_task_fair for t on c: its entity placed if it was
// away, or requeued if delayed, then in the tree; its task groups' entities
// go on their parents' queues as they need to (fairgroup.go).
func (s *Sim) fairEnqueue(c *cpu, t *thread) {
	if c.cur != nil {
		s.chargeRuntime(c) // enqueue_entity's update_curr, before placing
	}
	q := taskRQ(c, t)
	s.enqueueEntity(c, q, &t.fair)
	s.linuxInsert(c, t)
	if q.grq != nil {
		s.groupEnqueued(c, q)
	}
}

// enqueueEntity is enqueue_entity for e on q: a delayed entity requeued
// (requeue_delayed_entity), one that was away placed, then in the tree.
func (s *Sim) enqueueEntity(c *cpu, q *fairRQ, e *fairEntity) {
	curr := currAt(c, q)
	if e.delayed {
		q.undelay(e)
		q.sub(e)
		// DELAY_ZERO: a delayed entity that became eligible again keeps no
		// positive lag; one still behind keeps its place and deadline.
		s.saveLag(q, curr, e)
		if e.vlag > 0 {
			e.vlag = 0
			e.place = placeWake
		}
	}
	if e.place != placeNone {
		s.placeEntity(q, curr, e)
	}
	q.add(e)
	q.insert(e)
}

// undelay takes e off q's delayed list (its sums stay until the caller's).
func (q *fairRQ) undelay(e *fairEntity) {
	e.delayed = false
	for i, x := range q.delayed {
		if x == e {
			q.delayed = append(q.delayed[:i], q.delayed[i+1:]...)
			return
		}
	}
	panic("engine.undelay: entity not on the delayed list")
}

// fairRemove takes t's entity out of its queue's tree (it is picked, or
// leaves the CPU: the caller says which, fairgroup.go).
func (s *Sim) fairRemove(c *cpu, t *thread) {
	q := taskRQ(c, t)
	q.sub(&t.fair)
	q.remove(&t.fair)
}

// fairDequeueSleep is dequeue_task_fair with DEQUEUE_SLEEP for c's running
// task t, which just blocked (c.cur is nil again), then its groups' entities
// above it, which leave their queues too where t's leaving emptied them
// (dequeue_entities).
func (s *Sim) fairDequeueSleep(c *cpu, t *thread) {
	q := taskRQ(c, t)
	s.dequeueSleep(q, &t.fair)
	if q.grq != nil {
		s.groupPutPrev(c, q, true)
	}
}

// dequeueSleep is dequeue_entity with DEQUEUE_SLEEP for e, q's curr until
// now: an entity that is not eligible stays on the queue, delayed, so that
// sleeping does not shed negative lag (DELAY_DEQUEUE); an eligible one
// leaves with its lag saved. It reports whether e stayed (delayed).
func (s *Sim) dequeueSleep(q *fairRQ, e *fairEntity) bool {
	q.add(e) // eligibility is judged with e counted, as curr
	if !q.eligible(nil, e.vruntime) {
		e.delayed = true
		q.delayed = append(q.delayed, e)
		return true
	}
	s.saveLag(q, nil, e)
	q.sub(e)
	e.place = placeWake
	return false
}

// finishDelayed is the dequeue pick_next_entity finishes for a delayed
// entity it picked (finish_delayed_dequeue_entity): it leaves with its lag,
// positive lag dropped (DELAY_ZERO); a group queue it empties leaves its
// parent in turn.
func (s *Sim) finishDelayed(c *cpu, q *fairRQ, e *fairEntity) {
	q.undelay(e)
	s.saveLag(q, currAt(c, q), e)
	q.sub(e)
	e.vlag = min(e.vlag, 0)
	e.place = placeWake
	e.onRQ = false
	if q.grq != nil {
		s.groupEmptied(c, q, true)
	}
}

// finishDelayedTask is finishDelayed for the task t, delayed on its CPU.
func (s *Sim) finishDelayedTask(t *thread) {
	c := s.cpus[t.cpu]
	s.finishDelayed(c, taskRQ(c, t), &t.fair)
}

// fairDetach is dequeue_task_fair for a migration (detach_task): t leaves
// c's queue with its lag and its deadline relative to its vruntime; group
// queues it empties leave theirs.
func (s *Sim) fairDetach(c *cpu, t *thread) {
	q := taskRQ(c, t)
	s.saveLag(q, currAt(c, q), &t.fair)
	t.fair.deadline -= t.fair.vruntime
	t.fair.place = placeMigrate
	s.rqRemove(c, t)
	if q.grq != nil {
		s.groupEmptied(c, q, false)
	}
}

// minSlice is cfs_rq_min_slice: the shortest slice on q, curr's too.
func minSlice(q *fairRQ, curr *fairEntity) int64 {
	m := int64(1<<63 - 1)
	if curr != nil {
		m = curr.slice
	}
	for _, e := range q.queued {
		m = min(m, e.slice)
	}
	return m
}

// setProtectSlice is set_protect_slice: with RUN_TO_PARITY the entity just
// picked runs to its deadline, or for the shortest queued slice if that is
// shorter than its own.
func setProtectSlice(q *fairRQ, e *fairEntity) {
	slice := min(minSlice(q, e), e.slice)
	e.vprot = e.deadline
	if slice != e.slice {
		e.vprot = min(e.vprot, e.vruntime+calcDeltaFair(slice, e.weight))
	}
}

func protectSlice(e *fairEntity) bool { return e.vruntime < e.vprot }

// updateCurrFair is update_curr for ran ns of c's running task, at its own
// level and each task group's above it (for_each_sched_entity): its
// vruntime moves on, a spent request gets a new deadline (update_deadline),
// and with others queued a new deadline or an expired protection asks for a
// pick. A group with a cpu.max spends its runtime (fairgroup.go).
func (s *Sim) updateCurrFair(c *cpu, ran int64) {
	e := &c.cur.fair
	q := taskRQ(c, c.cur)
	for {
		e.vruntime += calcDeltaFair(ran, e.weight)
		resched := false
		if e.vruntime >= e.deadline {
			if !e.custom {
				e.slice = s.baseSliceNs
			}
			e.deadline = e.vruntime + calcDeltaFair(e.slice, e.weight)
			resched = true
		}
		q.rebase(e)
		if q.waiting() > 0 && (resched || !protectSlice(e)) {
			c.cfs.resched = true
		}
		if q.grq == nil {
			return
		}
		s.groupRan(c, q, ran)
		if e, q = q.grq.se, q.grq.parent; !e.onRQ {
			break // throttled: the groups above count the time only
		}
	}
	for ; q.grq != nil; q = q.grq.parent {
		s.groupRan(c, q, ran)
	}
}

// pickEEVDF is __pick_eevdf on q: the eligible entity with the earliest
// virtual deadline among q's curr, its tree and its delayed entities; with
// protect, a curr still in its protected slice (RUN_TO_PARITY) keeps the
// CPU. A group out of cpu.max runtime is not picked (fairgroup.go).
func (s *Sim) pickEEVDF(c *cpu, q *fairRQ, protect bool) *fairEntity {
	curr := currAt(c, q)
	if curr != nil && curr.my != nil && curr.my.grq.outOfRuntime() {
		curr = nil
	}
	if q.waiting() == 0 {
		return curr
	}
	// V is fixed for the whole pick: eligible means sum >= (v - zero)·load.
	sum, load := q.sums(currAt(c, q))
	eligible := func(e *fairEntity) bool { return sum >= (e.vruntime-q.zero)*load }
	if curr != nil && !eligible(curr) {
		curr = nil
	}
	if curr != nil && protect && protectSlice(curr) {
		return curr
	}
	var best *fairEntity
	for _, e := range q.queued {
		if eligible(e) {
			best = e
			break
		}
	}
	for _, e := range q.delayed {
		if (best == nil || e.deadline < best.deadline) && eligible(e) {
			best = e
		}
	}
	if best == nil || curr != nil && curr.deadline < best.deadline {
		best = curr
	}
	if best == nil {
		// Some entity is always eligible (the one with the least vruntime is
		// at or below the mean); rounding aside, take the earliest deadline.
		if len(q.queued) > 0 {
			best = q.queued[0]
		} else {
			best = q.delayed[0]
		}
	}
	return best
}

// pickNextFair is pick_task_fair: from the root down, each level's pick
// (pick_next_entity), a group's entity leading to its own queue; a delayed
// entity picked is dequeued for good and the pick starts again.
func (s *Sim) pickNextFair(c *cpu, protect bool) *thread {
	q := &c.cfs
	for {
		e := s.pickEEVDF(c, q, protect)
		switch {
		case e == nil:
			return nil
		case e.delayed:
			s.finishDelayed(c, q, e)
			q = &c.cfs
		case e.my == nil:
			return e.owner
		default:
			q = e.my
		}
	}
}

// wakePreemptFair is check_preempt_wakeup_fair for p, just queued on c: it
// says whether p takes the CPU from c's running task at the next reschedule
// point, judged at the level where the two meet (find_matching_se). A wakee
// with a shorter slice overrides the running entity's protected slice
// (PREEMPT_SHORT).
func (s *Sim) wakePreemptFair(c *cpu, p *thread) bool {
	curr := c.cur
	if curr == nil || curr == p || c.cfs.resched {
		return c.cfs.resched
	}
	if curr.fair.idle && !p.fair.idle {
		c.cfs.resched = true
		return true
	}
	if curr.fair.idle != p.fair.idle || p.fair.batch || p.fair.idle {
		return false
	}
	s.chargeRuntime(c)
	q, se, pse := matchingLevel(c, curr, p)
	short := pse.slice < se.slice
	if s.pickEEVDF(c, q, !short) == pse {
		if short {
			cancelProtectSlice(se)
		}
		c.cfs.resched = true
		return true
	}
	if short {
		// update_protect_slice: curr keeps at most the wakee's slice more.
		se.vprot = min(se.vprot, se.vruntime+calcDeltaFair(minSlice(q, se), se.weight))
	}
	return false
}

func cancelProtectSlice(e *fairEntity) {
	if protectSlice(e) {
		e.vprot = e.vruntime
	}
}
