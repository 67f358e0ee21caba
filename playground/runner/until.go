package runner

// Running until something happens: an advance request that stops an arm right after the
// first event of a kind (Advance.Until), so a lesson can pause at "the first pull
// IPI" at the same simulated nanosecond on every run. The arm is stepped one engine
// event at a time and the visual events of each are looked at; a chunk is the
// usual bound on how many events one turn may take.

import (
	"schedplay/engine"
)

// Event is what an Advance may stop at (Advance.Until). EventNone runs to ToNs.
type Event uint8

const (
	EventNone       Event = iota
	EventPullIPI          // an idle CPU sends a pull request (idle pull)
	EventDonation         // a victim donates a thread to a puller
	EventMigration        // a thread moves to another CPU (balancer, donation, Linux newidle, a wake or fork placed elsewhere)
	EventHalt             // a CPU halts (a VM exit under KVM)
	EventSpinGrow         // an adaptive spin window snaps to its cap (a wake caught while spinning)
	EventSpinShrink       // an adaptive spin window halves (halts without a caught wake)
	EventDone             // the workload finishes (hackbench); runs without stepping
	numEvents
)

// String is the event's name as lessons write it ("pull_ipi").
func (e Event) String() string {
	switch e {
	case EventNone:
		return ""
	case EventPullIPI:
		return "pull_ipi"
	case EventDonation:
		return "donation"
	case EventMigration:
		return "migration"
	case EventHalt:
		return "halt"
	case EventSpinGrow:
		return "spin_grow"
	case EventSpinShrink:
		return "spin_shrink"
	case EventDone:
		return "done"
	}
	return "event?"
}

// Events lists the events, EventNone excluded.
func Events() []Event {
	out := make([]Event, 0, numEvents-1)
	for e := EventNone + 1; e < numEvents; e++ {
		out = append(out, e)
	}
	return out
}

// EventNamed returns the event a lesson names, or false.
func EventNamed(name string) (Event, bool) {
	for e := EventPullIPI; e < numEvents; e++ {
		if e.String() == name {
			return e, true
		}
	}
	return EventNone, false
}

// stepped reports whether the event is looked for event by event: every event
// but EventDone, which the engine stops at by itself.
func (e Event) stepped() bool { return e != EventNone && e != EventDone }

// records reports whether decision kind k is the engine's record of e.
func (e Event) records(k engine.DecisionKind) bool {
	switch e {
	case EventPullIPI:
		return k == engine.DecPullRequest
	case EventDonation:
		return k == engine.DecDonate
	case EventMigration:
		return k == engine.DecBalancePush || k == engine.DecDonate || k == engine.DecNewidlePull
	case EventSpinGrow:
		return k == engine.DecSpinGrow
	case EventSpinShrink:
		return k == engine.DecSpinShrink
	}
	return false
}

// eventHit is where an event happened: the CPU (the sender of an IPI, the CPU
// a thread left, the CPU that halted or changed its window) and the decision
// the engine recorded for it, if any.
type eventHit struct {
	cpu         int32
	decision    engine.Decision
	hasDecision bool
}

// find looks for e among vis, the visual events of one engine event. A
// migration a wake or a fork makes (the thread placed on another CPU than
// its last) is recorded by the placement's decision about that thread,
// which follows the move.
func (e Event) find(sim *engine.Sim, vis []engine.VisEvent) (eventHit, bool) {
	h := eventHit{cpu: -1}
	moved := int32(-1)
	for _, v := range vis {
		switch {
		case v.Kind == engine.VisDecision:
			// Read at once: the slot is this event's decision.
			d := sim.DecisionAt(int(v.Arg))
			placed := d.Kind == engine.DecWakePlace && moved >= 0 && d.Thread == moved
			if (e.records(d.Kind) || placed) && !h.hasDecision {
				h.decision, h.hasDecision = d, true
				if e == EventSpinGrow || e == EventSpinShrink {
					h.cpu = v.CPU
				}
			}
		case h.cpu >= 0:
		case v.Kind == engine.VisIPISend && v.IPI == engine.IPIPull && e == EventPullIPI,
			v.Kind == engine.VisIPISend && v.IPI == engine.IPIDonate && e == EventDonation,
			v.Kind == engine.VisHalt && e == EventHalt:
			h.cpu = v.CPU
		case v.Kind == engine.VisMigrate && e == EventMigration:
			h.cpu, moved = v.CPU, v.Thread
		}
	}
	return h, h.cpu >= 0
}

// runUntilEvent serves a stepped Until request for at most a chunk of events,
// one engine event at a time, and reports whether the request is complete: the
// event happened (the clock is at its time; a.hit says where), or the clock
// reached ToNs, or the run is done.
func (a *hostArm) runUntilEvent(req Advance) bool {
	for range a.chunk {
		if a.sim.Done() {
			return true
		}
		n := a.sim.RunUntilN(req.ToNs, 1)
		a.drain(req)
		if n == 0 {
			return true
		}
		if h, ok := req.Until.find(a.sim, a.vis); ok {
			a.hit = &h
			return true
		}
	}
	return false
}
