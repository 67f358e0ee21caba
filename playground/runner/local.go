package runner

import (
	"slices"

	"schedplay/engine"
)

// Local runs the simulations in the caller's thread, inside the time Pump allows:
// the runner of the native tests and of tools that drive the view model.
type Local struct {
	host *Host
	out  []Frame
}

// NewLocal returns a runner that reads wall time (ms) from clock.
func NewLocal(clock func() float64) *Local {
	l := &Local{}
	l.host = NewHost(clock, func(f *Frame) { l.out = append(l.out, f.Clone()) })
	return l
}

// Start implements Runner.
func (l *Local) Start(id ArmID, sc engine.Scenario, background bool) {
	l.host.Start(id, sc, background)
}

// StartFrom implements Runner.
func (l *Local) StartFrom(id ArmID, sc engine.Scenario, checkpoint []byte) {
	l.host.StartFrom(id, sc, checkpoint)
}

// Advance implements Runner.
func (l *Local) Advance(id ArmID, a Advance) { l.host.Advance(id, a) }

// Cancel implements Runner.
func (l *Local) Cancel(id ArmID, seq uint32) { l.host.Cancel(id, seq) }

// Stop implements Runner; answers of the arm not yet received are dropped too.
func (l *Local) Stop(id ArmID) {
	l.host.Stop(id)
	l.out = slices.DeleteFunc(l.out, func(f Frame) bool { return f.Arm == id })
}

// Rewind implements Runner; answers of arm id not yet received are dropped.
func (l *Local) Rewind(id, to ArmID, atNs int64) {
	l.host.Rewind(id, to, atNs)
	l.out = slices.DeleteFunc(l.out, func(f Frame) bool { return f.Arm == id })
}

// Pump implements Runner: it works until deadlineMs.
func (l *Local) Pump(deadlineMs float64) { l.host.Work(deadlineMs) }

// Receive implements Runner.
func (l *Local) Receive(dst []Frame) []Frame {
	dst = append(dst, l.out...)
	clear(l.out)
	l.out = l.out[:0]
	return dst
}

// Clone returns a deep copy of f: a Host reuses its frame's memory.
func (f *Frame) Clone() Frame {
	c := *f
	c.Snap.Shared = slices.Clone(f.Snap.Shared)
	c.Snap.CPUs = slices.Clone(f.Snap.CPUs)
	for i := range c.Snap.CPUs {
		c.Snap.CPUs[i].Runqueue = slices.Clone(c.Snap.CPUs[i].Runqueue)
		c.Snap.CPUs[i].Incoming = slices.Clone(c.Snap.CPUs[i].Incoming)
	}
	c.Snap.Threads = slices.Clone(f.Snap.Threads)
	c.Snap.IPIs = slices.Clone(f.Snap.IPIs)
	c.Flights = slices.Clone(f.Flights)
	c.Migrations = slices.Clone(f.Migrations)
	c.Results.Series = slices.Clone(f.Results.Series)
	return c
}

// SetCompiler gives the runner the compiler of a scenario's own sched_ext
// policy (Host.SetCompiler): the native stand-in for the policy workers.
func (l *Local) SetCompiler(compile engine.ScxCompiler) { l.host.SetCompiler(compile) }
