package engine

// Observation without allocation: the visual-event ring the browser drains each
// frame, the bounded decision-record ring, IPIs in flight, and snapshots.

// visRing keeps the newest visual events. Writers overwrite the oldest; a reader
// drains what it has not seen.
type visRing struct {
	buf     []VisEvent
	written uint64 // total events ever added
	read    uint64 // total events drained
	// observe, when set, sees every event as it happens (trace export), so long
	// runs lose nothing even though the ring is bounded.
	observe func(VisEvent)
	// off skips recording when nobody will read the events (a headless run).
	off bool
}

// init sizes the ring; n must be a power of two (the index is a mask, not a
// division, on every event).
func (r *visRing) init(n int) {
	if n&(n-1) != 0 {
		panic("engine.visRing.init: size is not a power of two")
	}
	r.buf = make([]VisEvent, n)
}

// add records e (when anyone will read it).
func (r *visRing) add(e VisEvent) {
	if r.off && r.observe == nil {
		return
	}
	r.buf[r.written&uint64(len(r.buf)-1)] = e
	r.written++
	if r.observe != nil {
		r.observe(e)
	}
}

// SetVisual turns the recording of visual events (DrainVis) on or off. A run
// that nobody animates saves the time (about a tenth of the engine's); results
// and decision records do not change, and Observe still sees every event.
func (s *Sim) SetVisual(on bool) { s.vis.off = !on }

// Observe makes fn see every visual event synchronously as it happens, in order
// (nil stops it). For VisDecision events, DecisionAt(e.Arg) is the record, valid
// until that ring slot is reused (1024 decisions later): read it inside fn.
func (s *Sim) Observe(fn func(VisEvent)) { s.vis.observe = fn }

// DecisionAt returns the decision record in ring slot i (a VisDecision's Arg).
func (s *Sim) DecisionAt(i int) Decision { return s.dec.buf[i] }

// ThreadInfo describes thread id (name, role, pinned) for labels.
func (s *Sim) ThreadInfo(id int) (name string, role ThreadRole, pinned bool) {
	t := s.threads[id]
	return t.name, t.role, t.pinned
}

// NumCPUs is the number of simulated CPUs.
func (s *Sim) NumCPUs() int { return len(s.cpus) }

// DrainVis appends the visual events since the previous drain to dst, oldest first.
// The buffer keeps the newest 4096: if more happened since the last drain, the
// oldest are dropped (a frame that far behind could not animate them anyway).
func (s *Sim) DrainVis(dst []VisEvent) []VisEvent {
	r := &s.vis
	n := uint64(len(r.buf))
	if r.written-r.read > n {
		r.read = r.written - n
	}
	for ; r.read < r.written; r.read++ {
		dst = append(dst, r.buf[r.read%n])
	}
	return dst
}

// decisionRing keeps the newest decision records.
type decisionRing struct {
	buf     []Decision
	written uint64
}

func (r *decisionRing) init(n int) { r.buf = make([]Decision, n) }

// decide records a decision. Reasons are constant strings, so this never allocates.
func (s *Sim) decide(k DecisionKind, cpu, target, thread int, reason string, value int64) {
	r := &s.dec
	slot := int(r.written % uint64(len(r.buf)))
	r.buf[slot] = Decision{AtNs: s.now, Kind: k, CPU: int32(cpu),
		Target: int32(target), Thread: int32(thread), Reason: reason, Value: value}
	r.written++
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisDecision, CPU: int32(cpu), Other: int32(target), Thread: int32(thread), Arg: int32(slot)})
}

// Decisions appends the retained decision records (oldest first) to dst.
func (s *Sim) Decisions(dst []Decision) []Decision {
	r := &s.dec
	n := uint64(len(r.buf))
	start := uint64(0)
	if r.written > n {
		start = r.written - n
	}
	for i := start; i < r.written; i++ {
		dst = append(dst, r.buf[i%n])
	}
	return dst
}

// LastDecision returns the newest retained decision about a thread (thread >= 0)
// or, with thread < 0, made by or aimed at a CPU.
func (s *Sim) LastDecision(cpu, thread int) (Decision, bool) {
	r := &s.dec
	n := uint64(len(r.buf))
	for i := r.written; i > 0 && r.written-i < n; i-- {
		d := r.buf[(i-1)%n]
		if thread >= 0 && int(d.Thread) == thread {
			return d, true
		}
		if thread < 0 && (int(d.CPU) == cpu || int(d.Target) == cpu) {
			return d, true
		}
	}
	return Decision{}, false
}

// ipiFlight is an IPI between send and arrival.
type ipiFlight struct {
	kind      IPIKind
	from, to  int
	sent, due int64
	thread    int
}

type inflight struct{ l []ipiFlight }

func (f *inflight) add(x ipiFlight) { f.l = append(f.l, x) }

// arrived removes the oldest matching IPI to cpu.
func (f *inflight) arrived(to int, k IPIKind, now int64) {
	for i, x := range f.l {
		if x.to == to && x.kind == k && x.due <= now {
			copy(f.l[i:], f.l[i+1:])
			f.l = f.l[:len(f.l)-1]
			return
		}
	}
}

// Snapshot fills dst with the machine's current state, reusing dst's slices.
func (s *Sim) Snapshot(dst *Snapshot) {
	dst.NowNs = s.now
	s.m.settle(s) // the integrals up to now
	dst.Live = s.m.live
	if cap(dst.CPUs) < len(s.cpus) {
		dst.CPUs = make([]CPUSnap, len(s.cpus))
	}
	dst.CPUs = dst.CPUs[:len(s.cpus)]
	for i, c := range s.cpus {
		d := &dst.CPUs[i]
		d.ID, d.State, d.Load = c.id, c.state, c.load()
		d.Running = -1
		if c.cur != nil {
			d.Running = c.cur.id
		}
		d.Runqueue = d.Runqueue[:0]
		for _, t := range c.rq {
			d.Runqueue = append(d.Runqueue, t.id)
		}
		d.Incoming = d.Incoming[:0]
		for _, t := range c.incoming {
			d.Incoming = append(d.Incoming, t.id)
		}
		d.SpinWindow, d.SpinCap = c.spinWindow, s.spinCap
		d.HostPollNs = c.hostPollNs
		d.PullSlot = c.pullSlot
	}
	if cap(dst.Threads) < len(s.threads) {
		dst.Threads = make([]ThreadSnap, len(s.threads), len(s.threads)+16)
	}
	dst.Threads = dst.Threads[:len(s.threads)]
	for i, t := range s.threads {
		dst.Threads[i] = ThreadSnap{ID: t.id, Name: t.name, Role: t.role, State: t.state, CPU: t.cpu, Pinned: t.pinned,
			Class: SchedClass(t.class), RTPrio: t.rt.prio, RR: t.rt.rr, DLRuntimeNs: t.dl.dlRuntime, DLPeriodNs: t.dl.dlPeriod}
		if s.fair {
			dst.Threads[i].Weight = t.fair.weight
		}
	}
	dst.Shared = dst.Shared[:0]
	for _, t := range s.pol.shared() {
		dst.Shared = append(dst.Shared, t.id)
	}
	dst.IPIs = dst.IPIs[:0]
	for _, x := range s.inflight.l {
		dst.IPIs = append(dst.IPIs, IPISnap{Kind: x.kind, From: x.from, To: x.to, SentNs: x.sent, DueNs: x.due,
			ForThread: x.thread, HaltedTarget: s.cpus[x.to].state == CPUHalted})
	}
}
