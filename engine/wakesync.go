package engine

import "strconv"

// WAKE_SYNC migration in sched_ext (docs/mechanisms.md, WAKE_SYNC): scx_simple
// (tools/sched_ext/scx_simple.bpf.c) with one of three WAKE_SYNC rules of
// scx_select_cpu_dfl (kernel/sched/ext_idle.c): the old one, the one first
// proposed to fix it, and the new one that was merged.
//
// scx_simple keeps a FIFO local queue per CPU (the CPU's runqueue here) and one
// shared queue in vtime order. A woken task for which select_cpu finds an idle
// CPU is inserted straight into that CPU's local queue with a 20 ms slice;
// otherwise it goes on the shared queue, and that insertion kicks no idle CPU.
// There is no wakeup preemption, and an idle CPU consumes only the shared queue,
// never another CPU's local queue.
//
// select_cpu_dfl, in the published order: if the wake carries WAKE_SYNC and the
// wakee may run on the waker's CPU, it goes to the waker's CPU when
//   - old: some CPU is idle;
//   - proposed (sched_ext pull request 167 as first posted, "scx: Update
//     conditions for WAKE_SYNC migration"): the waker CPU's local queue is empty,
//     the idle test removed;
//   - new (merged): both. The reviewer asked to keep the idle test for fairness: on
//     a saturated machine the wakee would skip the shared queue it should join at
//     the end; the merged code's comment says so ("checking only for an empty
//     local DSQ is insufficient as it could give the wakee an unfair advantage
//     when the system is oversaturated").
// Then: the previous CPU if idle, any idle CPU, else the previous CPU as "not
// found" (shared queue). Idle CPUs found by the later steps are claimed (their
// idle bit cleared) so two wakes do not pick the same one; the WAKE_SYNC branch
// claims nothing.
//
// Why the old rule never recovers (all four are modelled): the WAKE_SYNC branch
// does not claim the idle CPU it saw; the shared queue kicks no idle CPU; idle CPUs
// never take from a local queue; and hackbench tasks block long before their 20 ms
// slice ends. So while any CPU is idle, sync wakes stay on the waker's CPU.

type scxSimplePolicy struct {
	rule     syncRule
	sliceNs  int64     // SCX_SLICE_DFL
	sharedQ  []*thread // ascending vtime
	claimed  []bool    // by CPU: idle bit cleared by a select_cpu pick
	vtimeNow float64
}

// syncRule is which WAKE_SYNC rule select_cpu_dfl applies (sched.wake_sync).
type syncRule uint8

const (
	syncOld      syncRule = iota // some CPU is idle
	syncProposed                 // the waker CPU's local queue is empty
	syncNew                      // both
)

func parseSyncRule(name string) syncRule {
	switch name {
	case "old":
		return syncOld
	case "proposed":
		return syncProposed
	}
	return syncNew
}

// idleCPU reports whether c is idle in the scx sense: in its idle loop with
// nothing queued and not claimed by an earlier pick. A CPU still spending the
// overhead of the task that left it (payDebt, state running) is not idle yet.
func (p *scxSimplePolicy) idleCPU(s *Sim, c *cpu) bool {
	if p.claimed == nil {
		p.claimed = make([]bool, len(s.cpus))
	}
	return c.cur == nil && c.state != CPUIRQ && c.state != CPURunning && len(c.rq) == 0 && len(c.incoming) == 0 && !p.claimed[c.id]
}

func (p *scxSimplePolicy) placeWake(s *Sim, t *thread, from int, sync bool) placement {
	if sync && from >= 0 && (!t.pinned || t.cpu == from) {
		wc := s.cpus[from]
		empty := len(wc.rq) == 0 && len(wc.incoming) == 0
		switch {
		case p.rule == syncOld && p.anyIdle(s):
			return placement{cpu: from, reason: "WAKE_SYNC (old rule): a CPU is idle somewhere, so the wakee joins the waker's CPU"}
		case p.rule == syncProposed && empty:
			return placement{cpu: from, reason: "WAKE_SYNC (proposed rule): the waker CPU's local queue is empty, so the wakee joins it, idle CPUs or not"}
		case p.rule == syncNew && empty && p.anyIdle(s):
			return placement{cpu: from, reason: "WAKE_SYNC (new rule): a CPU is idle somewhere and the waker CPU's local queue is empty"}
		}
	}
	if prev := s.cpus[t.cpu]; p.idleCPU(s, prev) {
		p.claimed[prev.id] = true
		return placement{cpu: prev.id, reason: "previous CPU is idle (claimed)"}
	}
	for _, c := range s.cpus {
		if p.idleCPU(s, c) {
			p.claimed[c.id] = true
			return placement{cpu: c.id, reason: "an idle CPU was found (claimed)"}
		}
	}
	return placement{cpu: t.cpu, shared: true, reason: "no idle CPU: the shared queue, which kicks no CPU"}
}

// anyIdle is select_cpu_dfl's !cpumask_empty(idle mask): some CPU is idle.
func (p *scxSimplePolicy) anyIdle(s *Sim) bool {
	for _, c := range s.cpus {
		if p.idleCPU(s, c) {
			return true
		}
	}
	return false
}

// wakeIPI: a direct insertion into an idle CPU's local queue kicks it.
func (p *scxSimplePolicy) wakeIPI(s *Sim, c *cpu, pending, spinning bool) (bool, string) {
	if spinning {
		return false, "target CPU is in its idle loop and will see the task"
	}
	if c.cur != nil {
		return false, "target CPU is running; no wakeup preemption in scx_simple"
	}
	if c.wakePending {
		return false, "a kick is already pending on the target"
	}
	return true, "kick the idle CPU whose local queue got the task"
}

// yieldAtStepEnd: only an expired slice ends a turn.
func (p *scxSimplePolicy) yieldAtStepEnd(s *Sim, c *cpu) bool {
	return s.now-c.dispatchNs >= p.sliceNs && (len(c.rq) > 0 || len(p.sharedQ) > 0)
}

func (p *scxSimplePolicy) timeSlices() bool { return false }

func (p *scxSimplePolicy) preemptReason() string {
	return "its " + strconv.FormatFloat(float64(p.sliceNs)/1e6, 'g', -1, 64) + " ms slice expired"
}

// requeue is scx_simple's enqueue: onto the shared queue in vtime order, a sleeper
// credited at most one slice behind the current vtime.
func (p *scxSimplePolicy) requeue(s *Sim, c *cpu, t *thread) {
	t.state = ThreadQueued
	vt := t.runNs
	if floor := p.vtimeNow - float64(p.sliceNs); vt < floor {
		vt = floor
	}
	t.vtime = vt
	i := len(p.sharedQ)
	p.sharedQ = append(p.sharedQ, t)
	for i > 0 && p.sharedQ[i-1].vtime > vt {
		p.sharedQ[i] = p.sharedQ[i-1]
		i--
	}
	p.sharedQ[i] = t
}

// pick: the CPU's local queue first, then the shared queue.
func (p *scxSimplePolicy) pick(s *Sim, c *cpu) *thread {
	if p.claimed != nil {
		p.claimed[c.id] = false
	}
	t := rqPopHead(s, c)
	if t == nil && len(p.sharedQ) > 0 {
		t = p.sharedQ[0]
		copy(p.sharedQ, p.sharedQ[1:])
		p.sharedQ[len(p.sharedQ)-1] = nil
		p.sharedQ = p.sharedQ[:len(p.sharedQ)-1]
		if t.lastCPU != c.id {
			s.migrateCount(t, t.lastCPU, c.id)
		}
	}
	if t != nil && t.vtime > p.vtimeNow {
		p.vtimeNow = t.vtime
	}
	return t
}

func (p *scxSimplePolicy) idleEnter(s *Sim, c *cpu) bool {
	if p.claimed != nil {
		p.claimed[c.id] = false
	}
	return false
}

func (p *scxSimplePolicy) servePull(s *Sim, c *cpu) {}

func (p *scxSimplePolicy) shared() []*thread { return p.sharedQ }
