package engine

// An EEVDF-like Linux reference policy (docs/mechanisms.md, The Linux reference;
// kernel/sched/fair.c), for comparing
// sched_ext's rules with what the default scheduler does on the same workload.
//
// Modelled: wake-affine placement (a sync wakeup from a CPU running only the waker
// targets the waker's CPU; an idle waker CPU or idle previous CPU is preferred),
// then select_idle_sibling (target if idle, previous CPU if idle, else the first
// idle CPU after the target; the whole machine is one LLC); run-to-parity (a
// woken task never preempts the running one before that has run a base slice, so
// a sync wakee waits for its waker to block, as EEVDF's RUN_TO_PARITY lets the
// current task keep its slice); per-CPU runqueues in decayed-runtime order (a
// stand-in for vruntime/deadline order); newidle balancing (a CPU about to go idle
// pulls the tail of the busiest runqueue, with no IPI).
//
// Simplified away: weights and nice, lag and eligibility, deadlines, the periodic
// and NOHZ idle balancers, SMT and cache domains, wake_affine_weight.

// linuxPolicy's sliceNs is sysctl_sched_base_slice scaled as the kernel scales it
// by default (SCHED_TUNABLESCALING_LOG in kernel/sched/fair.c's
// get_update_sysctl_factor: 1 + ilog2(min(online CPUs, 8))).
type linuxPolicy struct{ sliceNs int64 }

func newLinuxPolicy(s *Sim) *linuxPolicy {
	factor := int64(1)
	for n := min(len(s.cpus), 8); n > 1; n >>= 1 {
		factor++
	}
	return &linuxPolicy{sliceNs: s.sc.Sched.BaseSliceUs * 1000 * factor}
}

// linuxIdle is idle_cpu(): running the idle task with nothing queued. A CPU still
// spending the overhead of the task that left it (payDebt) is not idle yet.
func linuxIdle(c *cpu) bool {
	return c.cur == nil && c.state != CPUIRQ && c.state != CPURunning && len(c.rq) == 0 && len(c.incoming) == 0
}

func (p *linuxPolicy) placeWake(s *Sim, t *thread, from int, sync bool) placement {
	prev := t.cpu
	target := prev
	if from >= 0 && !t.pinned {
		switch wc := s.cpus[from]; {
		case linuxIdle(wc):
			target = from
		case sync && wc.cur != nil && len(wc.rq)+len(wc.incoming) == 0:
			target = from // wake_affine_idle: the waker is about to sleep
		}
	}
	if t.pinned {
		return placement{cpu: prev, reason: "pinned"}
	}
	if linuxIdle(s.cpus[target]) {
		return placement{cpu: target, reason: "select_idle_sibling: the wake-affine target is idle"}
	}
	if prev != target && linuxIdle(s.cpus[prev]) {
		return placement{cpu: prev, reason: "select_idle_sibling: the previous CPU is idle"}
	}
	n := len(s.cpus)
	for i := 1; i < n; i++ {
		if c := s.cpus[(target+i)%n]; linuxIdle(c) {
			return placement{cpu: c.id, reason: "select_idle_sibling: an idle CPU in the LLC"}
		}
	}
	if target == from {
		return placement{cpu: target, reason: "wake-affine: sync wakeup queued behind the waker (run to parity)"}
	}
	return placement{cpu: target, reason: "no idle CPU: the previous CPU"}
}

// wakeIPI: an idle target is woken; a busy one keeps running to parity.
func (p *linuxPolicy) wakeIPI(s *Sim, c *cpu, pending, spinning bool) (bool, string) {
	if spinning {
		return false, "target CPU is in its idle loop and will see the task"
	}
	if c.cur != nil {
		return false, "target is running; run-to-parity lets it finish its slice"
	}
	if c.wakePending {
		return false, "a reschedule IPI is already pending on the target"
	}
	return true, "wake the idle target CPU"
}

func (p *linuxPolicy) yieldAtStepEnd(s *Sim, c *cpu) bool {
	return len(c.rq) > 0 && s.now-c.dispatchNs >= p.sliceNs && c.rq[0].vr < s.curVR(c)
}

func (p *linuxPolicy) timeSlices() bool { return false }

func (p *linuxPolicy) preemptReason() string {
	return "the running task used its base slice and a queued task has run less"
}

func (p *linuxPolicy) requeue(s *Sim, c *cpu, t *thread) { s.rqInsert(c, t) }

func (p *linuxPolicy) pick(s *Sim, c *cpu) *thread { return rqPopHead(s, c) }

// idleEnter is newidle balancing: pull the busiest runqueue's tail.
func (p *linuxPolicy) idleEnter(s *Sim, c *cpu) bool {
	var busiest *cpu
	for _, o := range s.cpus {
		if o != c && len(o.rq) > 0 && (busiest == nil || len(o.rq) > len(busiest.rq)) {
			busiest = o
		}
	}
	if busiest == nil {
		return false
	}
	t := busiest.rqTailMigratable()
	if t == nil {
		return false
	}
	s.rqRemove(busiest, t)
	s.migrateCount(t, busiest.id, c.id)
	s.decide(DecNewidlePull, c.id, busiest.id, t.id, "newidle balance: pulled the busiest runqueue's tail before sleeping", int64(len(busiest.rq)+1))
	c.debtNs += s.sc.Machine.Costs.NewidleBalanceNs
	s.rqInsert(c, t)
	return true
}

func (p *linuxPolicy) servePull(s *Sim, c *cpu) {}

func (p *linuxPolicy) shared() []*thread { return nil }

func (p *linuxPolicy) blocked(s *Sim, c *cpu, t *thread) {}
