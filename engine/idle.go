package engine

// The idle loop and halting (docs/mechanisms.md, Baseline and Adaptive idle spin;
// OSv's cpu::do_idle(), KVM's kvm_vcpu_halt()).
//
// An idle CPU first asks the policy whether to pull work (idle pull, idlepull.go),
// then spins for its window, polling the incoming list, then halts. An adaptive
// window moves by one of two rules (sched.idle_spin.rule): the published,
// asymmetric one (to the cap on a caught wake, halved after K consecutive halts
// without one) or the symmetric alternative its author measured and rejected
// (doubled on a caught wake, halved on every halt).
//
// On bare metal a halt is cheap. Under KVM it is a VM exit: the host halt-polls
// for its per-vCPU window (grow_halt_poll_ns() x2 from the start value,
// shrink_halt_poll_ns() /2) unless another host task becomes runnable first
// (single_task_running()); a wake that arrives after the poll ends pays the full
// halted-vCPU wake (the host schedules the vCPU back in).
//
// Invariant: a CPU in the idle loop has an empty runqueue when it starts spinning or
// halts; anything queued to it arrives through incoming plus a notice or an IPI.

// enterIdle puts c in its idle loop: the policy's idle hook (idle pull), then spin.
func (s *Sim) enterIdle(c *cpu) {
	c.cur = nil
	s.smtChanged(c)
	s.m.queueChanged(s, c)
	if c.debtNs > 0 {
		s.payDebt(c)
		return
	}
	if s.pol.idleEnter(s, c) {
		s.pickNext(c) // the policy found work (Linux's newidle balance)
		return
	}
	s.startSpin(c)
}

// payDebt spends, before c idles, the overhead it still owes: IPIs sent by the
// thread that just left it (OSv's wake_impl sends the wakeup IPI synchronously,
// before the waker blocks, so that CPU time passed before the CPU went idle), or
// the context switch into a thread that blocked at once. The CPU stays busy,
// running no thread, until evDebtPaid, then reschedules: a wake may have reached
// it meanwhile. An interrupt that arrives first leaves the rest owed (startIRQ).
func (s *Sim) payDebt(c *cpu) {
	c.stepEndNs = s.now + c.debtNs
	c.debtNs = 0
	s.setState(c, CPURunning)
	c.gen++
	s.at(c.stepEndNs, evDebtPaid, c.id, 0, c.gen)
}

func (s *Sim) startSpin(c *cpu) {
	s.setState(c, CPUSpinning)
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisSpin, CPU: int32(c.id), Other: -1, Thread: -1, Arg: int32(c.spinWindow)})
	c.gen++
	if len(c.incoming) > 0 {
		s.at(s.now, evSpinNotice, c.id, 0, c.gen)
		return
	}
	d := c.spinWindow * s.sc.Machine.Costs.SpinIterPs / 1000
	s.at(s.now+d, evSpinEnd, c.id, 0, c.gen)
}

// noticeWhileSpinning: a thread was queued to spinning CPU c; it sees it within one
// poll iteration.
func (s *Sim) noticeWhileSpinning(c *cpu) {
	c.gen++
	s.at(s.now+s.sc.Machine.Costs.SpinIterPs/1000+1, evSpinNotice, c.id, 0, c.gen)
}

// spinNotice: the spinning CPU found work: a caught wake (the adaptive window
// grows).
func (s *Sim) spinNotice(c *cpu) {
	s.caughtWake(c)
	s.pickNext(c)
}

// caughtWake applies the adaptive spin's rule for a wake caught while spinning:
// the asymmetric rule snaps the window to the cap (and resets the halt streak),
// the symmetric one doubles it, up to the cap.
func (s *Sim) caughtWake(c *cpu) {
	c.haltStreak = 0
	if !s.sc.Sched.IdleSpin.Adaptive {
		return
	}
	w, reason := s.spinCap, "wake caught while spinning: window back to the cap"
	if s.symSpin {
		w, reason = min(2*c.spinWindow, s.spinCap), "wake caught while spinning: window doubled (symmetric rule)"
	}
	if w != c.spinWindow {
		s.decide(DecSpinGrow, c.id, -1, -1, reason, w)
		s.m.settle(s) // integrated at the old total until now
		s.m.spinWindowTotal += w - c.spinWindow
		c.spinWindow = w
	}
}

// spinEnd: the window ran out with nothing found: halt. The asymmetric rule
// halves the window after K consecutive such halts, the symmetric one after
// every one; neither goes below the floor.
func (s *Sim) spinEnd(c *cpu) {
	sp := &s.sc.Sched.IdleSpin
	if sp.Adaptive {
		shrink, reason := s.symSpin, "a halt without a caught wake: window halved (symmetric rule)"
		if !s.symSpin {
			c.haltStreak++
			if c.haltStreak >= sp.HaltsBeforeShrink {
				c.haltStreak = 0
				shrink, reason = true, "consecutive halts without a caught wake: window halved"
			}
		}
		if w := max(c.spinWindow/2, sp.Floor); shrink && w != c.spinWindow {
			s.m.settle(s) // integrated at the old total until now
			s.m.spinWindowTotal += w - c.spinWindow
			c.spinWindow = w
			s.decide(DecSpinShrink, c.id, -1, -1, reason, w)
		}
	}
	s.m.halt(s)
	s.setState(c, CPUHalted)
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisHalt, CPU: int32(c.id), Other: -1, Thread: -1})
	c.haltStartNs = s.now
	c.pollEndNs = s.now
	m := &s.sc.Machine
	if m.Platform == "kvm" && m.HostHaltPollNs > 0 && c.hostPollNs > 0 {
		poll := c.hostPollNs
		if m.HostContentionPerS > 0 {
			if cut := s.drawExp(1e9 / m.HostContentionPerS); cut < poll {
				poll = cut
			}
		}
		c.pollEndNs = s.now + poll
	}
	c.gen++
}

// wakeHalted starts bringing halted c back for an interrupt.
func (s *Sim) wakeHalted(c *cpu) {
	costs := &s.sc.Machine.Costs
	blockNs := s.now - c.haltStartNs
	caught := s.now <= c.pollEndNs && c.pollEndNs > c.haltStartNs
	delay := costs.HaltExitNs
	if caught {
		delay += costs.PolledWakeNs
	} else {
		delay += costs.HaltedWakeNs
	}
	s.m.hostPoll(s, c.haltStartNs, min(s.now, c.pollEndNs))
	s.adjustHostPoll(c, blockNs)
	s.setState(c, CPUWaking)
	c.gen++
	s.at(s.now+delay, evWakeDone, c.id, 0, c.gen)
}

// adjustHostPoll is KVM's per-vCPU halt_poll_ns update after a halt of blockNs.
func (s *Sim) adjustHostPoll(c *cpu, blockNs int64) {
	m := &s.sc.Machine
	if m.Platform != "kvm" || m.HostHaltPollNs == 0 {
		return
	}
	switch {
	case blockNs <= c.hostPollNs:
		// The poll caught it (or would have): keep the window.
	case c.hostPollNs > 0 && blockNs > m.HostHaltPollNs:
		c.hostPollNs /= 2
		if c.hostPollNs < m.HostHaltPollStartNs {
			c.hostPollNs = 0
		}
	case c.hostPollNs < m.HostHaltPollNs && blockNs < m.HostHaltPollNs:
		c.hostPollNs = max(c.hostPollNs*2, m.HostHaltPollStartNs)
		c.hostPollNs = min(c.hostPollNs, m.HostHaltPollNs)
	}
}

// wakeDone: the vCPU is back in the guest; it handles the interrupt that woke it.
// A halt that returns with nothing to run goes through the idle loop again,
// including the policy's idle hook.
func (s *Sim) wakeDone(c *cpu) {
	s.startIRQ(c)
}
