package engine

// Wakeups, IPIs and interrupts (docs/mechanisms.md, Baseline; OSv's
// thread::wake_impl(), cpu::send_wakeup_ipi() and arch/x64/exceptions.cc's
// interrupt()).
//
// A woken thread goes where the policy places it (OSv: its home CPU). Under OSv
// every wake goes on the target's incoming list, the waker's own CPU included
// (wake_impl pushes to incoming_wakeups and sets the waker's bit of the mask). A
// wake for another CPU sends a wakeup IPI only if no wake was already waiting
// there, the target is not spinning in its idle loop, and its load is at most 1
// (the three suppression conditions); otherwise the target finds the thread at its
// next reschedule point or while it spins. A wake on the waker's own CPU sends no
// IPI: if it is the first wake waiting there it sets need_reschedule, and the
// waker's CPU reschedules at once (preempt_enable(), or the interrupt's exit);
// until then it counts as a wake already pending for other CPUs' wakes.
//
// Invariant: a thread is in exactly one place: blocked, on one CPU's incoming list,
// in one runqueue, or running on one CPU.

// irqSource says what raised an interrupt.
type irqSource uint8

const (
	irqIPIWakeup irqSource = irqSource(IPIWakeup)
	irqIPIPull   irqSource = irqSource(IPIPull)
	irqIPIDonate irqSource = irqSource(IPIDonate)
	irqDevice    irqSource = 10 // NIC or storage completion
	irqTimer     irqSource = 11 // a kernel thread's timer
	irqTick      irqSource = 12 // the periodic scheduler tick (tick.go)
)

// irqWork is the set of things an interrupt handler does at its exit.
type irqWork struct {
	pull bool // a pull request to serve (this CPU is the victim)
}

// wake makes t runnable. from is the CPU whose thread (or interrupt) wakes it, or
// -1 for a wake from outside the machine; sync marks a WAKE_SYNC wakeup (the waker
// is about to block, as socket writes are), which only some policies use.
func (s *Sim) wake(t *thread, from int, sync bool) {
	if t.state != ThreadBlocked {
		return // already runnable: the wake is absorbed
	}
	t.wokenAtNs = s.now
	s.deliverWake(t, from, s.pol.placeWake(s, t, from, sync))
}

// deliverWake queues t, being woken by CPU from (-1: from outside), where p
// places it.
func (s *Sim) deliverWake(t *thread, from int, p placement) {
	if p.shared {
		s.decide(DecWakePlace, max(from, 0), -1, t.id, p.reason, 0)
		s.vis.add(VisEvent{AtNs: s.now, Kind: VisWake, CPU: -1, Other: int32(from), Thread: int32(t.id)})
		s.pol.requeue(s, nil, t)
		return
	}
	if p.cpu != t.cpu {
		s.migrateCount(t, t.cpu, p.cpu)
	}
	t.cpu = p.cpu
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisWake, CPU: int32(p.cpu), Other: int32(from), Thread: int32(t.id)})
	tc := s.cpus[p.cpu]
	if p.cpu == from && (tc.cur != nil || tc.state == CPUIRQ) {
		// The waker runs on the wakee's CPU (a thread, or an interrupt handler):
		// no IPI is needed.
		if !p.viaIncoming {
			// The waker's step end (or its interrupt's exit) is a reschedule
			// point, where the wakee may preempt.
			s.decide(DecWakePlace, from, p.cpu, t.id, p.reason, 0)
			s.rqInsert(tc, t)
			if (s.fair || t.class != classFair) && !s.wakePreempt(tc, t) && t.class != classFair {
				s.pushRT(tc, t)
			}
			return
		}
		s.wakeOwnCPU(tc, t)
		return
	}
	// A wake "from" a CPU that runs nothing cannot be that CPU's (only a test
	// makes one): it is treated as a wake from elsewhere.
	s.decide(DecWakePlace, max(from, 0), p.cpu, t.id, p.reason, 0)
	if (s.fair || t.class != classFair) && tc.cur != nil {
		s.wakeBusyFair(tc, t, from) // under sched_ext, an RT or DL wakee's wakeup_preempt
		return
	}
	s.enqueueRemote(tc, t, from, remoteWake)
}

// wakeBusyFair is ttwu_do_activate on a busy CPU c of the linux policy: the
// waker queues t on c's runqueue itself (same LLC, so no wake list) and
// checks wakeup preemption; only a preempting wake sends c a reschedule IPI
// (resched_curr), and none when c already has one coming.
func (s *Sim) wakeBusyFair(c *cpu, t *thread, from int) {
	already := c.cfs.resched || c.wakePending
	s.rqInsert(c, t)
	if !s.wakePreempt(c, t) {
		s.decide(DecIPISuppressed, max(from, 0), c.id, t.id, "the wakee does not preempt the running task (wakeup_preempt): it waits for the next pick", int64(c.load()))
		s.m.suppressedIPI(s)
		if t.class != classFair {
			s.pushRT(c, t)
		}
		return
	}
	if already {
		s.decide(DecIPISuppressed, max(from, 0), c.id, t.id, "a reschedule is already pending on the target", int64(c.load()))
		s.m.suppressedIPI(s)
		return
	}
	c.wakePending = true
	reason := "wakeup preemption: the wakee is eligible with an earlier deadline (check_preempt_wakeup_fair)"
	if t.class != classFair {
		reason = "wakeup preemption: the wakee's class or priority is above the running task's (wakeup_preempt)"
	}
	s.decide(DecIPISent, max(from, 0), c.id, t.id, reason, int64(c.load()))
	s.sendIPI(from, c, IPIWakeup, t.id)
}

// wakeOwnCPU is wake_impl for a wakee homed on the waker's CPU c: it goes on c's
// incoming list like any wake. If it is the first wake waiting there (the first
// to set a bit of incoming_wakeups_mask), need_reschedule is set; c reschedules
// at the waker's next preemption point, which in the engine is right after the
// wake (the step's end, the interrupt's exit, or the switch-in that ran the
// waker's program). Until then, a wake from another CPU finds a wake already
// pending here and sends no IPI.
func (s *Sim) wakeOwnCPU(c *cpu, t *thread) {
	reason := "woken on its home CPU, the waker's own: queued on its incoming list, need_reschedule set"
	if len(c.incoming) > 0 {
		reason = "woken on its home CPU, the waker's own, behind wakes already pending there (need_reschedule not set)"
	} else {
		c.needResched = true
	}
	s.decide(DecWakePlace, c.id, c.id, t.id, reason, 0)
	t.state = ThreadIncoming
	t.cpu = c.id
	c.incoming = append(c.incoming, t)
	s.m.queueChanged(s, c)
}

// remoteKind is how a thread reaches another CPU's incoming list; each path
// decides about the IPI its own way in OSv.
type remoteKind uint8

const (
	remoteWake    remoteKind = iota // thread::wake_impl
	remoteBalance                   // load_balance's push: min->send_wakeup_ipi()
	remoteDonate                    // donate_to_puller: wakeup_ipi.send(dst), unconditional
)

// enqueueRemote puts t on c's incoming list and applies the IPI rule of the path
// that brought it there.
func (s *Sim) enqueueRemote(c *cpu, t *thread, from int, how remoteKind) {
	// wake_impl IPIs only when it is the first to set a bit of the target's
	// incoming_wakeups_mask (test_all_and_set): wakes already waiting there mean
	// the target has been told, or will look at its next reschedule.
	pending := how == remoteWake && len(c.incoming) > 0
	t.state = ThreadIncoming
	t.cpu = c.id
	c.incoming = append(c.incoming, t)
	s.m.queueChanged(s, c)
	if how == remoteDonate {
		// The donor's wakeup to the puller is unconditional: it may be spinning.
		s.sendIPI(from, c, IPIDonate, t.id)
		return
	}
	spinning := c.state == CPUSpinning && c.cur == nil
	if spinning {
		// A spinning CPU polls its incoming list: it sees the thread by itself.
		s.noticeWhileSpinning(c)
	}
	send, reason := s.pol.wakeIPI(s, c, pending, spinning)
	if !send {
		s.decide(DecIPISuppressed, from, c.id, t.id, reason, int64(c.load()))
		s.m.suppressedIPI(s)
		return
	}
	c.wakePending = true
	s.decide(DecIPISent, from, c.id, t.id, reason, int64(c.load()))
	s.sendIPI(from, c, IPIWakeup, t.id)
}

// sendIPI sends an IPI of kind from CPU `from` to c. The sender pays IPISendNs of
// CPU time; the target gets the interrupt after the delivery latency, plus the cost
// of waking a halted vCPU.
func (s *Sim) sendIPI(from int, c *cpu, kind IPIKind, forThread int) {
	costs := &s.sc.Machine.Costs
	if from >= 0 {
		s.cpus[from].debtNs += costs.IPISendNs
	}
	s.m.ipi(s, kind)
	arrive := s.now + costs.IPILatencyNs
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisIPISend, IPI: kind, CPU: int32(from), Other: int32(c.id), Thread: int32(forThread), Arg: int32(arrive - s.now)})
	s.inflight.add(ipiFlight{kind: kind, from: from, to: c.id, sent: s.now, due: arrive, thread: forThread})
	s.at(arrive, evIRQ, c.id, int(kind), 0)
}

// raiseIRQ delivers a device or timer interrupt to c whose handler wakes t.
func (s *Sim) raiseIRQ(c *cpu, t *thread, src irqSource) {
	c.irqWakes = append(c.irqWakes, t)
	s.irqArrive(c, src)
}

// irqArrive: an interrupt reaches c. A halted vCPU is first brought back (expensive
// unless the host catches it while halt-polling); a running CPU pauses its step.
func (s *Sim) irqArrive(c *cpu, src irqSource) {
	if src <= irqIPIDonate {
		s.inflight.arrived(c.id, IPIKind(src), s.now)
		s.vis.add(VisEvent{AtNs: s.now, Kind: VisIPIArrive, IPI: IPIKind(src), CPU: -1, Other: int32(c.id), Thread: -1})
	}
	if src == irqIPIPull {
		c.irqWork.pull = true
	}
	switch c.state {
	case CPUHalted:
		s.wakeHalted(c)
		return
	case CPUWaking:
		return // handled when the vCPU is back in
	case CPUIRQ:
		// Interrupts arriving during a handler are handled by the same exit.
		c.irqUntilNs += s.sc.Machine.Costs.IRQHandleNs
		c.gen++
		s.at(c.irqUntilNs, evIRQEnd, c.id, 0, c.gen)
		return
	}
	s.startIRQ(c)
}

// startIRQ enters the interrupt handler on c (running or spinning).
func (s *Sim) startIRQ(c *cpu) {
	if c.cur != nil {
		// Pause the step: what is left resumes after the handler. The segment goes
		// on through the handler (it is charged at the interrupt's exit).
		c.cur.remainingNs = s.workLeft(c) // the overhead not yet spent included
		c.irqPaused = true
		c.irqFromIdl = false
	} else {
		if c.state == CPURunning {
			// Interrupted while paying what it owed before idling (payDebt): the
			// rest stays owed, for the next thread or the next idle entry.
			c.debtNs += max(c.stepEndNs-s.now, 0)
		}
		c.irqPaused = false
		c.irqFromIdl = c.state == CPUSpinning
	}
	c.irqUntilNs = s.now + s.sc.Machine.Costs.IRQHandleNs
	c.gen++
	s.setState(c, CPUIRQ)
	s.at(c.irqUntilNs, evIRQEnd, c.id, 0, c.gen)
}

// irqEnd: the handler is done. As in OSv's interrupt() (arch/x64/exceptions.cc),
// the handlers run first (a pull request is served, device and timer handlers
// wake their threads), then sched::preempt() reschedules at interrupt exit: the
// incoming list is drained and a woken thread with less runtime preempts the
// interrupted one right away. The interrupt's time is the interrupted thread's.
func (s *Sim) irqEnd(c *cpu) {
	c.wakePending = false
	if c.irqWork.pull {
		c.irqWork.pull = false
		s.pol.servePull(s, c)
	}
	for _, t := range c.irqWakes {
		s.wake(t, c.id, false)
	}
	clear(c.irqWakes)
	c.irqWakes = c.irqWakes[:0]
	if c.irqPaused {
		c.irqPaused = false
		s.chargeRuntime(c)
		s.setState(c, CPURunning)
		s.reschedule(c)
		return
	}
	if c.irqFromIdl && (len(c.rq) > 0 || len(c.incoming) > 0) {
		s.caughtWake(c) // work arrived while the CPU was spinning
	}
	s.pickNext(c)
}

// drainIncoming moves c's incoming threads into its runqueue
// (handle_incoming_wakeups, which every reschedule runs first).
func (s *Sim) drainIncoming(c *cpu) {
	c.needResched = false
	if len(c.incoming) > 0 { // inlined, the call is only made when there is work
		s.moveIncoming(c)
	}
}

// moveIncoming moves c's incoming threads into its runqueue. Not inlined, so
// that drainIncoming is.
//
//go:noinline
func (s *Sim) moveIncoming(c *cpu) {
	for _, t := range c.incoming {
		s.rqInsert(c, t)
	}
	clear(c.incoming)
	c.incoming = c.incoming[:0]
}
