package engine

import "schedplay/rtapp"

// The fair class's entities changing mid-run: a task's new policy or nice
// (reweight_entity), sched_yield (yield_task_fair), every task handed to
// the fair class at once (a sched_ext policy's ejection), and the weights'
// table for the other packages.

// yieldFair is yield_task_fair for c's running task, then the pick
// schedule() makes: the task gives up the rest of its request (its vruntime
// jumps to its deadline, which moves a slice on), so any other eligible task
// runs first. It reports whether another task takes the CPU.
func (s *Sim) yieldFair(c *cpu) bool {
	c.cfs.resched = false
	if !othersWaiting(c) {
		return false
	}
	f := &c.cur.fair
	f.vruntime = f.deadline
	f.deadline += calcDeltaFair(f.slice, f.weight)
	return s.pickNextFair(c, true) != c.cur
}

// NiceWeight is the fair class's weight of a nice value (sched_prio_to_weight),
// for comparisons with the real kernel.
func NiceWeight(nice int) int64 { return niceWeight(nice) }

// NiceOfWeight is the nice whose weight is w (the nearest one for a weight
// no nice has, such as SCHED_IDLE's 3: nice 19).
func NiceOfWeight(w int64) int {
	best := 0
	for n := -20; n <= 19; n++ {
		if d, bd := niceWeight(n)-w, niceWeight(best)-w; d*d < bd*bd {
			best = n
		}
	}
	return best
}

// reweightCurr is reweight_entity for c's running fair task t taking a new
// policy and nice: its lag and deadline, relative to its vruntime, are
// scaled by old weight / new weight (vlag holds V - v, so w·vlag stays the
// lag), then it is placed again against V.
func (s *Sim) reweightCurr(c *cpu, t *thread, pol rtapp.Policy, nice int, sliceNs int64) {
	f := &t.fair
	old := f.weight
	q := taskRQ(c, t)
	s.saveLag(q, f, f)
	f.deadline -= f.vruntime
	f.setPolicy(pol, nice, sliceNs)
	f.vlag = f.vlag * old / f.weight
	f.deadline = f.deadline * old / f.weight
	f.place = placeMigrate
	s.placeEntity(q, f, f)
	for ; q.grq != nil; q = q.grq.parent {
		s.updateShares(c, q) // the groups' loads changed with the weight
	}
}

// othersWaiting says whether any fair entity waits on the queues at and
// above c's running task (yield_task_fair's nr_running test, for the class).
func othersWaiting(c *cpu) bool {
	for q := taskRQ(c, c.cur); ; q = q.grq.parent {
		if q.waiting() > 0 {
			return true
		}
		if q.grq == nil {
			return false
		}
	}
}

// enableFair hands every task to the fair class mid-run, as a sched_ext
// policy's ejection does (scx_disable_workfn switches each task to the fair
// class, switched_to_fair): each CPU's queued tasks enter its queue as at a
// wakeup with no lag, and a running task starts its request at the queue's
// V; busy CPUs start their tick.
func (s *Sim) enableFair() {
	s.fair = true
	for _, c := range s.cpus {
		queued := append([]*thread(nil), c.rq...)
		clear(c.rq)
		c.rq = c.rq[:0]
		c.cfs = fairRQ{tickAt: c.cfs.tickAt}
		if cur := c.cur; cur != nil {
			f := &cur.fair
			f.vruntime, f.vlag, f.place = 0, 0, placeNone
			f.deadline = calcDeltaFair(f.slice, f.weight)
			setProtectSlice(&c.cfs, &cur.fair)
			s.startTick(c)
		}
		for _, t := range queued {
			t.fair.vlag, t.fair.place = 0, placeWake
			s.fairEnqueue(c, t)
		}
		s.m.queueChanged(s, c)
	}
}
