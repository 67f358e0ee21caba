package playground

import (
	"fmt"
	"strconv"

	"schedplay/engine"
	"schedplay/playground/runner"
	"schedplay/view"
)

// Explain renders the last decision about the selection as one sentence, e.g.
// "CPU 0 · t = 2.431 507 s · wake of backend 41 queued on CPU 3, no IPI: target CPU
// is spinning in its idle loop and will see the wake".
func (m *Model) Explain() string {
	s := m.sel
	if s.CPU < 0 && s.Thread < 0 || s.Arm >= len(m.arms) {
		return ""
	}
	a := m.arms[s.Arm]
	who := "CPU " + strconv.Itoa(s.CPU)
	if s.Thread >= 0 {
		who = a.threadName(s.Thread) + " (" + schedWords(a, s.Thread) + "on CPU " + strconv.Itoa(s.CPU) + ")"
	}
	prefix := ""
	if len(m.arms) > 1 {
		prefix = string(rune('A'+s.Arm)) + " · "
	}
	if a.decisionFor != (runner.Selection{CPU: int32(s.CPU), Thread: int32(s.Thread)}) {
		return prefix + who + ": looking up the scheduler's last decision about it…"
	}
	d, ok := a.decision, a.hasDecision
	if !ok {
		return prefix + who + ": no scheduling decision about it yet (they are kept for the last thousand or so)."
	}
	return prefix + who + " · t = " + view.SimTime(d.AtNs) + " · " + sentence(a, d)
}

// schedWords says a thread's class and weight under the Linux policy, as
// "nice 10, weight 110, " or "SCHED_FIFO 50, " ("" when it has none).
func schedWords(a *Arm, id int) string {
	t, ok := a.thread(id)
	switch {
	case !ok:
		return ""
	case t.Class == engine.ClassRT && t.RR:
		return "SCHED_RR " + strconv.Itoa(t.RTPrio) + ", "
	case t.Class == engine.ClassRT:
		return "SCHED_FIFO " + strconv.Itoa(t.RTPrio) + ", "
	case t.Class == engine.ClassDL:
		return fmt.Sprintf("SCHED_DEADLINE %s of every %s, ", view.Duration(float64(t.DLRuntimeNs)), view.Duration(float64(t.DLPeriodNs)))
	case t.Weight == engine.WeightIdlePrio:
		return fmt.Sprintf("SCHED_IDLE, weight %d, ", t.Weight)
	case t.Weight > 0:
		return fmt.Sprintf("nice %d, weight %d, ", engine.NiceOfWeight(t.Weight), t.Weight)
	}
	return ""
}

func (a *Arm) threadName(id int) string {
	if t, ok := a.thread(id); ok && t.Name != "" {
		return t.Name
	}
	return "thread " + strconv.Itoa(id)
}

// sentence turns a decision record into words; Reason is the engine's own phrase.
// The rules behind the decisions are described in docs/mechanisms.md.
func sentence(a *Arm, d engine.Decision) string {
	cpu, tgt := int(d.CPU), int(d.Target)
	th := ""
	if d.Thread >= 0 {
		th = a.threadName(int(d.Thread))
	}
	switch d.Kind {
	case engine.DecWakePlace:
		return fmt.Sprintf("wake of %s queued on CPU %d: %s", th, tgt, d.Reason)
	case engine.DecIPISent:
		return fmt.Sprintf("CPU %d woke %s on CPU %d with a wakeup IPI: %s", cpu, th, tgt, d.Reason)
	case engine.DecIPISuppressed:
		return fmt.Sprintf("wake of %s queued on CPU %d, no IPI: %s", th, tgt, d.Reason)
	case engine.DecPreempt:
		return fmt.Sprintf("%s preempted the running thread on CPU %d: %s", th, cpu, d.Reason)
	case engine.DecPullRequest:
		return fmt.Sprintf("CPU %d sent a pull request to CPU %d (load %d): %s", cpu, tgt, d.Value, d.Reason)
	case engine.DecPullRefused:
		return fmt.Sprintf("CPU %d did not ask CPU %d for work: %s", cpu, tgt, d.Reason)
	case engine.DecDonate:
		return fmt.Sprintf("CPU %d donated %s to CPU %d: %s", cpu, th, tgt, d.Reason)
	case engine.DecDonateNone:
		return fmt.Sprintf("CPU %d had nothing to donate to CPU %d: %s", cpu, tgt, d.Reason)
	case engine.DecBalancePush:
		return fmt.Sprintf("the load balancer on CPU %d pushed %s to CPU %d (load %d): %s", cpu, th, tgt, d.Value, d.Reason)
	case engine.DecSpinGrow:
		return fmt.Sprintf("CPU %d spin window %s iterations: %s", cpu, view.Grouped(d.Value), d.Reason)
	case engine.DecSpinShrink:
		return fmt.Sprintf("CPU %d spin window %s iterations: %s", cpu, view.Grouped(d.Value), d.Reason)
	case engine.DecNewidlePull:
		return fmt.Sprintf("CPU %d, about to go idle, pulled %s from CPU %d (%d queued there): %s", cpu, th, tgt, d.Value, d.Reason)
	}
	return fmt.Sprintf("%s on CPU %d: %s", d.Kind, cpu, d.Reason)
}
