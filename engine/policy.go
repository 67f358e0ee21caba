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
// osvPolicy implements MECHANISMS.md sections 1-3, scxSimplePolicy (wakesync.go)
// section 4's sched_ext scx_simple with the old or new WAKE_SYNC rule, and
// linuxPolicy (linux.go) an EEVDF-like reference.
type policy interface {
	// placeWake decides where woken thread t goes; from is the waker's CPU (-1
	// for a wake from outside), sync marks WAKE_SYNC.
	placeWake(s *Sim, t *thread, from int, sync bool) placement
	// wakeIPI says whether a remote wake onto c (not spinning) sends an IPI.
	wakeIPI(s *Sim, c *cpu) (send bool, reason string)
	// yieldAtStepEnd says whether c's running thread gives up the CPU now.
	yieldAtStepEnd(s *Sim, c *cpu) bool
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
	// shared lists the threads on the policy's shared queue (snapshots).
	shared() []*thread
}

// placement is where a woken thread goes.
type placement struct {
	cpu    int    // the CPU whose runqueue gets the thread
	shared bool   // the policy's shared queue instead of a CPU's
	reason string // constant phrase for the decision record
}

func newPolicy(s *Sim) policy {
	switch s.sc.Sched.Policy {
	case "scx_simple":
		s.fifo = true // scx local DSQs are FIFO
		return &scxSimplePolicy{newRule: s.sc.Sched.WakeSync == "new"}
	case "linux":
		return &linuxPolicy{}
	default:
		return &osvPolicy{}
	}
}

// osvPolicy is the OSv-like baseline plus idle pull (idlepull.go). Adaptive spin
// is in idle.go: it belongs to the idle loop, whatever the policy.
type osvPolicy struct{}

// placeWake: a woken thread always goes to its home CPU (the CPU it last ran on);
// it is never re-placed at wake time.
func (osvPolicy) placeWake(s *Sim, t *thread, from int, sync bool) placement {
	if t.cpu == from {
		return placement{cpu: t.cpu, reason: "woken on its home CPU, the waker's own"}
	}
	return placement{cpu: t.cpu, reason: "woken on its home CPU (OSv never re-places a wakee)"}
}

// wakeIPI: OSv's three suppression conditions (the spinning one is the core's).
func (osvPolicy) wakeIPI(s *Sim, c *cpu) (bool, string) {
	switch {
	case c.load() > 1:
		return false, "target CPU's load is 2 or more; it will see the wake at its next reschedule"
	case c.wakePending:
		return false, "a wakeup IPI is already pending on the target"
	}
	return true, "target CPU is not spinning, load <= 1 and no wake pending"
}

// yieldAtStepEnd: the queued thread with the lowest decayed runtime preempts when
// it is below the running thread's minus the hysteresis credit.
func (osvPolicy) yieldAtStepEnd(s *Sim, c *cpu) bool {
	return len(c.rq) > 0 && s.shouldPreempt(c, c.rq[0])
}

func (osvPolicy) preemptReason() string {
	return "a queued thread's decayed runtime is below the running thread's minus the hysteresis"
}

func (osvPolicy) requeue(s *Sim, c *cpu, t *thread) { s.rqInsert(c, t) }

func (osvPolicy) pick(s *Sim, c *cpu) *thread { return rqPopHead(s, c) }

func (osvPolicy) shared() []*thread { return nil }

// rqPopHead removes and returns c's first queued thread, or nil.
func rqPopHead(s *Sim, c *cpu) *thread {
	if len(c.rq) == 0 {
		return nil
	}
	t := c.rq[0]
	s.rqRemove(c, t)
	return t
}
