package engine

import (
	"fmt"
	"slices"
)

// The classes above sched_ext (docs/mechanisms.md, The sched_ext core, The
// classes above it): under a sched_ext policy, SCHED_FIFO, SCHED_RR and
// SCHED_DEADLINE tasks stay in the kernel's real-time and deadline classes
// (rt.go, rtpush.go, dl.go), which core.c's pick_next_task asks before the
// ext class; the policy never sees them.
//
//   - A woken RT or DL task is placed by its class (select_task_rq_rt,
//     select_task_rq_dl) and preempts a sched_ext task at once
//     (wakeup_preempt: a higher class reschedules the CPU).
//   - A schedule whose prev is a sched_ext task or the idle task runs the
//     ext class's balance first (core.c prev_balance starts at ext: "SCX
//     requires a balance() call before every pick_task()"), then the RT or
//     DL task is picked; one whose prev is an RT or DL task pulls and picks
//     in its class (balance_rt, balance_dl) and reaches ext's balance only
//     when they have nothing.
//   - The sched_ext task that leaves (put_prev_task_scx): stopping(p, true);
//     with slice left it goes back to the head of its local DSQ without
//     enqueue, else through enqueue. Then switch_class: the first time the
//     CPU leaves the ext class for a higher one, the policy's
//     cpu_release(cpu, reason, next) runs, where scx_bpf_reenqueue_local
//     sends every task of the local DSQ back through enqueue with
//     SCX_ENQ_REENQ so that another CPU may run them.
//   - The next balance of the ext class on that CPU calls cpu_acquire(cpu)
//     first (balance_one).
//
// The ext class's tick, slices and watchdog are for its own tasks only;
// RT throttling (rt.go) is what gives sched_ext tasks time on a CPU an RT
// task would hold, as it gives fair tasks under the linux policy: 6.18 has
// no deadline server for the ext class (its fair server serves the fair
// class, which a sched_ext policy has emptied).

// Reasons cpu_release is given (enum scx_cpu_preempt_reason).
const (
	ScxCPUPreemptRT      int64 = 0 // SCX_CPU_PREEMPT_RT
	ScxCPUPreemptDL      int64 = 1 // SCX_CPU_PREEMPT_DL
	ScxCPUPreemptStop    int64 = 2 // SCX_CPU_PREEMPT_STOP
	ScxCPUPreemptUnknown int64 = 3 // SCX_CPU_PREEMPT_UNKNOWN
)

// preemptReasonFor is preempt_reason_from_class for next.
func preemptReasonFor(next *thread) int64 {
	switch {
	case next == nil:
		return ScxCPUPreemptUnknown
	case next.class == classDL:
		return ScxCPUPreemptDL
	case next.class == classRT:
		return ScxCPUPreemptRT
	}
	return ScxCPUPreemptUnknown
}

// aboveWaits says whether an RT or DL task waits on c that would run before
// c's sched_ext task (a higher class: pick_next_task asks it first).
func (k *ScxKernel) aboveWaits(c *cpu) bool { return k.s.nrRT > 0 && queuedHead(c) != nil }

// yieldToAbove is the schedule that a higher class's wakeup_preempt asked
// for on c, whose sched_ext task t runs: prev_balance runs the ext class's
// balance with t as prev (which keeps it when it has slice left, and runs
// dispatch when it has none), then the higher class is picked; t is put
// (putForAbove) when the engine requeues it.
func (k *ScxKernel) yieldToAbove(c *cpu, t *thread) bool {
	k.balance(c, t)
	if k.fair != nil {
		return k.fair.yieldAtStepEnd(k.s, c)
	}
	k.abovePut[c.id] = true
	k.preemptMsg = "a real-time or deadline task is queued here: a higher class than sched_ext's runs first (wakeup_preempt, pick_next_task)"
	return true
}

// putForAbove is put_prev_task_scx for t, leaving c for a higher class's
// task: stopping(p, true); with slice left it goes back to the head of the
// local DSQ without enqueue ("getting preempted by a higher priority
// scheduler class ... Leave it at the head of the local DSQ"), else it goes
// through enqueue; then switch_class.
func (k *ScxKernel) putForAbove(c *cpu, t *thread) {
	s := k.s
	k.chargeSlice(t, c)
	k.left[c.id] = t
	t.state = ThreadQueued
	ok := k.ensureEnabled(t)
	if ok && k.defined&ScxOpStopping != 0 {
		ok = k.call(ScxOpStopping, c.id, t, func() error { return k.ops.Stopping(k, k.handle(t), true) })
	}
	if ok {
		if k.sliceLeft(t) > 0 {
			k.localPut(c, t, true)
		} else {
			ok = k.enqueue(t, c.id, 0)
		}
	}
	k.insertable = nil
	if !ok {
		k.takeBack(t)
		k.fair.requeue(s, c, t)
		return
	}
	k.switchClass(c, queuedHead(c))
}

// switchClass is switch_class for c, leaving the ext class for next's
// (higher) one: the first time since the ext class last balanced here, the
// policy's cpu_release runs (only a policy with cpu_acquire or cpu_release
// has SCX_OPS_HAS_CPU_PREEMPT and so a released state at all).
func (k *ScxKernel) switchClass(c *cpu, next *thread) {
	if k.released[c.id] || k.defined&(ScxOpCPURelease|ScxOpCPUAcquire) == 0 {
		return
	}
	k.released[c.id] = true
	if k.defined&ScxOpCPURelease != 0 {
		k.call(ScxOpCPURelease, c.id, nil, func() error {
			return k.ops.CPURelease(k, c.id, preemptReasonFor(next), k.handle(next))
		})
	}
}

// acquire is balance_one's first step: a CPU the ext class released gets
// cpu_acquire before the ext class balances there again. It reports false
// when the callback ejected the policy.
func (k *ScxKernel) acquire(c *cpu) bool {
	if !k.released[c.id] {
		return true
	}
	k.released[c.id] = false
	if k.defined&ScxOpCPUAcquire == 0 {
		return true
	}
	return k.call(ScxOpCPUAcquire, c.id, nil, func() error { return k.ops.CPUAcquire(k, c.id) })
}

// pickAbove is the part of pick_next_task before the ext class's pick: the
// RT or DL task c runs next, if any, and whether the ext class's balance
// already ran in this schedule.
func (k *ScxKernel) pickAbove(c *cpu) (t *thread, balanced bool) {
	s := k.s
	switch {
	case k.chosen[c.id]:
		return nil, false // an ext-class reschedule chose: nothing above waited
	case k.abovePut[c.id]:
		// yieldToAbove balanced and putForAbove put the ext task.
		k.abovePut[c.id] = false
		if queuedHead(c) == nil {
			return nil, true
		}
		return k.takeAbove(c), true
	case !k.idleSeen[c.id] && k.left[c.id] == nil && c.prevThread != nil && c.prevThread.class != classFair:
		// prev was RT or DL: balance_dl and balance_rt (a pull when nothing
		// of theirs is queued) end prev_balance when they have a task.
		if queuedHead(c) == nil {
			s.pullRT(c)
		}
		if queuedHead(c) == nil {
			return nil, false
		}
		return k.takeAbove(c), false
	}
	// prev was a sched_ext task that blocked, or the idle task:
	// prev_balance starts at the ext class, whose balance runs first.
	k.balance(c, nil)
	h := queuedHead(c)
	if k.fair != nil || h == nil {
		return nil, true
	}
	if k.left[c.id] != nil {
		k.switchClass(c, h) // put_prev_task_scx of the task that blocked
	}
	if k.fair != nil {
		return nil, true
	}
	return k.takeAbove(c), true
}

// takeAbove takes c's first RT or DL task to run: set_next_task_rt's push
// of what else waits (queue_push_tasks), and put_prev_task_idle's
// update_idle(cpu, false) when c was idle.
func (k *ScxKernel) takeAbove(c *cpu) *thread {
	s := k.s
	t := queuedHead(c)
	s.rqRemove(c, t)
	if h := queuedHead(c); h != nil {
		c.cur = t // what runs now, for the push's comparison
		s.pushRT(c, h)
		c.cur = nil
	}
	k.left[c.id] = nil
	if k.idleSeen[c.id] {
		k.idleSeen[c.id] = false
		k.updateIdle(c, false)
	}
	return t
}

// blockedAbove is dequeue_task for an RT or DL task that blocked under a
// sched_ext policy: the deadline class counts a miss (dlBlocked); the
// policy is not told.
func (k *ScxKernel) blockedAbove(t *thread) {
	if t.class == classDL {
		dlBlocked(t, k.s.now)
	}
}

// ReenqueueLocal is scx_bpf_reenqueue_local, which only cpu_release may
// call: every task on this CPU's local DSQ leaves it and goes through
// enqueue with SCX_ENQ_REENQ, in the DSQ's order (reenq_local: first all
// off, then each enqueued, so that one put back is not taken twice). It
// returns how many were.
func (k *ScxKernel) ReenqueueLocal() (int, error) {
	if k.in != ScxOpCPURelease {
		return 0, fmt.Errorf("reenqueue_local: called from %s: only cpu_release may", k.in)
	}
	s := k.s
	c := s.cpus[k.thisCPU]
	tasks := slices.Clone(c.rq)
	for _, t := range tasks {
		s.rqRemove(c, t)
	}
	n := 0
	for i, t := range tasks {
		t.state = ThreadQueued
		if !k.enqueue(t, c.id, ScxEnqReenq) {
			// The policy was ejected: this task and those after it go to
			// the fair class here.
			for _, u := range tasks[i:] {
				k.takeBack(u)
				k.fair.requeue(s, c, u)
			}
			return n, nil
		}
		n++
	}
	k.insertable = nil
	return n, nil
}
