package engine

// The sched_ext core's schedule: the tick, a reschedule of a running task,
// the balance that fills a CPU's local DSQ, and the pick (kernel/sched/ext.c
// task_tick_scx, balance_one, scx_dispatch_sched, do_pick_task_scx,
// put_prev_task_scx, dequeue_task_scx).
//
// A running task's slice (p->scx.slice) is charged as it runs
// (update_curr_scx): ScxTask.Slice reads what is left, and a task that
// stops keeps what is left for its next run. A spent slice is noticed at
// the CPU's tick, which then asks for a schedule (need_resched, c.cfs.resched,
// the flag the Linux classes use too); so does a kick. A schedule with the
// task still runnable first runs the balance with it as prev: it keeps
// running when it has slice left, or when no other task is found (its slice
// refilled); otherwise the CPU takes the first task of its local DSQ, and
// only then does prev stop and go through enqueue (put_prev_task_scx).

// scxDispatchMaxLoops is SCX_DSP_MAX_LOOPS: how many times balance_one runs
// dispatch in a row while each run moves tasks but none lands here.
const scxDispatchMaxLoops = 32

// tick is task_tick_scx on c's tick: the slice is charged (it is, as the
// task runs), ops.tick runs, and a spent slice asks for a schedule
// (resched_curr), which the tick interrupt's exit runs.
func (k *ScxKernel) tick(c *cpu) {
	t := c.cur
	if k.fair != nil || t == nil {
		return
	}
	if k.defined&ScxOpTick != 0 && !k.call(ScxOpTick, c.id, t, func() error { return k.ops.Tick(k, k.handle(t)) }) {
		return
	}
	if k.sliceLeft(t) == 0 {
		c.cfs.resched = true
	}
}

// yieldAtStepEnd: a reschedule point runs a schedule only when one was asked
// for (the tick with a spent slice, a kick); its balance decides whether the
// running task keeps the CPU.
func (k *ScxKernel) yieldAtStepEnd(s *Sim, c *cpu) bool {
	if k.fair != nil {
		return k.fair.yieldAtStepEnd(s, c)
	}
	k.preemptMsg = ""
	if !c.cfs.resched {
		return false
	}
	c.cfs.resched = false
	t := c.cur
	if t.class != classFair {
		return hiNext(c) != t // an RT or DL task runs: its classes decide (scx_classes.go)
	}
	if k.aboveWaits(c) {
		return k.yieldToAbove(c, t)
	}
	found := k.balance(c, t)
	if k.fair != nil {
		return k.fair.yieldAtStepEnd(s, c)
	}
	if found && k.sliceLeft(t) == 0 && len(c.rq) > 0 {
		k.chosen[c.id] = true
		k.preemptMsg = "its slice (" + fmtMs(k.task(t).granted) + " ms as inserted) is spent, run out or zeroed by a KICK_PREEMPT or the policy, and the CPU found another task (task_tick_scx, balance_one)"
		return true
	}
	if !found && k.flags&ScxOpsEnqLast != 0 {
		// SCX_OPS_ENQ_LAST: prev is not kept; the CPU picks idle and prev
		// goes through enqueue with ENQ_LAST (put_prev_task_scx).
		k.chosen[c.id] = true
		return true
	}
	// prev keeps running (SCX_RQ_BAL_KEEP): it has slice left, or nothing
	// else was found and its spent slice is refilled (do_pick_task_scx,
	// refill_task_slice_dfl).
	if k.fair == nil && k.sliceLeft(t) == 0 {
		k.setSlice(t, k.sliceNs)
		k.task(t).granted = k.sliceNs
	}
	return false
}

func (k *ScxKernel) timeSlices() bool { return false }

func (k *ScxKernel) preemptReason() string {
	if k.fair != nil {
		return k.fair.preemptReason()
	}
	if k.preemptMsg == "" {
		return "it called sched_yield" // a yield without a balance: reschedule names it
	}
	msg := k.preemptMsg
	k.preemptMsg = ""
	return msg
}

// balance is balance_one for c, prev the task that leaves it still runnable
// (nil when it blocked or the CPU was idle). It reports whether c has a
// task to run: its local DSQ holds one, or prev has slice left. dispatch's
// prev is the CPU's previous task when it was a sched_ext task that just
// left, runnable or not (prev_on_scx).
func (k *ScxKernel) balance(c *cpu, prev *thread) bool {
	s := k.s
	if !k.acquire(c) {
		return false
	}
	if prev != nil && k.sliceLeft(prev) > 0 {
		return true
	}
	if len(c.rq) > 0 {
		return true
	}
	if k.moveToLocal(&k.global, c) {
		return true
	}
	if k.defined&ScxOpDispatch == 0 {
		return false
	}
	var dprev ScxTask
	switch {
	case prev != nil:
		dprev = k.handle(prev)
	case k.left[c.id] != nil:
		dprev = k.handle(k.left[c.id])
	}
	for loops := scxDispatchMaxLoops; ; {
		k.dispatched = 0
		if !k.call(ScxOpDispatch, c.id, nil, func() error { return k.ops.Dispatch(k, c.id, dprev) }) {
			return false
		}
		if prev != nil && k.sliceLeft(prev) > 0 {
			return true // the policy gave prev more slice
		}
		if len(c.rq) > 0 || k.moveToLocal(&k.global, c) {
			return true
		}
		if k.dispatched == 0 {
			return false
		}
		if loops--; loops == 0 {
			// The policy keeps moving tasks that land elsewhere: end this
			// schedule and kick self for another (scx_kick_cpu(sch, cpu, 0)).
			if !c.wakePending {
				c.wakePending = true
				s.decide(DecIPISent, c.id, c.id, -1, "dispatch ran 32 times (SCX_DSP_MAX_LOOPS) without a task for this CPU: kick self", 0)
				s.sendIPI(-1, c, IPIWakeup, -1)
			}
			return false
		}
	}
}

// requeue is put_prev_task_scx for a task whose turn ended while runnable:
// the CPU's next task was chosen first (the head of its local DSQ, which
// the balance filled), then prev stops and goes through enqueue. With c nil
// (a wake placed on a shared DSQ) the task is already queued.
func (k *ScxKernel) requeue(s *Sim, c *cpu, t *thread) {
	if k.fair != nil {
		k.fair.requeue(s, c, t)
		return
	}
	if t.class != classFair {
		// An RT or DL task: a preempted one keeps the head of its
		// priority (put_prev_task_rt), as under the linux policy.
		k.s.putPrevRunnable(c, t)
		return
	}
	if c != nil && k.abovePut[c.id] {
		k.putForAbove(c, t)
		return
	}
	if c == nil {
		// A wake queued on a shared DSQ: the task is on its selected CPU's
		// runqueue, which wakeup_preempt reschedules when it runs the idle
		// task (resched_curr; wakeup_preempt_scx does nothing between
		// sched_ext tasks). One put at the head of a local DSQ was
		// (wakeHead).
		if k.wakeLocal != wakeHeadDone {
			k.reschedIdle(s.cpus[t.cpu], k.wakeFrom, t)
		}
		return
	}
	k.chargeSlice(t, c)
	var flags int64
	if k.chosen[c.id] {
		if len(c.rq) > 0 {
			k.next[c.id] = c.rq[0]
			s.rqRemove(c, c.rq[0])
		} else {
			flags = ScxEnqLast
			k.preemptMsg = "its slice is spent and nothing else was found: OPS_ENQ_LAST puts it through enqueue with ENQ_LAST (put_prev_task_scx)"
		}
	}
	k.left[c.id] = t
	t.state = ThreadQueued
	ok := k.ensureEnabled(t)
	if ok && k.defined&ScxOpStopping != 0 {
		ok = k.call(ScxOpStopping, c.id, t, func() error { return k.ops.Stopping(k, k.handle(t), true) })
	}
	if ok {
		ok = k.enqueue(t, c.id, flags)
	}
	k.insertable = nil
	if !ok {
		k.takeBack(t)
		k.fair.requeue(s, c, t)
	}
}

// pick is do_pick_task_scx: the task the reschedule chose, or the balance
// (local DSQ, global DSQ, dispatch) and the local DSQ's head; running is
// called for it (set_next_task_scx).
func (k *ScxKernel) pick(s *Sim, c *cpu) *thread {
	if k.fair != nil {
		k.putBackNext(c)
		return k.fair.pick(s, c)
	}
	k.claimed[c.id] = false
	var t *thread
	balanced := false
	if s.nrRT > 0 {
		var above *thread
		if above, balanced = k.pickAbove(c); above != nil {
			return above
		}
		if k.fair != nil {
			return k.fair.pick(s, c)
		}
	}
	if k.chosen[c.id] {
		// The reschedule chose before prev was put: its choice, or, after
		// an ENQ_LAST put, whatever that put on the local DSQ (an idle
		// CPU's local insert reschedules it at once, local_dsq_post_enq).
		t, k.next[c.id], k.chosen[c.id] = k.next[c.id], nil, false
		if t == nil {
			t = rqPopHead(s, c)
		}
	} else {
		if !balanced {
			k.balance(c, nil)
		}
		t = rqPopHead(s, c)
	}
	k.left[c.id] = nil
	if t != nil && k.fair == nil && k.idleSeen[c.id] {
		// put_prev_task_idle: the CPU leaves idle (__scx_update_idle).
		k.idleSeen[c.id] = false
		if !k.updateIdle(c, false) {
			s.rqInsert(c, t)
			return k.fair.pick(s, c)
		}
	}
	if t != nil && k.fair == nil && k.defined&ScxOpRunning != 0 {
		if !k.call(ScxOpRunning, c.id, t, func() error { return k.ops.Running(k, k.handle(t)) }) {
			s.rqInsert(c, t) // back at the head of its queue: the fair class picks now
			return k.fair.pick(s, c)
		}
	}
	if t != nil && k.fair != nil {
		s.rqInsert(c, t)
		return k.fair.pick(s, c)
	}
	return t
}

// putBackNext returns a chosen task to c's runqueue when the policy was
// ejected between the choice and the pick.
func (k *ScxKernel) putBackNext(c *cpu) {
	if t := k.next[c.id]; t != nil {
		k.next[c.id] = nil
		k.s.rqInsert(c, t)
	}
	k.left[c.id], k.chosen[c.id] = nil, false
}

// blocked: the running task blocked (dequeue_task_scx): its slice is
// charged, then stopping, quiescent with SCX_DEQ_SLEEP; it is the prev of
// the dispatch that follows.
func (k *ScxKernel) blocked(s *Sim, c *cpu, t *thread) {
	if k.fair != nil {
		k.fair.blocked(s, c, t) // ejected: the fair class's dequeue_task
		return
	}
	if t.class != classFair {
		k.blockedAbove(t)
		return
	}
	k.chargeSlice(t, c)
	k.left[c.id] = t
	if k.defined&ScxOpStopping != 0 {
		if !k.call(ScxOpStopping, c.id, t, func() error { return k.ops.Stopping(k, k.handle(t), false) }) {
			return
		}
	}
	if k.defined&ScxOpQuiescent != 0 {
		k.call(ScxOpQuiescent, c.id, t, func() error { return k.ops.Quiescent(k, k.handle(t), ScxDeqSleep) })
	}
}

// chargeSlice makes t's slice what is left of it as it leaves c
// (update_curr_scx): the rest carries over to its next run.
func (k *ScxKernel) chargeSlice(t *thread, c *cpu) {
	st := k.task(t)
	if st.slice != ScxSliceInf {
		st.slice = max(st.slice-(k.s.now-c.dispatchNs), 0)
	}
}

// idleEnter: c goes idle, which sets its idle bit again, and tells the
// policy when it comes from running a task (set_next_task_idle,
// __scx_update_idle: update_idle(cpu, true)).
func (k *ScxKernel) idleEnter(s *Sim, c *cpu) bool {
	if k.fair != nil {
		return k.fair.idleEnter(s, c)
	}
	k.claimed[c.id] = false
	if k.idleSeen[c.id] {
		return false // idle to idle: no transition (__scx_update_idle)
	}
	k.idleSeen[c.id] = true
	if !k.updateIdle(c, true) {
		return k.fair.idleEnter(s, c)
	}
	return false
}

// updateIdle is __scx_update_idle's call of update_idle(cpu, idle) for c's
// transition, made after the built-in idle mask took it (update_builtin_idle
// comes first, so the policy sees c idle, or not, in the mask). It reports
// false when the callback ejected the policy.
func (k *ScxKernel) updateIdle(c *cpu, idle bool) bool {
	if k.defined&ScxOpUpdateIdle == 0 {
		return true
	}
	k.notifyCPU, k.notifyIdle = c.id+1, idle
	ok := k.call(ScxOpUpdateIdle, c.id, nil, func() error { return k.ops.UpdateIdle(k, c.id, idle) })
	k.notifyCPU = 0
	return ok
}
