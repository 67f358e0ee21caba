package engine

// Rescheduling an idle CPU, and the CPUs' first schedule at time 0
// (kernel/sched/core.c resched_curr, wakeup_preempt; the idle loop's
// schedule_idle).

// reschedIdle is resched_curr on c when it runs the idle task: a wake or an
// insert made c's runqueue hold a sched_ext task, which is above the idle
// class (wakeup_preempt), so c schedules and its balance runs dispatch. A
// CPU running a task is left alone (wakeup_preempt_scx does nothing between
// sched_ext tasks), and so is one that will schedule anyway: in an interrupt
// (its exit schedules), paying what it owes before idling, coming out of a
// halt, or with a kick already on its way. A CPU polling in its idle loop
// sees the flag without an IPI (set_nr_if_polling); a halted one gets one.
// from is the CPU that made the change (-1: none).
func (k *ScxKernel) reschedIdle(c *cpu, from int, t *thread) {
	s := k.s
	if c.cur != nil || c.state == CPUIRQ || c.state == CPUWaking || c.state == CPURunning {
		return
	}
	thread := -1
	if t != nil {
		thread = t.id
	}
	if c.wakePending {
		s.decide(DecIPISuppressed, max(from, 0), c.id, thread, "a kick is already pending on the selected CPU", int64(c.load()))
		s.m.suppressedIPI(s)
		return
	}
	if c.state == CPUSpinning {
		s.decide(DecIPISuppressed, max(from, 0), c.id, thread, "the selected CPU polls in its idle loop and sees the reschedule (set_nr_if_polling)", int64(c.load()))
		s.m.suppressedIPI(s)
		s.noticeWhileSpinning(c)
		return
	}
	c.wakePending = true
	s.decide(DecIPISent, max(from, 0), c.id, thread, "resched_curr: the selected CPU is idle and its runqueue got a task (wakeup_preempt)", int64(c.load()))
	s.sendIPI(from, c, IPIWakeup, thread)
}

// boot is c's first schedule at time 0: every CPU runs schedule() before it
// first idles, so its balance (balance_one, dispatch) sees what was queued
// before it, and a kick sent before then is not lost (kick_cpus_irq_workfn
// only makes a CPU schedule, which this does).
func (k *ScxKernel) boot(c *cpu) { k.s.pickNext(c) }

// wakeHead queues a waking task that the policy inserted into a local DSQ
// with ENQ_HEAD or ENQ_PREEMPT at that DSQ's head, which the engine's wake
// path (its incoming lists, drained at their tail) cannot, then applies
// local_dsq_post_enq; the wake is then placed as already queued.
func (k *ScxKernel) wakeHead(t *thread, selected, from int) placement {
	s := k.s
	cpu := k.wakeLocal
	if cpu == wakeSelected {
		cpu = selected
	}
	if t.cpu != cpu {
		s.migrateCount(t, t.cpu, cpu)
	}
	c := s.cpus[cpu]
	k.localPut(c, t, true)
	k.postEnq(c, t, k.wakeEnq, from)
	k.wakeLocal = wakeHeadDone
	return placement{cpu: cpu, shared: true, reason: "the policy inserted it at the head of a CPU's local DSQ (ENQ_HEAD or ENQ_PREEMPT)"}
}
