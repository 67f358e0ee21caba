package engine

// How fast a CPU gets work done on the machine's topology (docs/mechanisms.md,
// Machine topology): a CPU's capacity (machine.capacity, of 1024) scales its
// speed, and while two SMT threads of one core both run tasks each runs at
// half the core's yield (machine.costs.smt_yield_pct: 130% makes each 65%
// as fast as alone). A step's work is in ns at full speed
// (thread.remainingNs); runStep turns it into wall time at the CPU's speed
// then, and a sibling that starts or stops running re-times the step under
// way (retime). On the flat default every speed is 1 and the arithmetic is
// the plain one, exactly.
//
// Also counted here, on a topology with SMT: the busy CPU time during which
// a sibling was busy too (Results.SMTContendedFrac).

// speedOf is c's work per wall ns now.
func (s *Sim) speedOf(c *cpu) float64 {
	sp := 1.0
	if cp := s.topo.cpus[c.id].Capacity; cp != SchedCapacityScale {
		sp = float64(cp) / SchedCapacityScale
	}
	if s.smtThreads() > 1 && s.siblingBusy(c) {
		sp *= float64(s.sc.Machine.Costs.SMTYieldPct) / 200
	}
	return sp
}

// siblingBusy says whether another thread of c's core runs a task.
func (s *Sim) siblingBusy(c *cpu) bool {
	n := s.smtThreads()
	for sib := c.id - c.id%n; sib < c.id-c.id%n+n; sib++ {
		if sib != c.id && s.cpus[sib].cur != nil {
			return true
		}
	}
	return false
}

// wallOf is how long work ns take at speed.
func wallOf(work int64, speed float64) int64 {
	if speed == 1 {
		return work
	}
	return int64(float64(work)/speed + 0.999999)
}

// workLeft is the work left of c's step under way, the overhead not yet
// spent counted as work (as a paused step keeps it).
func (s *Sim) workLeft(c *cpu) int64 {
	if c.stepSpeed == 1 {
		return max(c.stepEndNs-s.now, 0)
	}
	if s.now < c.workStartNs {
		return c.workStartNs - s.now + c.stepWorkNs
	}
	done := int64(float64(s.now-c.workStartNs) * c.stepSpeed)
	return max(c.stepWorkNs-done, 0)
}

// smtChanged follows c starting or stopping running a task: its siblings'
// steps under way are re-timed at their new speed, and the core's busy and
// contended time is counted up to now.
func (s *Sim) smtChanged(c *cpu) {
	n := s.smtThreads()
	if n == 1 {
		return
	}
	first := c.id - c.id%n
	for x := first; x < first+n; x++ {
		s.smtAccount(s.cpus[x])
	}
	for x := first; x < first+n; x++ {
		if x != c.id {
			s.retime(s.cpus[x])
		}
	}
}

// retime re-arms c's step under way at c's speed now, when it changed.
func (s *Sim) retime(c *cpu) {
	if c.cur == nil || c.irqPaused || c.state != CPURunning || !c.cur.hasStep {
		return
	}
	if s.speedOf(c) == c.stepSpeed {
		return
	}
	over := max(c.workStartNs-s.now, 0)
	left := s.workLeft(c)
	c.cur.remainingNs = left - over
	s.runStep(c, over)
}

// smtAccount counts c's time since its last mark as busy, and contended when
// a sibling was busy too, then marks now with what holds from now on.
func (s *Sim) smtAccount(c *cpu) {
	if dt := s.now - c.smtMarkNs; dt > 0 && c.smtBusy {
		s.m.smtTime(c.smtMarkNs, s.now, c.smtCont)
	}
	c.smtMarkNs = s.now
	c.smtBusy = c.cur != nil
	c.smtCont = c.smtBusy && s.siblingBusy(c)
}

// Migration levels: how far a task moved.
const (
	migSMT  = iota // to an SMT sibling: the core's caches are shared
	migCore        // to another core of the LLC
	migLLC         // to another LLC of the node
	migNode        // to another node
)

// migrationLevel is how far a move from CPU a to CPU b goes.
func (s *Sim) migrationLevel(a, b int) int {
	x, y := s.topo.cpus[a], s.topo.cpus[b]
	switch {
	case x.Core == y.Core:
		return migSMT
	case x.LLC == y.LLC:
		return migCore
	case x.Node == y.Node:
		return migLLC
	}
	return migNode
}
