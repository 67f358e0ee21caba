package engine

// The body of a checkpoint (checkpoint.go): the simulation's own state in
// ckSave's order, read back by ckLoad, which checks every place, event and
// count it reads against the scenario before anything is used.

import (
	"fmt"
	"slices"
)

// ckSave writes the body.
func (s *Sim) ckSave(w *ckWriter, wins []int) {
	pcg, _ := s.pcg.AppendBinary(nil) // never fails
	w.n(len(pcg))
	w.b = append(w.b, pcg...)
	w.iv(s.decayBase)
	w.iv(s.decayAt)
	w.f64(s.decayScale)
	w.iv(s.finishedNs)
	w.n(s.nrRT)
	w.iv(s.rtPeriodAt)
	for _, b := range s.llcIdleCores {
		w.bool(b)
	}
	s.ckSaveBalancer(w)

	w.n(len(s.threads))
	for _, t := range s.threads {
		w.str(t.name)
		w.byte(byte(t.role) | byte(t.state)<<4)
		w.n(t.cpu)
		w.flags(t.pinned, t.hasStep)
		w.f64(t.vr)
		w.f64(t.prio)
		w.f64(t.runNs)
		w.iv(t.remainingNs)
		w.at(t.lastRanNs)
		w.n(t.lastCPU)
		w.iv(t.wokenAtNs)
		w.iv(t.requeuedAtNs)
		w.iv(int64(t.local))
		t.fair.ckSave(w)
		ckSaveClass(w, t)
	}

	for _, c := range s.cpus {
		w.byte(byte(c.state))
		w.thr(c.cur)
		w.threads(c.rq)
		w.threads(c.hiq)
		w.threads(c.incoming)
		w.flags(c.needResched, c.wakePending, c.irqPaused, c.irqFromIdl, c.irqWork.pull)
		w.uv(uint64(c.gen))
		w.at(c.segStartNs)
		w.f64(c.segScale)
		w.f64(c.hystCredit)
		w.at(c.dispatchNs)
		w.at(c.stepEndNs)
		w.at(c.irqUntilNs)
		w.threads(c.irqWakes)
		w.thr(c.prevThread)
		w.iv(c.debtNs)
		w.f64(c.stepSpeed)
		w.at(c.workStartNs)
		w.iv(c.stepWorkNs)
		w.at(c.smtMarkNs)
		w.flags(c.smtBusy, c.smtCont)
		w.iv(c.spinWindow)
		w.iv(int64(c.haltStreak))
		w.at(c.haltStartNs)
		w.at(c.pollEndNs)
		w.iv(c.hostPollNs)
		w.ref(c.pullSlot)
		c.cfs.ckSave(w)
		w.iv(c.rtTime)
		w.flags(c.rtThrottled)
	}

	w.n(len(s.kthreads))
	for _, k := range s.kthreads {
		w.flags(k.kind == kernelHousekeeping, k.inPass)
	}

	s.q.ckSave(w)

	w.n(len(s.inflight.l))
	for _, x := range s.inflight.l {
		w.byte(byte(x.kind))
		w.ref(x.from)
		w.n(x.to)
		w.at(x.sent)
		w.at(x.due)
		w.ref(x.thread)
	}

	d := &s.dec
	w.uv(d.written)
	kept := min(d.written, uint64(len(d.buf)))
	prev := s.now // the oldest record's time relative to the clock, then each after the one before
	for i := d.written - kept; i < d.written; i++ {
		x := &d.buf[i%uint64(len(d.buf))]
		w.iv(x.AtNs - prev)
		prev = x.AtNs
		w.byte(byte(x.Kind))
		w.iv(int64(x.CPU))
		w.iv(int64(x.Target))
		w.iv(int64(x.Thread))
		w.str(x.Reason)
		w.iv(x.Value)
	}

	s.m.ckSave(w, wins)
	s.pol.ckSave(w)
	s.wl.ckSave(w)
}

// ckLoad reads the body into s, a newSimBase of the checkpoint's scenario.
func (s *Sim) ckLoad(r *ckReader) {
	ncpu := len(s.cpus)
	r.in("random generator", -1)
	if err := s.pcg.UnmarshalBinary(r.raw(64)); err != nil && r.err == nil {
		r.failf("%v", err)
	}
	r.in("clock", -1)
	s.decayBase = r.iv()
	s.decayAt = r.iv()
	s.decayScale = r.f64()
	s.finishedNs = r.intIn(-1, s.end)
	s.nrRT = r.n(maxCkThreads + 1) // written with n (uvarint), as every count
	s.rtPeriodAt = r.intIn(-1, 1<<62)
	for i := range s.llcIdleCores {
		s.llcIdleCores[i] = r.bool()
	}
	s.ckLoadBalancer(r)

	r.in("threads", -1)
	n := r.count(14, maxCkThreads)
	s.threads = make([]*thread, n)
	for i := range s.threads {
		s.threads[i] = &thread{id: i} // first, so references can resolve
		s.threads[i].fair.owner = s.threads[i]
	}
	for i, t := range s.threads {
		r.in("thread", i)
		t.name = r.str()
		rs := r.byte()
		t.role, t.state = ThreadRole(rs&15), ThreadState(rs>>4)
		if int(t.role) >= len(roleNames) || int(t.state) >= len(threadStateNames) {
			r.failf("role %d or state %d is not one", t.role, t.state)
			return
		}
		t.cpu = r.n(ncpu)
		fl := r.flags(2)
		t.pinned, t.hasStep = fl[0], fl[1]
		t.vr = r.f64()
		t.prio = r.f64()
		t.runNs = r.f64()
		t.remainingNs = r.iv()
		t.lastRanNs = r.at()
		t.lastCPU = r.n(ncpu)
		t.wokenAtNs = r.intIn(-1, s.now)
		t.requeuedAtNs = r.intIn(-1, s.now)
		t.local = int(r.intIn(-1, maxCkThreads))
		t.fair.ckLoad(r)
		ckLoadClass(r, t)
	}

	for i, c := range s.cpus {
		r.in("cpu", i)
		st := r.byte()
		if int(st) >= len(cpuStateNames) {
			r.failf("state %d is not one", st)
			return
		}
		c.state = CPUState(st)
		c.cur = r.thr()
		c.rq = r.threads(maxCkThreads)
		c.hiq = r.threads(maxCkThreads)
		c.incoming = r.threads(maxCkThreads)
		fl := r.flags(5)
		c.needResched, c.wakePending, c.irqPaused, c.irqFromIdl, c.irqWork.pull = fl[0], fl[1], fl[2], fl[3], fl[4]
		c.gen = r.u32()
		c.segStartNs = r.at()
		c.segScale = r.f64()
		c.hystCredit = r.f64()
		c.dispatchNs = r.at()
		c.stepEndNs = r.at()
		c.irqUntilNs = r.at()
		c.irqWakes = r.threads(maxCkThreads)
		c.prevThread = r.thr()
		c.debtNs = r.iv()
		c.stepSpeed = r.f64()
		c.workStartNs = r.at()
		c.stepWorkNs = r.iv()
		c.smtMarkNs = r.at()
		sf := r.flags(2)
		c.smtBusy, c.smtCont = sf[0], sf[1]
		c.spinWindow = r.iv()
		c.haltStreak = int(r.intIn(0, 1<<31-1))
		c.haltStartNs = r.at()
		c.pollEndNs = r.at()
		c.hostPollNs = r.iv()
		c.pullSlot = r.ref(ncpu)
		c.cfs.ckLoad(r, c)
		c.rtTime = r.intIn(0, 1<<62)
		c.rtThrottled = r.flags(1)[0]
	}

	if r.err != nil {
		return
	}
	r.in("kernel threads", -1)
	s.kthreads = make([]kernelThread, r.count(1, 2*ncpu))
	for i := range s.kthreads {
		fl := r.flags(2)
		k := &s.kthreads[i]
		k.kind, k.inPass = kernelBalancer, fl[1]
		if fl[0] {
			k.kind = kernelHousekeeping
		}
		if k.kind == kernelBalancer && s.sc.Sched.Balancer == "drain" {
			k.pending = make([]int, ncpu) // a pass's scratch
		}
	}
	for i, t := range s.threads {
		kernel := t.role == RoleBalancer || t.role == RoleKernel
		if kernel && (t.local < 0 || t.local >= len(s.kthreads) || (s.kthreads[t.local].kind == kernelBalancer) != (t.role == RoleBalancer)) {
			r.in("thread", i)
			r.failf("a kernel thread whose state (%d) is not a kernel thread's of its kind", t.local)
		}
	}

	if r.err != nil {
		return
	}
	r.in("events", -1)
	s.q.ckLoad(r, s)

	r.in("IPIs in flight", -1)
	s.inflight.l = make([]ipiFlight, r.count(5, 1<<20))
	for i := range s.inflight.l {
		x := &s.inflight.l[i]
		k := r.byte()
		if k >= byte(numIPIKinds) {
			r.failf("IPI kind %d is not one", k)
		}
		x.kind = IPIKind(k)
		x.from = r.ref(ncpu)
		x.to = r.n(ncpu)
		x.sent = r.at()
		x.due = r.at()
		x.thread = r.ref(len(s.threads))
	}

	r.in("decisions", -1)
	d := &s.dec
	d.written = r.uv()
	kept := min(d.written, uint64(len(d.buf)))
	if kept > uint64(len(r.b)-r.off)/6 {
		r.failf("%d decisions do not fit in the bytes left", kept)
		kept = 0
	}
	prev := s.now
	for i := d.written - kept; i < d.written && r.err == nil; i++ {
		x := &d.buf[i%uint64(len(d.buf))]
		x.AtNs = prev + r.iv()
		floor := prev // each record is no older than the one before
		if i == d.written-kept {
			floor = 0 // the oldest is anywhere before the clock
		}
		if x.AtNs < floor || x.AtNs > s.now {
			r.failf("decision %d is at %d ns, before the one ahead of it or after the clock %d ns", i, x.AtNs, s.now)
		}
		prev = x.AtNs
		k := r.byte()
		if int(k) >= len(decisionKindNames) {
			r.failf("decision kind %d is not one", k)
		}
		x.Kind = DecisionKind(k)
		x.CPU = int32(r.intIn(-1, int64(ncpu)-1))
		x.Target = int32(r.intIn(-1, int64(ncpu)-1))
		x.Thread = int32(r.intIn(-1, int64(len(s.threads))-1))
		x.Reason = r.str()
		x.Value = r.iv()
	}

	r.in("metrics", -1)
	s.m.ckLoad(r, s)
	r.in("policy", -1)
	s.pol.ckLoad(r, s)
	if r.err != nil {
		return
	}
	s.checkPlaces(r)
	if r.err != nil {
		return
	}
	wl, err := workloadShell(s)
	if err != nil {
		r.failf("%v", err)
		return
	}
	s.wl = wl
	r.in("workload", -1)
	s.wl.ckLoad(r, s)
}

// checkPlaces checks that every thread is in exactly one place, the one its
// state says: blocked (nowhere), running on its CPU, in its CPU's runqueue or
// incoming list, or queued on the policy's shared queue.
func (s *Sim) checkPlaces(r *ckReader) {
	where := make([]int, len(s.threads)) // places found, by thread
	place := func(t *thread, ok bool, what string, cpu int) {
		where[t.id]++
		if !ok && r.err == nil {
			r.in("thread", t.id)
			r.failf("%s %d while it is %s on cpu %d", what, cpu, t.state, t.cpu)
		}
	}
	for _, c := range s.cpus {
		if c.cur != nil {
			place(c.cur, c.cur.state == ThreadRunning && c.cur.cpu == c.id, "running on cpu", c.id)
		}
		for _, t := range c.rq {
			place(t, t.state == ThreadQueued && t.cpu == c.id, "in the runqueue of cpu", c.id)
		}
		for _, t := range c.hiq {
			place(t, t.state == ThreadQueued && t.cpu == c.id && t.class != classFair && !s.fair, "in the RT and DL queue of cpu", c.id)
		}
		for _, t := range c.incoming {
			place(t, t.state == ThreadIncoming && t.cpu == c.id, "on the incoming list of cpu", c.id)
		}
	}
	for _, t := range s.pol.shared() {
		place(t, t.state == ThreadQueued, "on the shared queue, home cpu", t.cpu)
	}
	for i, t := range s.threads {
		want := 1
		if t.state == ThreadBlocked {
			want = 0
		}
		if where[i] != want && r.err == nil {
			r.in("thread", i)
			r.failf("%s, but in %d places", t.state, where[i])
		}
	}
}

// ckSave writes the pending events in the order they will run, (time,
// sequence), each time after the previous one: the heap's layout and its slots
// change nothing in that order, so they are not kept.
func (q *eventQueue) ckSave(w *ckWriter) {
	w.uv(q.seq)
	es := slices.Clone(q.h)
	slices.SortFunc(es, func(a, b heapEntry) int {
		if a.before(&b) {
			return -1
		}
		return 1
	})
	w.n(len(es))
	prevAt, prevSeq := w.now, int64(0)
	for _, x := range es {
		p := &q.slab[x.key&(1<<slotBits-1)]
		seq := int64(x.key >> slotBits)
		w.uv(uint64(x.at - prevAt))
		w.iv(seq - prevSeq)
		prevAt, prevSeq = x.at, seq
		w.byte(byte(p.kind))
		w.iv(int64(p.cpu))
		w.iv(int64(p.arg))
		w.uv(uint64(p.gen))
	}
}

// ckLoad reads the pending events into an empty queue, slots in order: a
// sorted array is a heap.
func (q *eventQueue) ckLoad(r *ckReader, s *Sim) {
	q.seq = r.uv()
	if q.seq >= 1<<(64-slotBits) {
		r.failf("sequence number %d is past the last", q.seq)
	}
	n := r.count(6, 1<<slotBits)
	q.h, q.slab, q.free = make([]heapEntry, 0, n), make([]payload, 0, n), q.free[:0]
	at, seq := s.now, int64(0)
	for i := range n {
		r.idx = i
		at += int64(r.uv())
		seq += r.iv()
		if at < s.now || seq < 0 || uint64(seq) >= q.seq {
			r.failf("event at %d ns, sequence %d: before the clock %d ns or not yet numbered (next %d)", at, seq, s.now, q.seq)
		}
		k := r.byte()
		p := payload{kind: evKind(k), cpu: int32(r.iv()), arg: int32(r.iv()), gen: r.u32()}
		if r.err != nil {
			return
		}
		if err := s.checkEvent(p); err != "" {
			r.failf("%s event: %s", p.kind, err)
			return
		}
		q.h = append(q.h, heapEntry{at: at, key: uint64(seq)<<slotBits | uint64(i)})
		q.slab = append(q.slab, p)
	}
	r.idx = -1
	for i := 1; i < len(q.h); i++ {
		if !q.h[i-1].before(&q.h[i]) {
			r.failf("events %d and %d are out of order or share a sequence number", i-1, i)
			return
		}
	}
}

// checkEvent says what is wrong with a pending event ("" when nothing): the
// CPU, thread or client it names must exist. Workload events are checked by
// the workload (ckLoad).
func (s *Sim) checkEvent(p payload) string {
	switch p.kind {
	case evStepEnd, evIRQ, evIRQEnd, evSpinEnd, evSpinNotice, evWakeDone, evPreemptTimer, evDebtPaid, evTimer, evTick, evDLTimer:
		if p.cpu < 0 || int(p.cpu) >= len(s.cpus) {
			return fmt.Sprintf("cpu %d does not exist", p.cpu)
		}
	}
	switch p.kind {
	case evIRQ:
		switch irqSource(p.arg) {
		case irqIPIWakeup, irqIPIPull, irqIPIDonate, irqDevice, irqTimer:
		default:
			return fmt.Sprintf("interrupt source %d is not one", p.arg)
		}
	case evTimer:
		if p.arg < 0 || int(p.arg) >= len(s.threads) || s.threads[p.arg].role != RoleBalancer && s.threads[p.arg].role != RoleKernel {
			return fmt.Sprintf("thread %d is not a kernel thread", p.arg)
		}
	case evDLTimer:
		if p.arg < 0 || int(p.arg) >= len(s.threads) || s.threads[p.arg].class != classDL {
			return fmt.Sprintf("thread %d is not a deadline task", p.arg)
		}
	case evPacket, evResponse, evConnect, evDevice, evTick, evRTPeriod:
	case evCFSPeriod:
		return "a task group's period timer: a run with task groups has no checkpoint"
	case evScxTimer, evScxWatchdog:
		if k, ok := s.pol.(*ScxKernel); !ok || p.cpu < 0 || int(p.cpu) >= len(s.cpus) || p.kind == evScxWatchdog && k.watchdogNs == 0 {
			return fmt.Sprintf("a %s event without a sched_ext policy that has one", p.kind)
		}
	default:
		if p.kind >= numEvKinds {
			return fmt.Sprintf("kind %d is not one", p.kind)
		}
	}
	return ""
}
