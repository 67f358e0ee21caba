package engine

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// Checkpoints: the whole state of a simulation as compact bytes, and a
// simulation resumed from them. The engine is deterministic, so the state at
// a moment is a pure function of the scenario; a checkpoint saves computing
// it again. Resuming one and running on gives, event for event, what running
// from time zero gives (results, series and decision records byte-identical,
// natively and in js/wasm; checkpoint_test.go).
//
// # Format (version 1)
//
// A checkpoint is a header and a body. The header is the magic "SPCK", the
// format version (uvarint), the scenario's ScenarioKey (16 bytes), the clock
// and the event count (varints) and the note (a length-prefixed byte string
// the caller chose, e.g. the scenario's JSON so that a refusal can say what
// differs); ReadCheckpointInfo reads it alone. The body is the table of the
// strings it uses (thread names, decision reasons), then, in this order: the
// random generator's state (rand.PCG's binary form), the clock's decay
// normalisation and the finish time, the threads, the CPUs, the kernel
// threads, the pending events, the IPIs in flight, the decision ring, the
// metrics (measured windows with their histograms, live totals, the series),
// the policy's state and the workload's state (their ckSave and ckLoad
// methods, so each kind carries its own), then the magic "END." The
// primitives are in checkpoint_wire.go: varints, times relative to the clock,
// floats as byte-reversed bits, threads by id.
//
// Not in a checkpoint: what follows from the scenario (costs, factors, the
// policy's and workloads' configuration, counts kept as sums of other state,
// which Resume recomputes), scratch space that holds nothing between events,
// and the visual-event ring: a resumed simulation starts with it empty, as if
// drained at the checkpoint (the page drains it after every chunk anyway).
// checkpoint_fields_test.go lists every field of every state type with how it
// is handled, and fails, naming the field, when one appears that the list
// does not have.
//
// # Versioning
//
// An engine reads only checkpoints of its own CheckpointVersion: there is no
// migration, since a checkpoint is a cache that can always be made again from
// its scenario. Any change to what is written (a field added, removed,
// reordered or read differently) bumps the version. A change to what the engine
// does that leaves the layout alone does not, but then an old checkpoint holds
// a state the new engine might never reach: whoever stores checkpoints ties
// them to the engine that made them (the page's are rebuilt with its bundle,
// internal/wasmbuild; a share's are stored under the engine's calibration
// fingerprint, web/).
//
// Resume decodes into a fresh Sim and returns it only when everything read is
// valid: every thread id, CPU id, string, ring and window index in range, each
// thread in exactly one place (blocked, running, in one runqueue, incoming
// list or shared queue), the workload's threads and events its own. It never
// panics on damaged input and allocates only what the input's length can
// hold (FuzzCheckpoint).

// CheckpointVersion is the checkpoint format this engine writes and reads.
const CheckpointVersion = 1

const (
	ckMagic = "SPCK"
	ckEnd   = "END."
	// maxCkWindows bounds the measured windows a checkpoint may hold: each
	// takes three fixed-size histograms once decoded.
	maxCkWindows = 64
	// maxCkThreads bounds the threads: the most any scenario within Limits
	// creates, with room to spare.
	maxCkThreads = MaxClients + MaxHackbenchTasks + MaxSyncPairsTasks + 4*MaxVCPUs + 16
	// maxCkNote bounds the note.
	maxCkNote = 1 << 20
)

// Checkpoint errors: every error Resume and ReadCheckpointInfo return wraps
// one of them.
var (
	// ErrCheckpointVersion: the checkpoint is of another format version.
	ErrCheckpointVersion = errors.New("checkpoint: another format version")
	// ErrCheckpointScenario: the checkpoint is of another scenario.
	ErrCheckpointScenario = errors.New("checkpoint: another scenario")
	// ErrCheckpointCorrupt: the checkpoint is truncated, damaged or not one.
	ErrCheckpointCorrupt = errors.New("checkpoint: damaged")
)

// CheckpointOptions say what a checkpoint keeps beyond the simulation state.
type CheckpointOptions struct {
	// Windows lists the measured windows to keep (see AddWindow), by index,
	// in the order the resumed simulation numbers them; it must start with 0,
	// the scenario's own. Nil keeps every window.
	Windows []int
	// Note is stored as it is and returned by ReadCheckpointInfo (the CLI
	// stores the scenario's JSON, to say what differs when it is refused).
	Note []byte
}

// CheckpointInfo is a checkpoint's header.
type CheckpointInfo struct {
	Version int
	// Key is the scenario's (Scenario.Key).
	Key ScenarioKey
	// NowNs is the simulated time it was taken at; Events the events
	// processed by then.
	NowNs, Events int64
	Note          []byte
}

// AppendCheckpoint appends the simulation's state to dst (see the format
// above). It changes nothing in s, so the run can go on. Taken between two
// events (after Step, RunUntil or RunUntilN returns), it resumes to exactly
// the same run.
func (s *Sim) AppendCheckpoint(dst []byte, o CheckpointOptions) ([]byte, error) {
	wins := o.Windows
	if wins == nil {
		for i := range s.m.win {
			wins = append(wins, i)
		}
	}
	if len(wins) == 0 || wins[0] != 0 {
		return dst, errors.New("engine.AppendCheckpoint: the windows kept must start with 0, the scenario's own")
	}
	for i, w := range wins {
		if w < 0 || w >= len(s.m.win) || slices.Contains(wins[:i], w) {
			return dst, fmt.Errorf("engine.AppendCheckpoint: window %d is not one of the %d measured windows, or is kept twice", w, len(s.m.win))
		}
	}
	if len(wins) > maxCkWindows {
		return dst, fmt.Errorf("engine.AppendCheckpoint: %d windows are more than a checkpoint keeps (%d)", len(wins), maxCkWindows)
	}
	w := &ckWriter{now: s.now, strs: map[string]int{}}
	s.ckSave(w, wins)

	dst = append(dst, ckMagic...)
	key := s.sc.Key()
	hw := &ckWriter{b: dst}
	hw.n(CheckpointVersion)
	hw.b = append(hw.b, key[:]...)
	hw.iv(s.now)
	hw.iv(s.events)
	hw.n(len(o.Note))
	hw.b = append(hw.b, o.Note...)
	hw.n(len(w.tab))
	for _, str := range w.tab {
		hw.n(len(str))
		hw.b = append(hw.b, str...)
	}
	hw.b = append(hw.b, w.b...)
	return append(hw.b, ckEnd...), nil
}

// ReadCheckpointInfo reads a checkpoint's header.
func ReadCheckpointInfo(data []byte) (CheckpointInfo, error) {
	r := &ckReader{b: data, idx: -1}
	info := readHeader(r)
	return info, r.err
}

func readHeader(r *ckReader) CheckpointInfo {
	var info CheckpointInfo
	r.in("header", -1)
	if !bytes.HasPrefix(r.b, []byte(ckMagic)) {
		r.failf("not a schedplay checkpoint (it does not start with %q)", ckMagic)
		return info
	}
	r.off = len(ckMagic)
	v := r.uv()
	if r.err != nil {
		return info
	}
	if v != CheckpointVersion {
		r.err = fmt.Errorf("%w: the checkpoint is format version %d; this engine reads version %d (make it again from its scenario)", ErrCheckpointVersion, v, CheckpointVersion)
		return info
	}
	info.Version = int(v)
	if len(r.b)-r.off < len(info.Key) {
		r.short()
		return info
	}
	copy(info.Key[:], r.b[r.off:])
	r.off += len(info.Key)
	info.NowNs = r.iv()
	info.Events = r.iv()
	if info.NowNs < 0 || info.Events < 0 {
		r.failf("negative clock %d or event count %d", info.NowNs, info.Events)
	}
	info.Note = r.raw(maxCkNote)
	return info
}

// Resume rebuilds the simulation a checkpoint of sc saved (with the measured
// windows it kept), ready to run on; Step, RunUntil and the rest then go on
// exactly as the saved run would have. It refuses, changing nothing, a
// checkpoint of another scenario (ErrCheckpointScenario) or format version
// (ErrCheckpointVersion), and a damaged one (ErrCheckpointCorrupt, naming
// where). Visual events are recorded as NewSim's are (SetVisual), none before
// the checkpoint's moment.
func Resume(sc Scenario, data []byte) (*Sim, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	r := &ckReader{b: data, idx: -1}
	info := readHeader(r)
	if r.err != nil {
		return nil, r.err
	}
	if key := sc.Key(); info.Key != key {
		return nil, fmt.Errorf("%w: it was taken from the scenario with key %s; this scenario's key is %s", ErrCheckpointScenario, info.Key, key)
	}
	r.in("strings", -1)
	r.tab = make([]string, r.count(1, 1<<16))
	for i := range r.tab {
		r.tab[i] = string(r.raw(1 << 12))
	}
	s := newSimBase(sc)
	r.s, r.now = s, info.NowNs
	s.now, s.events = info.NowNs, info.Events
	if s.now > s.end {
		r.in("header", -1)
		r.failf("the clock %d ns is past the horizon %d ns", s.now, s.end)
	}
	s.ckLoad(r)
	if r.err == nil {
		r.in("end", -1)
		if !bytes.Equal(r.b[r.off:], []byte(ckEnd)) {
			r.failf("%d bytes where the end mark should be", len(r.b)-r.off)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return s, nil
}

// ckSave writes the body.
func (s *Sim) ckSave(w *ckWriter, wins []int) {
	pcg, _ := s.pcg.AppendBinary(nil) // never fails
	w.n(len(pcg))
	w.b = append(w.b, pcg...)
	w.iv(s.decayBase)
	w.iv(s.decayAt)
	w.f64(s.decayScale)
	w.iv(s.finishedNs)

	w.n(len(s.threads))
	for _, t := range s.threads {
		w.str(t.name)
		w.byte(byte(t.role) | byte(t.state)<<4)
		w.n(t.cpu)
		w.flags(t.pinned, t.hasStep)
		w.f64(t.vr)
		w.f64(t.prio)
		w.f64(t.runNs)
		w.f64(t.vtime)
		w.iv(t.remainingNs)
		w.at(t.lastRanNs)
		w.n(t.lastCPU)
		w.iv(t.wokenAtNs)
		w.iv(t.requeuedAtNs)
		w.iv(int64(t.local))
	}

	for _, c := range s.cpus {
		w.byte(byte(c.state))
		w.thr(c.cur)
		w.threads(c.rq)
		w.threads(c.incoming)
		w.flags(c.needResched, c.wakePending, c.irqPaused, c.irqFromIdl, c.irqWork.pull)
		w.uv(uint64(c.gen))
		w.at(c.segStartNs)
		w.f64(c.segScale)
		w.f64(c.hystCredit)
		w.at(c.dispatchNs)
		w.at(c.stepEndNs)
		w.at(c.irqUntilNs)
		w.threads(c.irqWakes)
		w.thr(c.prevThread)
		w.iv(c.debtNs)
		w.iv(c.spinWindow)
		w.iv(int64(c.haltStreak))
		w.at(c.haltStartNs)
		w.at(c.pollEndNs)
		w.iv(c.hostPollNs)
		w.ref(c.pullSlot)
	}

	w.n(len(s.kthreads))
	for _, k := range s.kthreads {
		w.flags(k.kind == kernelHousekeeping, k.inPass)
	}

	s.q.ckSave(w)

	w.n(len(s.inflight.l))
	for _, x := range s.inflight.l {
		w.byte(byte(x.kind))
		w.ref(x.from)
		w.n(x.to)
		w.at(x.sent)
		w.at(x.due)
		w.ref(x.thread)
	}

	d := &s.dec
	w.uv(d.written)
	kept := min(d.written, uint64(len(d.buf)))
	prev := s.now // the oldest record's time relative to the clock, then each after the one before
	for i := d.written - kept; i < d.written; i++ {
		x := &d.buf[i%uint64(len(d.buf))]
		w.iv(x.AtNs - prev)
		prev = x.AtNs
		w.byte(byte(x.Kind))
		w.iv(int64(x.CPU))
		w.iv(int64(x.Target))
		w.iv(int64(x.Thread))
		w.str(x.Reason)
		w.iv(x.Value)
	}

	s.m.ckSave(w, wins)
	s.pol.ckSave(w)
	s.wl.ckSave(w)
}

// ckLoad reads the body into s, a newSimBase of the checkpoint's scenario.
func (s *Sim) ckLoad(r *ckReader) {
	ncpu := len(s.cpus)
	r.in("random generator", -1)
	if err := s.pcg.UnmarshalBinary(r.raw(64)); err != nil && r.err == nil {
		r.failf("%v", err)
	}
	r.in("clock", -1)
	s.decayBase = r.iv()
	s.decayAt = r.iv()
	s.decayScale = r.f64()
	s.finishedNs = r.intIn(-1, s.end)

	r.in("threads", -1)
	n := r.count(14, maxCkThreads)
	s.threads = make([]*thread, n)
	for i := range s.threads {
		s.threads[i] = &thread{id: i} // first, so references can resolve
	}
	for i, t := range s.threads {
		r.in("thread", i)
		t.name = r.str()
		rs := r.byte()
		t.role, t.state = ThreadRole(rs&15), ThreadState(rs>>4)
		if int(t.role) >= len(roleNames) || int(t.state) >= len(threadStateNames) {
			r.failf("role %d or state %d is not one", t.role, t.state)
			return
		}
		t.cpu = r.n(ncpu)
		fl := r.flags(2)
		t.pinned, t.hasStep = fl[0], fl[1]
		t.vr = r.f64()
		t.prio = r.f64()
		t.runNs = r.f64()
		t.vtime = r.f64()
		t.remainingNs = r.iv()
		t.lastRanNs = r.at()
		t.lastCPU = r.n(ncpu)
		t.wokenAtNs = r.intIn(-1, s.now)
		t.requeuedAtNs = r.intIn(-1, s.now)
		t.local = int(r.intIn(-1, maxCkThreads))
	}

	for i, c := range s.cpus {
		r.in("cpu", i)
		st := r.byte()
		if int(st) >= len(cpuStateNames) {
			r.failf("state %d is not one", st)
			return
		}
		c.state = CPUState(st)
		c.cur = r.thr()
		c.rq = r.threads(maxCkThreads)
		c.incoming = r.threads(maxCkThreads)
		fl := r.flags(5)
		c.needResched, c.wakePending, c.irqPaused, c.irqFromIdl, c.irqWork.pull = fl[0], fl[1], fl[2], fl[3], fl[4]
		c.gen = r.u32()
		c.segStartNs = r.at()
		c.segScale = r.f64()
		c.hystCredit = r.f64()
		c.dispatchNs = r.at()
		c.stepEndNs = r.at()
		c.irqUntilNs = r.at()
		c.irqWakes = r.threads(maxCkThreads)
		c.prevThread = r.thr()
		c.debtNs = r.iv()
		c.spinWindow = r.iv()
		c.haltStreak = int(r.intIn(0, 1<<31-1))
		c.haltStartNs = r.at()
		c.pollEndNs = r.at()
		c.hostPollNs = r.iv()
		c.pullSlot = r.ref(ncpu)
	}

	if r.err != nil {
		return
	}
	r.in("kernel threads", -1)
	s.kthreads = make([]kernelThread, r.count(1, 2*ncpu))
	for i := range s.kthreads {
		fl := r.flags(2)
		k := &s.kthreads[i]
		k.kind, k.inPass = kernelBalancer, fl[1]
		if fl[0] {
			k.kind = kernelHousekeeping
		}
		if k.kind == kernelBalancer && s.sc.Sched.Balancer == "drain" {
			k.pending = make([]int, ncpu) // a pass's scratch
		}
	}
	for i, t := range s.threads {
		kernel := t.role == RoleBalancer || t.role == RoleKernel
		if kernel && (t.local < 0 || t.local >= len(s.kthreads) || (s.kthreads[t.local].kind == kernelBalancer) != (t.role == RoleBalancer)) {
			r.in("thread", i)
			r.failf("a kernel thread whose state (%d) is not a kernel thread's of its kind", t.local)
		}
	}

	if r.err != nil {
		return
	}
	r.in("events", -1)
	s.q.ckLoad(r, s)

	r.in("IPIs in flight", -1)
	s.inflight.l = make([]ipiFlight, r.count(5, 1<<20))
	for i := range s.inflight.l {
		x := &s.inflight.l[i]
		k := r.byte()
		if k >= byte(numIPIKinds) {
			r.failf("IPI kind %d is not one", k)
		}
		x.kind = IPIKind(k)
		x.from = r.ref(ncpu)
		x.to = r.n(ncpu)
		x.sent = r.at()
		x.due = r.at()
		x.thread = r.ref(len(s.threads))
	}

	r.in("decisions", -1)
	d := &s.dec
	d.written = r.uv()
	kept := min(d.written, uint64(len(d.buf)))
	if kept > uint64(len(r.b)-r.off)/6 {
		r.failf("%d decisions do not fit in the bytes left", kept)
		kept = 0
	}
	prev := s.now
	for i := d.written - kept; i < d.written && r.err == nil; i++ {
		x := &d.buf[i%uint64(len(d.buf))]
		x.AtNs = prev + r.iv()
		floor := prev // each record is no older than the one before
		if i == d.written-kept {
			floor = 0 // the oldest is anywhere before the clock
		}
		if x.AtNs < floor || x.AtNs > s.now {
			r.failf("decision %d is at %d ns, before the one ahead of it or after the clock %d ns", i, x.AtNs, s.now)
		}
		prev = x.AtNs
		k := r.byte()
		if int(k) >= len(decisionKindNames) {
			r.failf("decision kind %d is not one", k)
		}
		x.Kind = DecisionKind(k)
		x.CPU = int32(r.intIn(-1, int64(ncpu)-1))
		x.Target = int32(r.intIn(-1, int64(ncpu)-1))
		x.Thread = int32(r.intIn(-1, int64(len(s.threads))-1))
		x.Reason = r.str()
		x.Value = r.iv()
	}

	r.in("metrics", -1)
	s.m.ckLoad(r, s)
	r.in("policy", -1)
	s.pol.ckLoad(r, s)
	if r.err != nil {
		return
	}
	s.checkPlaces(r)
	if r.err != nil {
		return
	}
	wl, err := workloadShell(s)
	if err != nil {
		r.failf("%v", err)
		return
	}
	s.wl = wl
	r.in("workload", -1)
	s.wl.ckLoad(r, s)
}

// checkPlaces checks that every thread is in exactly one place, the one its
// state says: blocked (nowhere), running on its CPU, in its CPU's runqueue or
// incoming list, or queued on the policy's shared queue.
func (s *Sim) checkPlaces(r *ckReader) {
	where := make([]int, len(s.threads)) // places found, by thread
	place := func(t *thread, ok bool, what string, cpu int) {
		where[t.id]++
		if !ok && r.err == nil {
			r.in("thread", t.id)
			r.failf("%s %d while it is %s on cpu %d", what, cpu, t.state, t.cpu)
		}
	}
	for _, c := range s.cpus {
		if c.cur != nil {
			place(c.cur, c.cur.state == ThreadRunning && c.cur.cpu == c.id, "running on cpu", c.id)
		}
		for _, t := range c.rq {
			place(t, t.state == ThreadQueued && t.cpu == c.id, "in the runqueue of cpu", c.id)
		}
		for _, t := range c.incoming {
			place(t, t.state == ThreadIncoming && t.cpu == c.id, "on the incoming list of cpu", c.id)
		}
	}
	for _, t := range s.pol.shared() {
		place(t, t.state == ThreadQueued, "on the shared queue, home cpu", t.cpu)
	}
	for i, t := range s.threads {
		want := 1
		if t.state == ThreadBlocked {
			want = 0
		}
		if where[i] != want && r.err == nil {
			r.in("thread", i)
			r.failf("%s, but in %d places", t.state, where[i])
		}
	}
}

// ckSave writes the pending events in the order they will run, (time,
// sequence), each time after the previous one: the heap's layout and its slots
// change nothing in that order, so they are not kept.
func (q *eventQueue) ckSave(w *ckWriter) {
	w.uv(q.seq)
	es := slices.Clone(q.h)
	slices.SortFunc(es, func(a, b heapEntry) int {
		if a.before(&b) {
			return -1
		}
		return 1
	})
	w.n(len(es))
	prevAt, prevSeq := w.now, int64(0)
	for _, x := range es {
		p := &q.slab[x.key&(1<<slotBits-1)]
		seq := int64(x.key >> slotBits)
		w.uv(uint64(x.at - prevAt))
		w.iv(seq - prevSeq)
		prevAt, prevSeq = x.at, seq
		w.byte(byte(p.kind))
		w.iv(int64(p.cpu))
		w.iv(int64(p.arg))
		w.uv(uint64(p.gen))
	}
}

// ckLoad reads the pending events into an empty queue, slots in order: a
// sorted array is a heap.
func (q *eventQueue) ckLoad(r *ckReader, s *Sim) {
	q.seq = r.uv()
	if q.seq >= 1<<(64-slotBits) {
		r.failf("sequence number %d is past the last", q.seq)
	}
	n := r.count(6, 1<<slotBits)
	q.h, q.slab, q.free = make([]heapEntry, 0, n), make([]payload, 0, n), q.free[:0]
	at, seq := s.now, int64(0)
	for i := range n {
		r.idx = i
		at += int64(r.uv())
		seq += r.iv()
		if at < s.now || seq < 0 || uint64(seq) >= q.seq {
			r.failf("event at %d ns, sequence %d: before the clock %d ns or not yet numbered (next %d)", at, seq, s.now, q.seq)
		}
		k := r.byte()
		p := payload{kind: evKind(k), cpu: int32(r.iv()), arg: int32(r.iv()), gen: r.u32()}
		if r.err != nil {
			return
		}
		if err := s.checkEvent(p); err != "" {
			r.failf("%s event: %s", p.kind, err)
			return
		}
		q.h = append(q.h, heapEntry{at: at, key: uint64(seq)<<slotBits | uint64(i)})
		q.slab = append(q.slab, p)
	}
	r.idx = -1
	for i := 1; i < len(q.h); i++ {
		if !q.h[i-1].before(&q.h[i]) {
			r.failf("events %d and %d are out of order or share a sequence number", i-1, i)
			return
		}
	}
}

// checkEvent says what is wrong with a pending event ("" when nothing): the
// CPU, thread or client it names must exist. Workload events are checked by
// the workload (ckLoad).
func (s *Sim) checkEvent(p payload) string {
	switch p.kind {
	case evStepEnd, evIRQ, evIRQEnd, evSpinEnd, evSpinNotice, evWakeDone, evPreemptTimer, evDebtPaid, evTimer:
		if p.cpu < 0 || int(p.cpu) >= len(s.cpus) {
			return fmt.Sprintf("cpu %d does not exist", p.cpu)
		}
	}
	switch p.kind {
	case evIRQ:
		switch irqSource(p.arg) {
		case irqIPIWakeup, irqIPIPull, irqIPIDonate, irqDevice, irqTimer:
		default:
			return fmt.Sprintf("interrupt source %d is not one", p.arg)
		}
	case evTimer:
		if p.arg < 0 || int(p.arg) >= len(s.threads) || s.threads[p.arg].role != RoleBalancer && s.threads[p.arg].role != RoleKernel {
			return fmt.Sprintf("thread %d is not a kernel thread", p.arg)
		}
	case evPacket, evResponse, evConnect, evDevice:
	default:
		if p.kind >= numEvKinds {
			return fmt.Sprintf("kind %d is not one", p.kind)
		}
	}
	return ""
}

// ckSave writes the metrics, keeping the measured windows wins.
func (m *metrics) ckSave(w *ckWriter, wins []int) {
	w.n(len(wins))
	for _, i := range wins {
		x := &m.win[i]
		w.iv(x.from)
		w.iv(x.to)
		for _, v := range [...]int64{x.busyNs, x.spinNs, x.idleOverNs, x.hostPollNs, x.completed,
			x.ipis[0], x.ipis[1], x.ipis[2], x.halts, x.migrations, x.suppressed, x.readyMax, x.openAtEnd,
			x.lockTxns, x.lockTxnsWaited, x.lockWaits, x.lockWaitNs, x.lockHolds, x.lockHoldNs} {
			w.iv(v)
		}
		w.f64(x.spinWindowNsSum)
		x.lat.ckSave(w)
		x.w2r.ckSave(w)
		x.ready.ckSave(w)
		ckSaveFloats(w, x.runFrom)
		ckSaveFloats(w, x.runTo)
	}
	l := &m.live
	for _, v := range [...]int64{l.Completed, l.IPIs[0], l.IPIs[1], l.IPIs[2], l.HaltExits, l.Migrations, l.BusyNs,
		l.SpinNs, l.IdleOverNs, l.LatencySumNs, l.WakeToRunSum, l.WakeToRunN, l.HostPollNs, l.SuppressedIPI} {
		w.iv(v)
	}
	used := len(m.series)
	for used > 0 && m.series[used-1] == (seriesAcc{}) {
		used--
	}
	w.n(used)
	for _, b := range m.series[:used] {
		for _, v := range [...]int64{b.completed, b.ipis, b.halts, b.busyNs, b.idleOverNs, b.hostBusyNs} {
			w.iv(v)
		}
	}
	w.iv(m.curBucket)
}

func (m *metrics) ckLoad(r *ckReader, s *Sim) {
	m.win = make([]window, r.count(20, maxCkWindows))
	for i := range m.win {
		r.in("window", i)
		x := &m.win[i]
		x.from = r.intIn(0, s.end)
		x.to = r.intIn(x.from, s.end)
		if i == 0 && (x.from != s.sc.WarmupMs*1e6 || x.to != s.end) {
			r.failf("the first window is [%d, %d) ns, not the scenario's [%d, %d)", x.from, x.to, s.sc.WarmupMs*1e6, s.end)
		}
		for _, p := range [...]*int64{&x.busyNs, &x.spinNs, &x.idleOverNs, &x.hostPollNs, &x.completed,
			&x.ipis[0], &x.ipis[1], &x.ipis[2], &x.halts, &x.migrations, &x.suppressed, &x.readyMax, &x.openAtEnd,
			&x.lockTxns, &x.lockTxnsWaited, &x.lockWaits, &x.lockWaitNs, &x.lockHolds, &x.lockHoldNs} {
			*p = r.iv()
		}
		x.spinWindowNsSum = r.f64()
		x.lat.ckLoad(r)
		x.w2r.ckLoad(r)
		x.ready.ckLoad(r)
		x.runFrom = ckLoadFloats(r, len(s.threads))
		x.runTo = ckLoadFloats(r, len(s.threads))
	}
	if len(m.win) == 0 && r.err == nil {
		r.failf("no measured window")
	}
	r.in("metrics", -1)
	l := &m.live
	for _, p := range [...]*int64{&l.Completed, &l.IPIs[0], &l.IPIs[1], &l.IPIs[2], &l.HaltExits, &l.Migrations, &l.BusyNs,
		&l.SpinNs, &l.IdleOverNs, &l.LatencySumNs, &l.WakeToRunSum, &l.WakeToRunN, &l.HostPollNs, &l.SuppressedIPI} {
		*p = r.iv()
	}
	used := r.count(6, len(m.series))
	for i := range used {
		b := &m.series[i]
		for _, p := range [...]*int64{&b.completed, &b.ipis, &b.halts, &b.busyNs, &b.idleOverNs, &b.hostBusyNs} {
			*p = r.iv()
		}
	}
	m.curBucket = r.intIn(0, int64(len(m.series)))
	if r.err != nil {
		return
	}
	// What metrics keep as counts of the CPUs' state follows from the CPUs.
	m.nState, m.nOverloaded, m.spinWindowTotal = [5]int{}, 0, 0
	for _, c := range s.cpus {
		m.nState[c.state]++
		m.overloaded[c.id] = c.cur != nil && len(c.rq)+len(c.incoming) > 0
		if m.overloaded[c.id] {
			m.nOverloaded++
		}
		m.spinWindowTotal += c.spinWindow
	}
}

// ckSave writes the non-empty buckets only, each as its distance from the
// previous one: a latency histogram fills a few dozen of its 2048.
func (h *histogram) ckSave(w *ckWriter) {
	w.iv(h.n)
	w.f64(h.sum)
	nz := 0
	for _, c := range h.counts {
		if c != 0 {
			nz++
		}
	}
	w.n(nz)
	prev := -1
	for i, c := range h.counts {
		if c != 0 {
			w.n(i - prev - 1)
			w.iv(c)
			prev = i
		}
	}
}

func (h *histogram) ckLoad(r *ckReader) {
	h.n = r.iv()
	h.sum = r.f64()
	nz := r.count(2, len(h.counts))
	prev := -1
	var total int64
	for range nz {
		i := prev + 1 + r.n(len(h.counts)-prev-1)
		c := r.iv()
		if r.err != nil {
			return
		}
		h.counts[i] = c
		total += c
		prev = i
	}
	if total != h.n && r.err == nil {
		r.failf("a histogram counts %d values in its buckets and %d in all", total, h.n)
	}
}

// ckSaveFloats writes nil apart from empty (a window's thread times are nil
// until the clock crosses it).
func ckSaveFloats(w *ckWriter, vs []float64) {
	if vs == nil {
		w.n(0)
		return
	}
	w.n(len(vs) + 1)
	for _, v := range vs {
		w.f64(v)
	}
}

func ckLoadFloats(r *ckReader, limit int) []float64 {
	n := r.count(1, limit+1)
	if n == 0 {
		return nil
	}
	out := make([]float64, n-1)
	for i := range out {
		out[i] = r.f64()
	}
	return out
}

// workloadShell is the workload of s's scenario with its configuration and no
// state, for ckLoad to fill. A workload kind missing here cannot be resumed;
// checkpoint_fields_test.go resumes every kind, so a new one fails there.
func workloadShell(s *Sim) (workload, error) {
	switch s.sc.Workload.Kind {
	case WorkloadRequestServer:
		return &requestServer{}, nil
	case WorkloadCommit:
		return &commitWorkload{}, nil
	case WorkloadHackbench:
		return &hackbench{cfg: &s.sc.Workload.Hackbench}, nil
	case WorkloadSyncPairs:
		return &syncPairs{cfg: &s.sc.Workload.SyncPairs}, nil
	case WorkloadThreadPerConn:
		return &threadPerConn{}, nil
	case WorkloadIdle:
		return idleWorkload{}, nil
	}
	return nil, fmt.Errorf("workload kind %q has no checkpoint support", s.sc.Workload.Kind)
}

// WindowIndex returns the index of the measured window [fromMs, toMs) (clipped
// to the horizon, as AddWindow clips it), or -1 when there is none: a resumed
// simulation has the windows its checkpoint kept, which ResultsWindow then
// reads by their new index.
func (s *Sim) WindowIndex(fromMs, toMs int64) int {
	from, to := fromMs*1e6, min(toMs*1e6, s.end)
	for i, w := range s.m.win {
		if w.from == from && w.to == to {
			return i
		}
	}
	return -1
}
