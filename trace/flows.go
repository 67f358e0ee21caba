package trace

// IPIs as flow arrows: an IPI's send starts a flow on the sender's track and its
// arrival ends it on the target's, matched FIFO per target and kind.

import (
	"cmp"
	"slices"

	"schedplay/engine"
)

// pend is an IPI in flight; flow is its flow id, 0 when no "s" was written.
type pend struct {
	flow   uint64
	from   int32
	thread int32
}

// ipiKey identifies an IPI queue: target CPU and kind.
type ipiKey struct {
	to   int32
	kind engine.IPIKind
}

// ipiSend handles an IPI leaving CPU e.CPU for e.Other.
func (tw *writer) ipiSend(e engine.VisEvent) {
	if e.Other < 0 || int(e.Other) >= tw.ext() {
		return
	}
	p := pend{from: e.CPU, thread: e.Thread}
	arrive := e.AtNs + int64(e.Arg)
	if tw.begun && arrive < tw.until {
		tw.nextFlow++
		p.flow = tw.nextFlow
		t := &tw.tracks[tw.trackOf(e.CPU)]
		tw.ensureOpen(t)
		if t.anchorTs != e.AtNs {
			tw.sendInstant(t, e)
		}
		tw.flowEvent(t, 's', e.AtNs, p.flow, e.IPI)
		tw.stats.Flows++
	} else if tw.begun {
		tw.stats.DroppedFlows++
	}
	q := ipiKey{e.Other, e.IPI}
	tw.inflight[q] = append(tw.inflight[q], p)
}

// ipiArrive handles an IPI reaching CPU e.Other (matched FIFO per target and kind).
func (tw *writer) ipiArrive(e engine.VisEvent) {
	to := int(e.Other)
	if to < 0 || to >= tw.ext() {
		return
	}
	q := ipiKey{e.Other, e.IPI}
	p := pend{from: -1, thread: -1}
	if l := tw.inflight[q]; len(l) > 0 {
		p = l[0]
		copy(l, l[1:])
		tw.inflight[q] = l[:len(l)-1]
	}
	if !tw.begun {
		return
	}
	t := &tw.tracks[to]
	tw.ensureOpen(t)
	tw.arriveInstant(t, e.AtNs, e.IPI, p, false)
	if p.flow != 0 {
		tw.flowEvent(t, 'f', e.AtNs, p.flow, e.IPI)
	} else {
		tw.stats.DroppedFlows++
	}
}

// endFlows ends at end every flow still in flight, keeping the invariant that
// every flow start has its end. The engine delivers an IPI exactly Arg after its
// send, and sends that arrive after the window get no arrow, so flows still open
// here come from a MaxBytes cut (or an engine that changed). They are ended in
// flow id order, for a stable output.
func (tw *writer) endFlows(end int64) {
	type flight struct {
		key ipiKey
		p   pend
	}
	var open []flight
	for q, l := range tw.inflight {
		for _, p := range l {
			if p.flow != 0 {
				open = append(open, flight{q, p})
			}
		}
	}
	slices.SortFunc(open, func(a, b flight) int { return cmp.Compare(a.p.flow, b.p.flow) })
	for _, f := range open {
		t := &tw.tracks[f.key.to]
		tw.ensureOpen(t)
		tw.arriveInstant(t, end, f.key.kind, f.p, true)
		tw.flowEvent(t, 'f', end, f.p.flow, f.key.kind)
	}
	clear(tw.inflight)
}
