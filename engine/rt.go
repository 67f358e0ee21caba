package engine

import "schedplay/rtapp"

// The real-time class as kernel/sched/rt.c runs it (Linux 6.18), and the
// order of the classes (core.c's pick_next_task: stop, dl, rt, fair, idle),
// under the linux policy (docs/mechanisms.md, The Linux reference).
//
// A SCHED_FIFO or SCHED_RR task has a priority of 1 to 99. The highest
// runnable one on a CPU runs, before any fair task, and a woken one preempts
// a lower one at once (wakeup_preempt). Equal priorities run in order of
// arrival; a preempted task keeps its place at the head of its priority
// (it never left the rt_rq), a woken one goes to the tail. SCHED_RR's
// timeslice (sched_rr_timeslice, 100 ms, counted in ticks by task_tick_rt)
// sends it behind its equals when it runs out.
//
// Across CPUs: a woken RT task stays on its CPU unless that CPU runs an RT
// task of its priority or higher (select_task_rq_rt), and then goes to the
// CPU running the lowest priority (find_lowest_rq: idle and fair CPUs first,
// its previous CPU preferred); a queued RT task that cannot run is pushed to
// such a CPU (push_rt_task), and a CPU about to run a fair task or go idle
// pulls the highest queued RT task from another (pull_rt_task).
//
// What keeps fair tasks alive under RT load is RT throttling
// (sched_rt_runtime_exceeded, do_sched_rt_period_timer): a CPU's RT tasks
// may run sched_rt_runtime_us (950 ms) of each sched_rt_period_us (1 s),
// then wait for the period's end while fair tasks run or the CPU idles. On
// this project's 6.18 kernel (CONFIG_RT_GROUP_SCHED) a SCHED_FIFO hog alone
// on a CPU idles 50 ms of every second, which is throttling's doing; the
// fair server (dl_server, 50 ms of 1 s, deferred) would give fair tasks the
// same window under that load and is not modelled apart from it.

// A task's class, in pick order from the top (sched_class).
const (
	classFair uint8 = iota // the zero value: every task starts fair
	classRT
	classDL
)

// rtEntity is a task's sched_rt_entity.
type rtEntity struct {
	prio    int  // rt_priority, 1-99
	rr      bool // SCHED_RR
	rrTicks int  // time_slice, in ticks
	// head: queue it at the head of its priority (a preempted task never
	// left its place); expired: its RR timeslice ran out, so its equals go
	// first.
	head, expired bool
}

// rank orders the classes in the queue: deadline, real-time, fair.
func rank(t *thread) uint8 {
	switch t.class {
	case classDL:
		return 0
	case classRT:
		return 1
	}
	return 2
}

// runsBefore says whether x is picked before t on one CPU (x queued, t
// arriving): by class, then by deadline (DL), priority (RT) or virtual
// deadline (fair); equals keep their order of arrival, unless t goes to
// the head of its priority.
func runsBefore(x, t *thread) bool {
	if rx, rt := rank(x), rank(t); rx != rt {
		return rx < rt
	}
	switch t.class {
	case classDL:
		return x.dl.deadline <= t.dl.deadline
	case classRT:
		if t.rt.head {
			return x.rt.prio > t.rt.prio
		}
		return x.rt.prio >= t.rt.prio
	}
	return x.fair.deadline <= t.fair.deadline
}

// linuxInsert puts t in c's queue in pick order: rq under the linux policy,
// hiq (the RT and DL classes' own) under a sched_ext policy.
func (s *Sim) linuxInsert(c *cpu, t *thread) {
	q := &c.rq
	if !s.fair {
		q = &c.hiq
	}
	i := len(*q)
	*q = append(*q, t)
	for i > 0 && !runsBefore((*q)[i-1], t) {
		(*q)[i] = (*q)[i-1]
		i--
	}
	(*q)[i] = t
	t.rt.head = false
}

// linuxEnqueue is enqueue_task for t on c under the linux policy.
func (s *Sim) linuxEnqueue(c *cpu, t *thread) {
	switch t.class {
	case classFair:
		s.fairEnqueue(c, t)
	case classDL:
		s.dlEnqueue(c, t)
	default:
		if c.cur != nil {
			s.chargeRuntime(c)
		}
		s.startRTPeriod()
		s.linuxInsert(c, t)
	}
}

// setRTPolicy makes t a SCHED_FIFO or SCHED_RR task of priority prio.
func (s *Sim) setRTPolicy(t *thread, p rtapp.Policy, prio int) {
	t.class = classRT
	t.rt = rtEntity{prio: prio, rr: p == rtapp.SchedRR, rrTicks: s.rrTicks()}
	s.nrRT++
}

// rrTicks is sched_rr_timeslice in ticks (RR_TIMESLICE: 100 ms, at least
// one tick).
func (s *Sim) rrTicks() int {
	return max(1, int(s.sc.Sched.RRTimesliceMs*1_000_000/s.tickNs))
}

// rtRunnable says whether c may run its RT tasks now (not throttled).
func rtRunnable(c *cpu) bool { return !c.rtThrottled }

// queuedHead is the first task of c's queue its class order lets run now:
// a DL task, or an RT task unless c's RT tasks are throttled; nil when only
// fair or sched_ext tasks (or none) wait. Under a sched_ext policy the RT
// and DL tasks are on hiq; under linux on rq, hiq being empty.
func queuedHead(c *cpu) *thread {
	if t, end := runnableHead(c, c.hiq); end {
		return t
	}
	t, _ := runnableHead(c, c.rq)
	return t
}

// runnableHead is queuedHead over one queue; end reports that the scan
// stopped (a task found, or the fair class reached).
func runnableHead(c *cpu, q []*thread) (t *thread, end bool) {
	for _, t := range q {
		switch {
		case t.class == classDL && dlRunnable(t):
			return t, true
		case t.class == classRT && rtRunnable(c):
			return t, true
		case t.class == classFair:
			return nil, true
		}
	}
	return nil, false
}

// linuxNext is what pick_next_task would run on c now, c.cur included: the
// classes in order, then the fair class's pick.
func (s *Sim) linuxNext(c *cpu) *thread {
	if t := hiNext(c); t != nil {
		return t
	}
	return s.pickNextFair(c, true)
}

// hiNext is what the deadline and real-time classes would run on c now,
// c.cur included, or nil when they have nothing (the class below picks).
func hiNext(c *cpu) *thread {
	head := queuedHead(c)
	if cur := c.cur; cur != nil && (cur.class == classDL && dlRunnable(cur) || cur.class == classRT && rtRunnable(c)) {
		switch {
		case head == nil:
			return cur
		case cur.class == classRT && cur.rt.expired && head.class == classRT && head.rt.prio == cur.rt.prio:
			return head // its RR timeslice is spent: an equal goes first
		case runsBefore(cur, head):
			return cur
		}
		return head
	}
	return head
}

// yieldLinux is sched_yield for c's running task, then the pick that
// follows: a fair task gives up its request (yield_task_fair), an RT task
// goes behind its equals (yield_task_rt), a deadline task gives up the rest
// of its runtime until its next period (yield_task_dl). It reports whether
// another task takes the CPU.
func (s *Sim) yieldLinux(c *cpu) bool {
	switch t := c.cur; t.class {
	case classFair:
		return s.yieldFair(c)
	case classRT:
		t.rt.expired = true
	default:
		s.updateCurrDL(c, t.dl.runtime) // its runtime goes to 0: throttled
	}
	c.cfs.resched = false
	if !s.fair {
		return hiNext(c) != c.cur // sched_ext: nothing of the class below is asked
	}
	return s.linuxNext(c) != c.cur
}

// rrTick is task_tick_rt's SCHED_RR part for c's running task: a tick off
// its timeslice, and when it runs out a new one, behind its equals if any
// wait.
func (s *Sim) rrTick(c *cpu) {
	t := c.cur
	if t.class != classRT || !t.rt.rr {
		return
	}
	if t.rt.rrTicks--; t.rt.rrTicks > 0 {
		return
	}
	t.rt.rrTicks = s.rrTicks()
	if h := queuedHead(c); h != nil && h.class == classRT && h.rt.prio == t.rt.prio {
		t.rt.expired = true
		c.cfs.resched = true
	}
}

// updateCurrRT is update_curr_rt for ran ns of c's running RT task: RT
// throttling's account (sched_rt_runtime_exceeded).
func (s *Sim) updateCurrRT(c *cpu, ran int64) {
	lim := s.sc.Sched.RTRuntimeUs * 1000
	if lim < 0 {
		return // sched_rt_runtime_us = -1: no limit
	}
	c.rtTime += ran
	if !c.rtThrottled && c.rtTime > lim {
		c.rtThrottled = true
		c.cfs.resched = true
		s.decide(DecPreempt, c.id, c.id, c.cur.id, "RT throttling: this CPU's real-time tasks ran sched_rt_runtime_us of the period; they wait for its end", c.rtTime/1000)
	}
}

// startRTPeriod starts the RT bandwidth's period timer (start_rt_bandwidth)
// when the first RT task is queued.
func (s *Sim) startRTPeriod() {
	if s.rtPeriodAt >= 0 || s.sc.Sched.RTRuntimeUs < 0 {
		return
	}
	s.rtPeriodAt = s.now + s.sc.Sched.RTPeriodUs*1000
	s.at(s.rtPeriodAt, evRTPeriod, 0, 0, 0)
}

// rtPeriod is do_sched_rt_period_timer: each CPU's RT time is paid down by
// one period's runtime, and a throttled CPU whose RT time is below it again
// runs its RT tasks (an idle one is woken).
func (s *Sim) rtPeriod() {
	if s.now != s.rtPeriodAt {
		return
	}
	lim := s.sc.Sched.RTRuntimeUs * 1000
	s.rtPeriodAt = s.now + s.sc.Sched.RTPeriodUs*1000
	s.at(s.rtPeriodAt, evRTPeriod, 0, 0, 0)
	for _, c := range s.cpus {
		c.rtTime -= min(c.rtTime, lim)
		if !c.rtThrottled || c.rtTime >= lim {
			continue
		}
		c.rtThrottled = false
		if h := queuedHead(c); h != nil {
			s.reschedRemote(c, -1, h, "RT throttling ends with the period: the CPU's real-time tasks run again")
		}
	}
}

// wakePreempt is wakeup_preempt for p, just queued on c: a higher class
// preempts at once, a higher RT priority too, and within the fair class
// check_preempt_wakeup_fair decides. It reports whether c must reschedule.
func (s *Sim) wakePreempt(c *cpu, p *thread) bool {
	cur := c.cur
	if cur == nil || cur == p {
		return false
	}
	if cur.class == classFair && p.class == classFair {
		return s.wakePreemptFair(c, p)
	}
	if c.cfs.resched {
		return true
	}
	if p.class == classRT && !rtRunnable(c) {
		return false
	}
	if rank(p) < rank(cur) || p.class == classRT && cur.class == classRT && p.rt.prio > cur.rt.prio ||
		p.class == classDL && cur.class == classDL && p.dl.deadline < cur.dl.deadline {
		c.cfs.resched = true
		return true
	}
	return false
}

// reschedRemote makes c reschedule for t, queued there: an idle c is woken,
// a busy one interrupted (resched_curr's IPI), unless one is on its way.
func (s *Sim) reschedRemote(c *cpu, from int, t *thread, reason string) {
	c.cfs.resched = c.cur != nil
	if c.wakePending {
		return
	}
	c.wakePending = true
	s.decide(DecIPISent, max(from, 0), c.id, t.id, reason, int64(c.load()))
	s.sendIPI(from, c, IPIWakeup, t.id)
}

// policyNow is t's policy as rt-app names it, and its priority (a nice, or
// an RT priority).
func (t *thread) policyNow() (rtapp.Policy, int) {
	switch {
	case t.class == classRT && t.rt.rr:
		return rtapp.SchedRR, t.rt.prio
	case t.class == classRT:
		return rtapp.SchedFIFO, t.rt.prio
	case t.class == classDL:
		return rtapp.SchedDeadline, 0
	case t.fair.idle:
		return rtapp.SchedIdle, 0
	case t.fair.batch:
		return rtapp.SchedBatch, NiceOfWeight(t.fair.weight)
	}
	return rtapp.SchedOther, NiceOfWeight(t.fair.weight)
}

func prioNow(t *thread) int { _, p := t.policyNow(); return p }

// setSchedRunning is __sched_setscheduler for c's running task t: a fair
// task's new weight is reweight_entity's (its lag and relative deadline
// scaled to the new weight, then placed again); a change of class leaves
// one class and enters the other (switched_from, switched_to: a task new to
// the fair class is placed at V); an RT task's new priority takes its place
// in the order. The CPU then picks again (check_class_changed).
func (s *Sim) setSchedRunning(c *cpu, t *thread, pol rtapp.Policy, prio int, sliceNs int64) {
	s.chargeRuntime(c)
	switch {
	case pol.RealTime():
		if t.class != classRT {
			s.setRTPolicy(t, pol, prio)
			s.startRTPeriod()
			if t.fair.grp != nil {
				s.groupPutPrev(c, taskRQ(c, t), false) // its groups' entities above it lose their curr
			}
		}
		t.rt.prio, t.rt.rr = prio, pol == rtapp.SchedRR
	case t.class == classRT:
		t.class = classFair
		s.nrRT--
		t.fair.setPolicy(pol, prio, sliceNs)
		t.fair.vlag, t.fair.place = 0, placeWake
		if t.fair.grp != nil {
			s.fairBecomeCurr(c, t)
		} else {
			s.placeEntity(&c.cfs, &t.fair, &t.fair)
		}
	default:
		s.reweightCurr(c, t, pol, prio, sliceNs)
	}
	c.cfs.resched = true
}
