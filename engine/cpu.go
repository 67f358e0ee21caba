package engine

import (
	"fmt"
	"math"
	"slices"
)

// CPUs and threads, and the life of a thread on a CPU: dispatch, steps, blocking,
// preemption (docs/mechanisms.md, Baseline; OSv's cpu::reschedule_from_interrupt()
// and thread_runtime in core/sched.cc).
//
// A thread runs in steps. Its workload decides, at the end of each step, what the
// thread does (wake others, block) and how long its next step is. The end of a step
// is a reschedule point: the CPU drains its incoming list and lets a queued thread
// with lower decayed runtime preempt (the running thread has borrowed the
// hysteresis). Interrupts (IPIs, device, timers) pause the current step and
// reschedule at their exit; the preemption timer is one of them.

func sqrt(x float64) float64 { return math.Sqrt(x) }

func cos2pi(u float64) float64 { return math.Cos(float64(2 * math.Pi * u)) }

// thread is one schedulable thread.
type thread struct {
	id     int
	name   string
	role   ThreadRole
	state  ThreadState
	cpu    int // the CPU it runs or is queued on; its home CPU when blocked
	pinned bool
	// vr is the decayed runtime in S units (see Sim.decayScaleNow); prio scales
	// what running adds to it, as OSv's thread_runtime::_priority does (1 for
	// ordinary threads; a tiny value makes a thread win every comparison).
	vr   float64
	prio float64
	// runNs is total CPU time run.
	runNs float64
	// remainingNs is what is left of the current step when preempted or paused;
	// hasStep says a step is in progress.
	remainingNs int64
	hasStep     bool
	lastRanNs   int64 // when it last left a CPU (cache-hot test for migration)
	lastCPU     int
	wokenAtNs   int64 // for wake-to-run; -1 when not pending
	// requeuedAtNs is when the thread, preempted or out of slice, was made
	// runnable again without a wake (runnable wait); -1 when not pending.
	requeuedAtNs int64
	// local indexes the thread's own state in the table of whoever runs its
	// program (the kernel's threads, or the workload's backends, writers or
	// hackbench children), or is -1.
	local int
	// fair is the thread's sched_entity under the linux policy (fair.go);
	// class says which class it is in (rt.go), and rt and dl are its
	// entities there (rt.go, dl.go).
	fair  fairEntity
	class uint8
	rt    rtEntity
	dl    dlEntity
}

// cpu is one (v)CPU.
type cpu struct {
	id    int
	state CPUState
	cur   *thread   // running thread, nil when idle
	rq    []*thread // queued runnable threads, ascending vr (run order)
	// hiq holds the real-time and deadline tasks queued here under a
	// sched_ext policy (the kernel's rt_rq and dl_rq, beside the local DSQ
	// that rq is then), in pick order; under the linux policy they share rq
	// with the fair class (rt.go), and hiq stays empty.
	hiq []*thread
	// incoming holds threads woken or donated by other CPUs; they move into rq at the
	// next reschedule point (OSv's incoming_wakeups).
	incoming []*thread
	// needResched is OSv's need_reschedule: a wake on this CPU's own thread or
	// interrupt queued the first wake on its incoming list; the next reschedule
	// point drains it (reschedule_from_interrupt clears the flag first).
	needResched bool
	// wakePending: a wakeup IPI is on its way here. The linux and scx_simple
	// policies send none while one is; OSv's third condition is instead whether
	// wakes already wait in the incoming list.
	wakePending bool
	// gen invalidates this CPU's pending step, irq-end, spin and wake events.
	gen uint32

	segStartNs int64   // when the current thread's running segment began
	segScale   float64 // S(segStartNs): the segment's runtime is prio*tau*(S(now)-segScale)
	// hystCredit is the runtime the running thread borrowed when it was switched in
	// (OSv's hysteresis_run_start); it is returned when the thread leaves the CPU,
	// so it only ever shows in comparisons with the running thread.
	hystCredit float64
	dispatchNs int64 // when the current thread was switched in (its slice start)
	stepEndNs  int64
	// irq state: while in an interrupt the current step is paused.
	irqUntilNs int64
	irqPaused  bool // a thread step was paused by the interrupt
	irqFromIdl bool // the interrupt arrived while spinning in the idle loop
	irqWork    irqWork
	irqWakes   []*thread // threads the pending device/timer handlers wake
	prevThread *thread   // the thread that ran last (context switch cost)
	// debtNs is overhead this CPU owes (IPI sends, the switch into a thread that
	// blocked at once): the next step on it pays it, or the CPU spends it before
	// it idles (payDebt, which ends at stepEndNs).
	debtNs int64

	// idle loop and halt
	spinWindow  int64
	haltStreak  int
	haltStartNs int64
	pollEndNs   int64 // host halt-poll end for the current halt (<= haltStart if none)
	hostPollNs  int64 // KVM's per-vCPU halt_poll_ns
	pullSlot    int   // pull_donate_to: the CPU holding this victim's slot, or -1

	// cfs is the fair class's run queue under the linux policy (fair.go).
	cfs fairRQ
	// rtTime is the RT run time this RT period, rtThrottled whether it
	// reached sched_rt_runtime_us (rt.go).
	rtTime      int64
	rtThrottled bool

	// The step under way at its speed (smt.go): work ns at full speed from
	// workStartNs (after the overhead), at stepSpeed work per wall ns.
	stepSpeed   float64
	workStartNs int64
	stepWorkNs  int64
	// SMT accounting: since smtMarkNs the CPU was busy (smtBusy), with a
	// sibling busy too (smtCont).
	smtMarkNs        int64
	smtBusy, smtCont bool
}

func newCPU(s *Sim, id int) *cpu {
	return &cpu{
		id:         id,
		state:      CPUSpinning,
		spinWindow: s.sc.Sched.IdleSpin.Cap,
		pullSlot:   -1,
		cfs:        fairRQ{tickAt: -1},
		rq:         make([]*thread, 0, 8),
	}
}

// load is OSv's load: queued threads, plus one for the idle thread that sits in the
// runqueue while a thread runs. 0 when idle, 1 when one thread runs alone.
func (c *cpu) load() int {
	if c.cur != nil {
		return len(c.rq) + len(c.hiq) + 1
	}
	return len(c.rq) + len(c.hiq)
}

// newThread creates a thread homed on cpu (blocked until woken). It is not
// inlined: a thread's state is large, and the workloads create threads in
// many places, rarely.
//
//go:noinline
func (s *Sim) newThread(name string, role ThreadRole, cpuID int, pinned bool) *thread {
	t := &thread{id: len(s.threads), name: name, role: role, cpu: cpuID, pinned: pinned, prio: 1, local: -1,
		state: ThreadBlocked, wokenAtNs: -1, requeuedAtNs: -1, lastRanNs: math.MinInt64 / 2, lastCPU: cpuID,
		fair: s.newFairEntity()}
	t.fair.owner = t
	s.threads = append(s.threads, t)
	return t
}

// setState records a CPU state change for accounting and animation.
func (s *Sim) setState(c *cpu, st CPUState) {
	if c.state == st {
		return
	}
	s.m.cpuState(s, c, st)
	c.state = st
	running := -1
	if c.cur != nil {
		running = c.cur.id
	}
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisState, CPU: int32(c.id), Other: -1, Thread: int32(running), Arg: int32(st)})
}

// rqInsert queues t on c in run order (ascending vr; ties after equals, FIFO).
func (s *Sim) rqInsert(c *cpu, t *thread) {
	t.state = ThreadQueued
	t.cpu = c.id
	if s.fair || t.class != classFair {
		s.linuxEnqueue(c, t) // under sched_ext, an RT or DL task goes on hiq
		s.m.queueChanged(s, c)
		return
	}
	i := len(c.rq)
	c.rq = append(c.rq, t)
	for !s.fifo && i > 0 && c.rq[i-1].vr > t.vr {
		c.rq[i] = c.rq[i-1]
		i--
	}
	c.rq[i] = t
	s.m.queueChanged(s, c)
}

// rqRemove removes t from c's runqueue.
func (s *Sim) rqRemove(c *cpu, t *thread) {
	if s.fair && t.class == classFair {
		s.fairRemove(c, t)
	}
	if !s.fair && t.class != classFair {
		i := slices.Index(c.hiq, t)
		c.hiq = slices.Delete(c.hiq, i, i+1)
		s.m.queueChanged(s, c)
		return
	}
	for i, x := range c.rq {
		if x == t {
			copy(c.rq[i:], c.rq[i+1:])
			c.rq[len(c.rq)-1] = nil
			c.rq = c.rq[:len(c.rq)-1]
			s.m.queueChanged(s, c)
			return
		}
	}
	panic(fmt.Sprintf("engine.rqRemove: thread %d not on cpu %d", t.id, c.id))
}

// rqTailMigratable returns the queued thread with the highest runtime that may move
// (OSv's load balancer and donor take the runqueue's tail), or nil.
func (c *cpu) rqTailMigratable() *thread {
	for i := len(c.rq) - 1; i >= 0; i-- {
		if !c.rq[i].pinned {
			return c.rq[i]
		}
	}
	return nil
}

// startSegment starts a new accounting segment of c's running thread at now.
func (s *Sim) startSegment(c *cpu) {
	c.segStartNs = s.now
	if !s.fair { // the fair class keeps vruntime instead (fair.go)
		c.segScale = s.decayScaleNow()
	}
}

// chargeRuntime adds the current segment's run time to the running thread's
// decayed runtime (OSv's ran_for at every reschedule: everything since
// running_since is the running thread's, interrupts and switch overhead included).
func (s *Sim) chargeRuntime(c *cpu) {
	t := c.cur
	if t == nil {
		return
	}
	if ran := s.now - c.segStartNs; ran > 0 {
		t.runNs += float64(ran)
		if s.fair || t.class != classFair {
			switch t.class {
			case classFair:
				s.updateCurrFair(c, ran)
			case classRT:
				s.updateCurrRT(c, ran)
			default:
				s.updateCurrDL(c, ran)
			}
		} else {
			scale := s.decayScaleNow()
			t.vr += float64(t.prio * s.decayTauNs * float64(scale-c.segScale))
		}
	}
	s.startSegment(c)
}

// curVR is the running thread's decayed runtime including its current segment.
func (s *Sim) curVR(c *cpu) float64 {
	t := c.cur
	return t.vr + float64(t.prio*s.decayTauNs*float64(s.decayScaleNow()-c.segScale))
}

// shouldPreempt says whether queued thread w should take c from its running
// thread. OSv's reschedule_from_interrupt keeps the running thread while its
// runtime, less the hysteresis it borrowed when switched in, is below w's
// (`p->_runtime.get_local() < t._runtime.get_local()`); otherwise w runs.
func (s *Sim) shouldPreempt(c *cpu, w *thread) bool {
	if c.cur == nil {
		return true
	}
	return !(s.curVR(c)-c.hystCredit < w.vr)
}

// preemptDelay is how long c's running thread may run before its runtime (less
// the borrowed hysteresis) reaches that of w, the runqueue's head: OSv arms the
// preemption timer with time_until(), whose log approximation overshoots by 1%
// so the timer never fires a hair early. ok is false when that is never.
func (s *Sim) preemptDelay(c *cpu, w *thread) (ns int64, ok bool) {
	t := c.cur
	gap := w.vr - (s.curVR(c) - c.hystCredit)
	if gap <= 0 {
		return 0, true
	}
	scale := s.decayScaleNow()
	x := 1 + float64(gap/float64(t.prio*s.decayTauNs*scale))
	if x > 1e12 {
		return 0, false
	}
	d := float64(1.01*s.decayTauNs) * detLog(x)
	if d > 1e15 {
		return 0, false
	}
	return int64(d) + 1, true
}

// stepOutrunsTimer reports, without a logarithm, that the preemption timer for
// queued thread w cannot fire before c's step ends: the timer fires after
// 1.01*tau*ln(1+x), and ln(1+x) >= x/(1+x), so when tau*x/(1+x) already reaches
// the step's end there is nothing to arm. Most steps are far shorter than the
// hysteresis, so this spares runStep the logarithm preemptDelay takes.
func (s *Sim) stepOutrunsTimer(c *cpu, w *thread) bool {
	t := c.cur
	gap := w.vr - (s.curVR(c) - c.hystCredit)
	if gap <= 0 {
		return false
	}
	x := float64(gap / float64(t.prio*s.decayTauNs*s.decayScaleNow()))
	lower := float64(s.decayTauNs * float64(x/(1+x)))
	return lower > float64(c.stepEndNs-s.now)+1
}

// switchTo starts running t on c (t already removed from c's runqueue), paying the
// context switch and, for a cache-hot thread arriving from another CPU, the
// migration warm-up. The thread borrows the hysteresis for as long as it runs.
func (s *Sim) switchTo(c *cpu, t *thread) {
	overhead := c.debtNs
	c.debtNs = 0
	if c.prevThread != t {
		overhead += s.sc.Machine.Costs.ContextSwitchNs
	}
	if t.lastCPU != c.id && s.now-t.lastRanNs < s.sc.Machine.Costs.CacheHotNs && s.migrationLevel(t.lastCPU, c.id) != migSMT {
		overhead += s.sc.Machine.Costs.MigrationWarmNs // an SMT sibling shares the core's caches
	}
	if t.lastCPU != c.id {
		s.m.migration(s, t.lastCPU, c.id)
	}
	if tw, ok := s.wl.(*traceWorkload); ok {
		tw.switchedIn(s, t, c.id, overhead) // its figures, and the costs its recorded run holds
	}
	c.cur = t
	c.prevThread = t
	c.dispatchNs = s.now
	s.smtChanged(c)
	if s.fair {
		if t.class == classFair {
			setProtectSlice(taskRQ(c, t), &t.fair)
		}
		s.startTick(c)
	} else if s.fifo {
		s.startTick(c) // sched_ext's tick (task_tick_scx, scx_flow.go)
	}
	t.state = ThreadRunning
	t.cpu = c.id
	t.lastCPU = c.id
	if t.wokenAtNs >= 0 || t.requeuedAtNs >= 0 {
		s.m.switchedIn(s, t)
		t.wokenAtNs, t.requeuedAtNs = -1, -1
	}
	s.setState(c, CPURunning)
	s.m.queueChanged(s, c)
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisRun, CPU: int32(c.id), Other: -1, Thread: int32(t.id)})
	s.startSegment(c)
	c.hystCredit = float64(t.prio * s.hystFactor * c.segScale)
	if !t.hasStep {
		dur, blocks := s.threadNext(t)
		if blocks {
			// A thread with nothing to do blocks right away (counted as a switch).
			s.block(c, overhead)
			return
		}
		t.remainingNs = dur
		t.hasStep = true
		if c.needResched {
			// The program just run woke a thread on this CPU: need_reschedule makes
			// the waker's preempt_enable() reschedule at once. The preemption
			// timer runStep arms then lets the wakee preempt if its runtime is
			// lower.
			s.drainIncoming(c)
		}
	}
	s.runStep(c, overhead)
}

// runStep (re)starts the running thread's step after overheadNs of CPU time
// owed on c, and arms the preemption timer if a queued thread will catch up
// with it before the step ends.
func (s *Sim) runStep(c *cpu, overheadNs int64) {
	c.stepSpeed = s.speedOf(c)
	c.workStartNs = s.now + overheadNs
	c.stepWorkNs = c.cur.remainingNs
	c.stepEndNs = c.workStartNs + wallOf(c.cur.remainingNs, c.stepSpeed)
	c.gen++
	s.at(c.stepEndNs, evStepEnd, c.id, 0, c.gen)
	if len(c.rq) == 0 || !s.timeSlices {
		return
	}
	if s.stepOutrunsTimer(c, c.rq[0]) {
		return
	}
	if d, ok := s.preemptDelay(c, c.rq[0]); ok && s.now+d < c.stepEndNs {
		s.at(s.now+d, evPreemptTimer, c.id, 0, c.gen)
	}
}

// stepEnd: the running thread finished a step. Its workload acts (wakes others,
// decides to block or computes the next step), then c reschedules.
func (s *Sim) stepEnd(c *cpu) {
	t := c.cur
	s.chargeRuntime(c)
	t.hasStep = false
	t.remainingNs = 0
	dur, blocks := s.threadNext(t)
	if blocks {
		s.block(c, 0)
		return
	}
	t.remainingNs = dur
	t.hasStep = true
	s.reschedule(c)
}

// block takes the running thread off c and picks the next thread or goes idle.
func (s *Sim) block(c *cpu, delayNs int64) {
	t := c.cur
	t.state = ThreadBlocked
	t.hasStep = false
	t.lastRanNs = s.now
	c.cur = nil
	c.hystCredit = 0 // hysteresis_run_stop: the borrowed runtime is returned
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisBlock, CPU: int32(c.id), Other: -1, Thread: int32(t.id)})
	c.debtNs += delayNs
	s.pol.blocked(s, c, t)
	s.pickNext(c)
}

// reschedule is a reschedule point with a thread still runnable on c: drain
// incoming, let the policy decide whether the running thread yields, else continue
// its step.
func (s *Sim) reschedule(c *cpu) {
	s.drainIncoming(c)
	yield := s.pol.yieldAtStepEnd(s, c)
	reason := ""
	if s.yielding != nil {
		// sched_yield: the thread goes behind what is queued here, if
		// anything is; alone, it goes on.
		switch {
		case s.yielding == c.cur && s.fair:
			yield, reason = s.yieldLinux(c), "the running thread called sched_yield (an rt-app yield event)"
		case !yield && s.yielding == c.cur && len(c.rq) > 0:
			yield, reason = true, "the running thread called sched_yield (an rt-app yield event)"
		}
		s.yielding = nil
	}
	if yield {
		t := c.cur
		c.cur = nil
		c.hystCredit = 0 // hysteresis_run_stop before the thread is queued again
		t.lastRanNs = s.now
		t.requeuedAtNs = s.now
		s.pol.requeue(s, c, t)
		w := s.pol.pick(s, c)
		if w == nil {
			// A sched_ext policy queued the task where this CPU does not
			// look (its dispatch found nothing): the CPU goes idle.
			s.enterIdle(c)
			return
		}
		if reason == "" {
			reason = s.pol.preemptReason()
		}
		s.decide(DecPreempt, c.id, c.id, w.id, reason, int64(t.id))
		// add_context_switch_penalty: a thread that preempts another pays for it.
		if !s.fair {
			w.vr += float64(w.prio * s.penaltyFactor * s.decayScaleNow())
		}
		s.switchTo(c, w)
		return
	}
	s.resumeStep(c)
}

// resumeStep continues the running thread's step (its remaining time, after any
// overhead this CPU owes for IPIs it sent).
func (s *Sim) resumeStep(c *cpu) {
	debt := c.debtNs
	c.debtNs = 0
	s.runStep(c, debt)
}

// pickNext runs the policy's next thread on c, or enters the idle loop.
func (s *Sim) pickNext(c *cpu) {
	s.drainIncoming(c)
	if t := s.pol.pick(s, c); t != nil {
		s.switchTo(c, t)
		return
	}
	s.enterIdle(c)
}
