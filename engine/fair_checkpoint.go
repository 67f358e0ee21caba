package engine

// The fair class's state in a checkpoint (checkpoint_body.go writes the
// threads and CPUs and calls these for their fair parts).

func (f *fairEntity) ckSave(w *ckWriter) {
	w.iv(f.weight)
	w.iv(f.vruntime)
	w.iv(f.deadline)
	w.iv(f.slice)
	w.iv(f.vlag)
	w.iv(f.vprot)
	w.flags(f.custom, f.delayed, f.batch, f.idle)
	w.byte(f.place)
}

func (f *fairEntity) ckLoad(r *ckReader) {
	f.weight = r.intIn(weightIdlePrio, niceWeight(-20))
	f.vruntime = r.iv()
	f.deadline = r.iv()
	f.slice = r.intIn(1, 1<<40)
	f.vlag = r.iv()
	f.vprot = r.iv()
	fl := r.flags(4)
	f.custom, f.delayed, f.batch, f.idle = fl[0], fl[1], fl[2], fl[3]
	if f.place = r.byte(); f.place > placeMigrate {
		r.failf("placement %d is not one", f.place)
	}
}

func (q *fairRQ) ckSave(w *ckWriter) {
	w.iv(q.zero)
	w.iv(q.sumWV)
	w.iv(q.sumW)
	w.flags(q.resched)
	delayed := make([]*thread, len(q.delayed))
	for i, e := range q.delayed {
		delayed[i] = e.owner // a checkpoint has no task groups (AppendCheckpoint)
	}
	w.threads(delayed)
	w.iv(q.tickAt)
}

// ckLoad reads c's cfs_rq; the sums must be what c's queue and delayed
// entities add up to, and every delayed entity a blocked thread marked so.
func (q *fairRQ) ckLoad(r *ckReader, c *cpu) {
	q.zero = r.iv()
	q.sumWV = r.iv()
	q.sumW = r.iv()
	q.resched = r.flags(1)[0]
	delayed := r.threads(maxCkThreads)
	q.tickAt = r.intIn(-1, 1<<62)
	q.delayed, q.queued = nil, nil
	if r.err != nil || !r.s.fair {
		return
	}
	check := fairRQ{zero: q.zero}
	for _, t := range c.rq {
		if t.class == classFair {
			check.add(&t.fair)
			q.queued = append(q.queued, &t.fair) // the rq's fair tasks are the tree, in order
		}
	}
	for _, t := range delayed {
		if !t.fair.delayed || t.state != ThreadBlocked {
			r.failf("thread %d is on the delayed list but not a delayed, blocked task", t.id)
			return
		}
		check.add(&t.fair)
		q.delayed = append(q.delayed, &t.fair)
	}
	if check.sumW != q.sumW || check.sumWV != q.sumWV {
		r.failf("the fair sums (%d, %d) are not those of the queue (%d, %d)", q.sumW, q.sumWV, check.sumW, check.sumWV)
	}
}

// ckSaveClass writes t's class and its RT and DL entities.
func ckSaveClass(w *ckWriter, t *thread) {
	w.byte(t.class)
	w.iv(int64(t.rt.prio))
	w.iv(int64(t.rt.rrTicks))
	w.flags(t.rt.rr, t.rt.head, t.rt.expired, t.dl.throttled, t.dl.woken)
	d := &t.dl
	for _, v := range []int64{d.runtime, d.deadline, d.dlRuntime, d.dlDeadline, d.dlPeriod, d.replenishAt, d.jobDeadline, d.misses, d.throttles} {
		w.iv(v)
	}
}

func ckLoadClass(r *ckReader, t *thread) {
	if t.class = r.byte(); t.class > classDL {
		r.failf("class %d is not one", t.class)
		return
	}
	t.rt.prio = int(r.intIn(0, 99))
	t.rt.rrTicks = int(r.intIn(0, 1<<31-1))
	fl := r.flags(5)
	t.rt.rr, t.rt.head, t.rt.expired, t.dl.throttled, t.dl.woken = fl[0], fl[1], fl[2], fl[3], fl[4]
	d := &t.dl
	for _, p := range []*int64{&d.runtime, &d.deadline, &d.dlRuntime, &d.dlDeadline, &d.dlPeriod, &d.replenishAt, &d.jobDeadline, &d.misses, &d.throttles} {
		*p = r.iv()
	}
	if t.class == classDL && (d.dlRuntime <= 0 || d.dlDeadline < d.dlRuntime || d.dlPeriod < d.dlDeadline) {
		r.failf("a deadline task's reservation %d/%d/%d is not one sched_setattr takes", d.dlRuntime, d.dlDeadline, d.dlPeriod)
	}
}
