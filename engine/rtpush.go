package engine

// Where real-time and deadline tasks go across CPUs (rt.c's
// select_task_rq_rt, find_lowest_rq, push_rt_task, pull_rt_task, and
// deadline.c's select_task_rq_dl, find_later_rq and their push and pull):
// the highest-priority runnable tasks run, whichever CPU they woke on.

// cpuLevel is how urgent what c runs is, for find_lowest_rq and
// find_later_rq: 0 for idle and fair (cpupri's CPUPRI_NORMAL), the RT
// priority, or above every RT priority for a deadline task (then later
// deadlines are lower).
func cpuLevel(c *cpu) (level int, deadline int64) {
	t := c.cur
	if h := queuedHead(c); h != nil && (t == nil || runsBefore(h, t)) {
		t = h
	}
	switch {
	case t == nil || t.class == classFair:
		return 0, 0
	case t.class == classRT:
		return t.rt.prio, 0
	}
	return 100, t.dl.deadline
}

// canPreemptLevel says whether t, queued, would run before what runs at
// (level, deadline).
func canPreemptLevel(t *thread, level int, deadline int64) bool {
	if t.class == classDL {
		return level < 100 || t.dl.deadline < deadline
	}
	return level < t.rt.prio
}

// lowestCPU is find_lowest_rq / find_later_rq for t: the CPU other than
// skip that runs the least urgent work t can preempt (idle and fair CPUs
// first, then the lowest RT priority, then the latest deadline), t's own
// CPU preferred among equals, or -1.
func (s *Sim) lowestCPU(t *thread, skip int) int {
	if t.pinned {
		return -1
	}
	best, bestLevel, bestDL := -1, 0, int64(0)
	consider := func(c *cpu) {
		if c.id == skip {
			return
		}
		level, dl := cpuLevel(c)
		if !canPreemptLevel(t, level, dl) {
			return
		}
		if best < 0 || level < bestLevel || level == bestLevel && level == 100 && dl > bestDL {
			best, bestLevel, bestDL = c.id, level, dl
		}
	}
	consider(s.cpus[t.cpu])
	for _, c := range s.cpus {
		consider(c)
	}
	return best
}

// placeRT is select_task_rq_rt / select_task_rq_dl: a woken RT or DL task
// stays on its CPU unless what runs there would keep it waiting.
func (s *Sim) placeRT(t *thread) placement {
	prev := s.cpus[t.cpu]
	level, dl := cpuLevel(prev)
	if canPreemptLevel(t, level, dl) || t.pinned {
		return placement{cpu: prev.id, reason: "real-time wakeup: its CPU runs nothing it must wait for (select_task_rq_rt)"}
	}
	if c := s.lowestCPU(t, -1); c >= 0 {
		return placement{cpu: c, reason: "real-time wakeup: the CPU running the least urgent work (find_lowest_rq)"}
	}
	return placement{cpu: prev.id, reason: "real-time wakeup: every CPU runs something as urgent; it waits on its own"}
}

// pushRT is push_rt_task after t was queued on c and could not run there:
// it moves to a CPU running less urgent work, if there is one.
func (s *Sim) pushRT(c *cpu, t *thread) {
	if t.state != ThreadQueued || t.cpu != c.id {
		return
	}
	to := s.lowestCPU(t, c.id)
	if to < 0 {
		return
	}
	s.rqRemove(c, t)
	s.moveQueued(t, c.id, s.cpus[to], "push_rt_task: a queued real-time task moves to a CPU running less urgent work")
}

// moveQueued queues t, just taken off CPU from's queue, on c and makes c
// reschedule for it.
func (s *Sim) moveQueued(t *thread, from int, c *cpu, reason string) {
	s.migrateCount(t, from, c.id)
	s.decide(DecWakePlace, from, c.id, t.id, reason, 0)
	if c.cur == nil {
		s.enqueueRemote(c, t, from, remoteWake)
		return
	}
	s.rqInsert(c, t)
	if s.wakePreempt(c, t) {
		s.reschedRemote(c, from, t, reason)
	}
}

// pullRT is pull_rt_task (and pull_dl_task) for c, about to run a fair task
// or go idle: the most urgent task queued and waiting on another CPU comes
// here. It reports whether one came.
func (s *Sim) pullRT(c *cpu) bool {
	var best *thread
	for _, o := range s.cpus {
		if o == c {
			continue
		}
		if t := pullable(c, o, o.hiq); t != nil && (best == nil || runsBefore(t, best)) {
			best = t
		} else if t := pullable(c, o, o.rq); t != nil && (best == nil || runsBefore(t, best)) {
			best = t
		}
	}
	if best == nil {
		return false
	}
	from := best.cpu
	s.rqRemove(s.cpus[from], best)
	s.migrateCount(best, from, c.id)
	s.decide(DecNewidlePull, c.id, from, best.id, "pull_rt_task: a CPU about to run fair work takes a real-time task waiting on another", 0)
	s.rqInsert(c, best)
	return true
}

// pullable is the most urgent RT or DL task of queue q (o's hiq or rq) that
// may move to c, or nil.
func pullable(c, o *cpu, q []*thread) *thread {
	for _, t := range q {
		if t.class == classFair {
			return nil
		}
		if t.pinned || t.class == classDL && !dlRunnable(t) || t.class == classRT && (!rtRunnable(o) || !rtRunnable(c)) {
			continue
		}
		return t // the first runnable one is the CPU's most urgent
	}
	return nil
}
