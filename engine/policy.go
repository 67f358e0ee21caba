package engine

// policy is the seam between the scheduler core (event loop, CPUs, threads, IPIs,
// idle loop, accounting) and a scheduling policy. The core calls these hooks at
// fixed points; a policy keeps whatever extra state it needs. osvPolicy implements
// MECHANISMS.md sections 1-3; other policies plug in here without touching the core.
type policy interface {
	// selectCPU returns the CPU a woken thread t goes to; from is the waker's CPU
	// (-1 for a device). OSv: always t's home CPU.
	selectCPU(s *Sim, t *thread, from int) int
	// idleEnter runs when c enters its idle loop (and after every halt that returns
	// with nothing to run): OSv's idle pull lives here.
	idleEnter(s *Sim, c *cpu)
	// servePull runs in c's interrupt handler when a pull IPI arrived.
	servePull(s *Sim, c *cpu)
}

// osvPolicy is the OSv-like baseline plus idle pull (idlepull.go). Adaptive spin
// is in idle.go (it belongs to the idle loop, whatever the policy).
type osvPolicy struct{}

func (osvPolicy) selectCPU(s *Sim, t *thread, from int) int { return t.cpu }
