package engine

// policy is the seam between the scheduler core (event loop, CPUs, threads, IPIs,
// idle loop, accounting) and a scheduling policy. The core calls these hooks at
// fixed points and never decides placement or run order itself:
//
//   - a wake asks placeWake where the thread goes, then wakeIPI whether a remote
//     CPU must be interrupted (a spinning CPU never needs one);
//   - a reschedule point (step end, interrupt on an idle CPU) asks yieldAtStepEnd,
//     requeue and pick;
//   - the idle loop asks idleEnter before spinning, and a pull IPI runs servePull.
//
// osvPolicy implements OSv's scheduler with idle pull (docs/mechanisms.md,
// Baseline and Idle-CPU pull), ScxKernel (scx.go) the sched_ext core, running
// scx_simple (scx_simple.go) or a policy from the scenario, and linuxPolicy
// (linux.go) Linux's classes: EEVDF (fair.go), real-time (rt.go), deadline
// (dl.go).
type policy interface {
	// placeWake decides where woken thread t goes; from is the waker's CPU (-1
	// for a wake from outside), sync marks WAKE_SYNC.
	placeWake(s *Sim, t *thread, from int, sync bool) placement
	// wakeIPI says whether a remote wake onto c sends an IPI. pending: other
	// wakes were already waiting in c's incoming list; spinning: c is polling it
	// in its idle loop and will see the thread without one.
	wakeIPI(s *Sim, c *cpu, pending, spinning bool) (send bool, reason string)
	// yieldAtStepEnd says whether c's running thread gives up the CPU now.
	yieldAtStepEnd(s *Sim, c *cpu) bool
	// timeSlices says whether a queued thread with less runtime preempts the
	// running one by timer when it catches up (OSv's preemption_timer), rather
	// than only at reschedule points.
	timeSlices() bool
	// preemptReason explains a yield, for the decision record.
	preemptReason() string
	// requeue makes t runnable again after it ran on c (c is nil for a wake the
	// policy placed on a shared queue).
	requeue(s *Sim, c *cpu, t *thread)
	// pick removes and returns the thread c runs next, or nil to go idle.
	pick(s *Sim, c *cpu) *thread
	// idleEnter runs when c enters its idle loop (and after every halt that
	// returns with nothing to run); true means it found work to run now.
	idleEnter(s *Sim, c *cpu) bool
	// servePull runs in c's interrupt handler when a pull IPI arrived.
	servePull(s *Sim, c *cpu)
	// blocked runs when c's running thread t blocks (before c picks again).
	blocked(s *Sim, c *cpu, t *thread)
	// shared lists the threads on the policy's shared queue (snapshots).
	shared() []*thread
	// ckSave writes the policy's state into a checkpoint; ckLoad reads it back
	// into newPolicy's fresh one (checkpoint_state.go).
	ckSave(w *ckWriter)
	ckLoad(r *ckReader, s *Sim)
}

// placement is where a woken thread goes.
type placement struct {
	cpu    int    // the CPU whose runqueue gets the thread
	shared bool   // the policy's shared queue instead of a CPU's
	reason string // constant phrase for the decision record
	// viaIncoming: a wake on the waker's own CPU goes through that CPU's
	// incoming list too (OSv's wake_impl), rather than straight into its
	// runqueue (Linux's local enqueue, scx's local queue).
	viaIncoming bool
}

func newPolicy(s *Sim) policy {
	switch s.sc.Sched.Policy {
	case "scx_simple":
		s.fifo = true // scx local DSQs are FIFO
		return newScxKernel(s, &scxSimple{sliceNs: s.sc.Sched.ScxSliceUs * 1000})
	case "scx":
		s.fifo = true
		return newScxKernel(s, s.scxOps)
	case "linux":
		return newLinuxPolicy(s)
	default:
		return &osvPolicy{}
	}
}

// osvPolicy is the OSv-like baseline plus idle pull (idlepull.go). Adaptive spin
// is in idle.go: it belongs to the idle loop, whatever the policy.
type osvPolicy struct{}

// placeWake: a woken thread always goes to its home CPU (the CPU it last ran on);
// it is never re-placed at wake time.
// Every wake goes through the target's incoming list, the waker's own CPU's too
// (thread::wake_impl).
func (osvPolicy) placeWake(s *Sim, t *thread, from int, sync bool) placement {
	return placement{cpu: t.cpu, reason: "woken on its home CPU (OSv never re-places a wakee)", viaIncoming: true}
}

// wakeIPI: OSv's three suppression conditions, in the order wake_impl and
// cpu::send_wakeup_ipi test them: wakes already pending in the incoming list, the
// target polling in its idle loop (idle_poll), a runqueue of more than the idle
// thread and one other (runqueue.size() <= 1 is OSv's load <= 1).
func (osvPolicy) wakeIPI(s *Sim, c *cpu, pending, spinning bool) (bool, string) {
	switch {
	case pending:
		return false, "wakes are already pending in the target's incoming list"
	case spinning:
		return false, "target CPU is spinning in its idle loop and will see the wake"
	case c.load() > 1:
		return false, "target CPU's load is 2 or more; it will see the wake at its next reschedule"
	}
	return true, "target CPU is not spinning, load <= 1 and no wake pending"
}

// yieldAtStepEnd: the queued thread with the lowest decayed runtime preempts when
// it is below the running thread's minus the hysteresis credit.
func (osvPolicy) yieldAtStepEnd(s *Sim, c *cpu) bool {
	return len(c.rq) > 0 && s.shouldPreempt(c, c.rq[0])
}

func (osvPolicy) timeSlices() bool { return true }

func (osvPolicy) preemptReason() string {
	return "a queued thread's decayed runtime is below the running thread's minus the hysteresis"
}

func (osvPolicy) requeue(s *Sim, c *cpu, t *thread) { s.rqInsert(c, t) }

func (osvPolicy) pick(s *Sim, c *cpu) *thread { return rqPopHead(s, c) }

func (osvPolicy) shared() []*thread { return nil }

func (osvPolicy) blocked(s *Sim, c *cpu, t *thread) {}

// rqPopHead removes and returns c's first queued thread, or nil.
func rqPopHead(s *Sim, c *cpu) *thread {
	if len(c.rq) == 0 {
		return nil
	}
	t := c.rq[0]
	s.rqRemove(c, t)
	return t
}
