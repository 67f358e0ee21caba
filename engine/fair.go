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
}

// fairRQ is a CPU's cfs_rq, less the tree (the CPU's rq, in deadline order).
type fairRQ struct {
	zero  int64 // zero_vruntime: the reference the sums are kept against
	sumWV int64 // sum_w_vruntime: Σ w·(v - zero) over the queued entities, curr excluded
	sumW  int64 // sum_weight
	// resched is TIF_NEED_RESCHED as the fair class sets it (update_curr,
	// check_preempt_wakeup_fair): the next reschedule point picks again.
	resched bool
	// delayed are DELAY_DEQUEUE'd entities: blocked tasks still counted in the
	// sums until they are picked (and dequeued) or woken (and requeued).
	delayed []*thread
	// tickAt is when this CPU's next periodic tick is due, -1 when its tick
	// is stopped (NOHZ idle).
	tickAt int64
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

func (q *fairRQ) add(t *thread) {
	q.sumWV += t.fair.weight * (t.fair.vruntime - q.zero)
	q.sumW += t.fair.weight
}

func (q *fairRQ) sub(t *thread) {
	q.sumWV -= t.fair.weight * (t.fair.vruntime - q.zero)
	q.sumW -= t.fair.weight
}

// sums is avg_vruntime's numerator and denominator, curr included.
func (q *fairRQ) sums(curr *thread) (sum, load int64) {
	sum, load = q.sumWV, q.sumW
	if curr != nil {
		sum += curr.fair.weight * (curr.fair.vruntime - q.zero)
		load += curr.fair.weight
	}
	return sum, load
}

// avgVruntime is avg_vruntime: V, the weighted mean vruntime (rounded down).
func (q *fairRQ) avgVruntime(curr *thread) int64 {
	sum, load := q.sums(curr)
	if load == 0 {
		return q.zero
	}
	if sum < 0 {
		sum -= load - 1 // floor, as div_s64 after the kernel's adjustment
	}
	return q.zero + sum/load
}

// eligible is vruntime_eligible: v <= V, without the division.
func (q *fairRQ) eligible(curr *thread, v int64) bool {
	sum, load := q.sums(curr)
	return sum >= (v-q.zero)*load
}

// rebase moves zero to V when curr's key has grown large, so that Σ w·key
// stays far from overflow (the kernel moves zero_vruntime along for the
// same reason, update_zero_vruntime).
func (q *fairRQ) rebase(curr *thread) {
	if k := curr.fair.vruntime - q.zero; k < 1<<32 && k > -(1<<32) {
		return
	}
	z := q.avgVruntime(curr)
	q.sumWV -= (z - q.zero) * q.sumW
	q.zero = z
}

// fairCurr is c's running task as its cfs_rq's curr, or nil (idle, or a
// task of another class running).
func fairCurr(c *cpu) *thread {
	if c.cur != nil && c.cur.class == classFair {
		return c.cur
	}
	return nil
}

// firstFair is the index of c's first fair task: the real-time and deadline
// tasks come first in its queue (rt.go).
func firstFair(c *cpu) int {
	i := 0
	for i < len(c.rq) && c.rq[i].class != classFair {
		i++
	}
	return i
}

// lagLimit is update_entity_lag's clamp: a weighted max(2 slices, a tick).
func (s *Sim) lagLimit(t *thread) int64 {
	return calcDeltaFair(max(2*t.fair.slice, s.tickNs), t.fair.weight)
}

// saveLag is update_entity_lag: how far t is behind V, clamped.
func (s *Sim) saveLag(c *cpu, t *thread) {
	lag := c.cfs.avgVruntime(fairCurr(c)) - t.fair.vruntime
	lim := s.lagLimit(t)
	t.fair.vlag = min(max(lag, -lim), lim)
}

// placeEntity is place_entity: V less the saved lag, scaled up by the weight
// t adds (PLACE_LAG, so that placing it does not move V), and a deadline one
// weighted slice on (half of one for a new task: PLACE_DEADLINE_INITIAL; the
// kept relative deadline for a migration: PLACE_REL_DEADLINE).
func (s *Sim) placeEntity(c *cpu, t *thread) {
	f := &t.fair
	if !f.custom {
		f.slice = s.baseSliceNs
	}
	curr := fairCurr(c)
	v := c.cfs.avgVruntime(curr)
	var lag int64
	load := c.cfs.sumW
	if curr != nil {
		load += curr.fair.weight
	}
	if load > 0 && f.vlag != 0 {
		lag = f.vlag * (load + f.weight) / load
	}
	f.vruntime = v - lag
	vslice := calcDeltaFair(f.slice, f.weight)
	switch f.place {
	case placeMigrate:
		f.deadline += f.vruntime
	case placeInitial:
		f.deadline = f.vruntime + vslice/2
	default:
		f.deadline = f.vruntime + vslice
	}
	f.place = placeNone
}

// fairEnqueue is enqueue_entity for t on c: placed if it was away, a
// delayed entity requeued (requeue_delayed_entity), then in the tree.
func (s *Sim) fairEnqueue(c *cpu, t *thread) {
	f := &t.fair
	if c.cur != nil {
		s.chargeRuntime(c) // enqueue_entity's update_curr, before placing
	}
	if f.delayed {
		s.undelay(c, t)
		c.cfs.sub(t)
		// DELAY_ZERO: a delayed entity that became eligible again keeps no
		// positive lag; one still behind keeps its place and deadline.
		s.saveLag(c, t)
		if f.vlag > 0 {
			f.vlag = 0
			f.place = placeWake
		}
	}
	if f.place != placeNone {
		if fairCurr(c) == nil && c.cfs.sumW == 0 {
			c.cfs.zero = c.cfs.avgVruntime(nil) // empty: V stays where it was
		}
		s.placeEntity(c, t)
	}
	c.cfs.add(t)
	s.linuxInsert(c, t)
}

// undelay takes t off c's delayed list (its sums stay until the caller's).
func (s *Sim) undelay(c *cpu, t *thread) {
	t.fair.delayed = false
	for i, x := range c.cfs.delayed {
		if x == t {
			c.cfs.delayed = append(c.cfs.delayed[:i], c.cfs.delayed[i+1:]...)
			return
		}
	}
	panic("engine.undelay: thread not on the delayed list")
}

// fairDequeueSleep is dequeue_entity with DEQUEUE_SLEEP for c's running task
// t, which just blocked (c.cur is nil again): an entity that is not eligible
// stays on the queue, delayed, so that sleeping does not shed negative lag
// (DELAY_DEQUEUE); an eligible one leaves with its lag saved.
func (s *Sim) fairDequeueSleep(c *cpu, t *thread) {
	f := &t.fair
	c.cfs.add(t) // eligibility is judged with t counted, as curr
	if !c.cfs.eligible(nil, f.vruntime) {
		f.delayed = true
		c.cfs.delayed = append(c.cfs.delayed, t)
		return
	}
	s.saveLag(c, t)
	c.cfs.sub(t)
	f.place = placeWake
}

// finishDelayed is the dequeue pick_next_entity finishes for a delayed entity
// it picked (finish_delayed_dequeue_entity): it leaves with its lag, positive
// lag dropped (DELAY_ZERO).
func (s *Sim) finishDelayed(c *cpu, t *thread) {
	s.undelay(c, t)
	s.saveLag(c, t)
	c.cfs.sub(t)
	t.fair.vlag = min(t.fair.vlag, 0)
	t.fair.place = placeWake
}

// fairDetach is dequeue_entity for a migration (detach_task): t leaves c's
// queue with its lag and its deadline relative to its vruntime.
func (s *Sim) fairDetach(c *cpu, t *thread) {
	s.saveLag(c, t)
	t.fair.deadline -= t.fair.vruntime
	t.fair.place = placeMigrate
}

// minSlice is cfs_rq_min_slice: the shortest slice on c's queue, curr's too.
func minSlice(c *cpu) int64 {
	m := int64(1<<63 - 1)
	if curr := fairCurr(c); curr != nil {
		m = curr.fair.slice
	}
	for _, t := range c.rq[firstFair(c):] {
		m = min(m, t.fair.slice)
	}
	return m
}

// setProtectSlice is set_protect_slice: with RUN_TO_PARITY the task just
// picked runs to its deadline, or for the shortest queued slice if that is
// shorter than its own.
func (s *Sim) setProtectSlice(c *cpu, t *thread) {
	f := &t.fair
	slice := min(minSlice(c), f.slice)
	f.vprot = f.deadline
	if slice != f.slice {
		f.vprot = min(f.vprot, f.vruntime+calcDeltaFair(slice, f.weight))
	}
}

func protectSlice(t *thread) bool { return t.fair.vruntime < t.fair.vprot }

// updateCurrFair is update_curr for ran ns of c's running task: its vruntime
// moves on, a spent request gets a new deadline (update_deadline), and with
// others queued a new deadline or an expired protection asks for a pick.
func (s *Sim) updateCurrFair(c *cpu, ran int64) {
	t := c.cur
	f := &t.fair
	f.vruntime += calcDeltaFair(ran, f.weight)
	resched := false
	if f.vruntime >= f.deadline {
		if !f.custom {
			f.slice = s.baseSliceNs
		}
		f.deadline = f.vruntime + calcDeltaFair(f.slice, f.weight)
		resched = true
	}
	c.cfs.rebase(t)
	if len(c.rq)-firstFair(c)+len(c.cfs.delayed) == 0 {
		return
	}
	if resched || !protectSlice(t) {
		c.cfs.resched = true
	}
}

// pickEEVDF is __pick_eevdf: the eligible entity with the earliest virtual
// deadline among c's curr, its queue and its delayed entities; with protect,
// a curr still in its protected slice (RUN_TO_PARITY) keeps the CPU.
func (s *Sim) pickEEVDF(c *cpu, protect bool) *thread {
	curr := fairCurr(c)
	q := &c.cfs
	queued := c.rq[firstFair(c):]
	if len(queued)+len(q.delayed) == 0 {
		return curr
	}
	// V is fixed for the whole pick: eligible means sum >= (v - zero)·load.
	sum, load := q.sums(curr)
	eligible := func(t *thread) bool { return sum >= (t.fair.vruntime-q.zero)*load }
	if curr != nil && !eligible(curr) {
		curr = nil
	}
	if curr != nil && protect && protectSlice(curr) {
		return curr
	}
	var best *thread
	for _, t := range queued {
		if eligible(t) {
			best = t
			break
		}
	}
	for _, t := range q.delayed {
		if (best == nil || t.fair.deadline < best.fair.deadline) && eligible(t) {
			best = t
		}
	}
	if best == nil || curr != nil && curr.fair.deadline < best.fair.deadline {
		best = curr
	}
	if best == nil {
		// Some entity is always eligible (the one with the least vruntime is
		// at or below the mean); rounding aside, take the earliest deadline.
		if len(queued) > 0 {
			best = queued[0]
		} else {
			best = q.delayed[0]
		}
	}
	return best
}

// pickNextFair is pick_next_entity's loop: a delayed entity picked is
// dequeued for good and the pick runs again.
func (s *Sim) pickNextFair(c *cpu, protect bool) *thread {
	for {
		t := s.pickEEVDF(c, protect)
		if t == nil || !t.fair.delayed {
			return t
		}
		s.finishDelayed(c, t)
	}
}

// wakePreemptFair is check_preempt_wakeup_fair for p, just queued on c: it
// says whether p takes the CPU from c's running task at the next reschedule
// point. A wakee with a shorter slice overrides the running task's protected
// slice (PREEMPT_SHORT).
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
	short := p.fair.slice < curr.fair.slice
	if s.pickEEVDF(c, !short) == p {
		if short {
			cancelProtectSlice(curr)
		}
		c.cfs.resched = true
		return true
	}
	if short {
		// update_protect_slice: curr keeps at most the wakee's slice more.
		curr.fair.vprot = min(curr.fair.vprot, curr.fair.vruntime+calcDeltaFair(minSlice(c), curr.fair.weight))
	}
	return false
}

func cancelProtectSlice(t *thread) {
	if protectSlice(t) {
		t.fair.vprot = t.fair.vruntime
	}
}
