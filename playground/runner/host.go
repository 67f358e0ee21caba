package runner

import (
	"errors"
	"slices"

	"schedplay/engine"
	"schedplay/view"
)

// Chunk limits. A chunk is one RunUntilN call; the clock is read between chunks.
// The size adapts so a chunk takes about targetChunkMs, whatever the scenario's
// event density, and stays under maxChunkEvents so the engine's visual-event ring
// (4096 entries, a few per event) is drained before it wraps: every IPI and
// migration reaches the animation.
const (
	minChunkEvents = 16
	maxChunkEvents = 512
	targetChunkMs  = 0.5
)

// Marks (Advance.Marks): an arm asked to keep them saves its state once per
// MarkEveryMs of work, so a Rewind replays at most about that much, up to
// maxMarkBytes an arm (a hackbench state is about 25 KB, a 64-vCPU TPC-B
// one about 100 KB); past that a Rewind starts from the last.
const (
	MarkEveryMs  = 100
	maxMarkBytes = 16 << 20
)

// Host owns simulations and serves their advance requests in bounded chunks. It
// is the engine side of every Runner: Local drives it in the page's thread, Server
// in a worker. A Host is not safe for concurrent use.
type Host struct {
	clock func() float64
	// emit receives each answer. The frame is the Host's scratch space, valid
	// only during the call: keep a copy (Clone) or encode it.
	emit  func(*Frame)
	arms  []*hostArm
	rr    int // index of the arm served last (round robin)
	frame Frame
	// compile makes a sched_ext policy's ops from sched.scx.source, or is nil:
	// the default engine worker links no interpreter, so it refuses such a
	// scenario by the field's name (SetCompiler).
	compile engine.ScxCompiler
}

// hostArm is one simulation and its queue of requests.
type hostArm struct {
	id  ArmID
	sc  engine.Scenario
	sim *engine.Sim // nil until the first request is served
	err string      // the engine refused sc
	// checkpoint is StartFrom's, until the simulation is built from it;
	// resumed and resumeErr go out with the first answer.
	checkpoint []byte
	resumed    bool
	resumeErr  string
	// start is StartFrom's checkpoint, kept for Rewind; marks are the states
	// saved on the way (Advance.Marks), in time order, and sinceMarkMs the
	// work since the last. rewound: the arm replays another's run, which says
	// nothing of where it started.
	start       []byte
	marks       []mark
	markBytes   int
	sinceMarkMs float64
	rewound     bool
	background  bool
	queue       []request
	// startedMs is when work on the head request began, or -1.
	startedMs float64
	chunk     int
	ipiNs     int64 // the scenario's IPI latency, for ghost arcs
	anim      collector
	vis       []engine.VisEvent
	// warmupWindow is the engine's measured window over the warm-up, [0,
	// warmup_ms), or -1 when the scenario has none: until the scenario's own
	// window begins, the page shows the engine's numbers over this one.
	warmupWindow int
	buckets      []engine.LatencyBucket // scratch for the latency histogram
	// hit is where the event of the Until request being answered happened.
	hit *eventHit
}

// mark is a state an arm saved as it passed atNs.
type mark struct {
	atNs int64
	data []byte
}

// request is a queued Advance, or the answer a Cancel owes.
type request struct {
	Advance
	answerNow bool
}

// NewHost returns a Host that reads wall time (ms) from clock and hands each
// answer to emit.
func NewHost(clock func() float64, emit func(*Frame)) *Host {
	return &Host{clock: clock, emit: emit}
}

// SetCompiler sets what compiles a scenario's sched_ext policy
// (sched.scx.source): the policy worker's Starlark binding (scxstar).
func (h *Host) SetCompiler(compile engine.ScxCompiler) { h.compile = compile }

// Start adds a simulation of sc. The engine builds it when the first request is
// served, so that cost, too, falls inside a work budget.
func (h *Host) Start(id ArmID, sc engine.Scenario, background bool) {
	h.Stop(id)
	h.arms = append(h.arms, &hostArm{id: id, sc: sc, background: background, startedMs: -1,
		chunk: minChunkEvents * 4, ipiNs: max(sc.Machine.Costs.IPILatencyNs, 1), warmupWindow: -1})
}

func (h *Host) arm(id ArmID) *hostArm {
	if i := slices.IndexFunc(h.arms, func(a *hostArm) bool { return a.id == id }); i >= 0 {
		return h.arms[i]
	}
	return nil
}

// StartFrom adds a simulation of sc resumed from checkpoint (see
// Runner.StartFrom); it is decoded when the first request is served.
func (h *Host) StartFrom(id ArmID, sc engine.Scenario, checkpoint []byte) {
	h.Start(id, sc, false)
	a := h.arm(id)
	a.checkpoint, a.start = checkpoint, checkpoint
}

// Rewind ends arm id and starts arm to from id's mark at atNs, or where id
// started (see Runner.Rewind).
func (h *Host) Rewind(id, to ArmID, atNs int64) {
	old := h.arm(id)
	if old == nil {
		return
	}
	h.Stop(id)
	h.Start(to, old.sc, old.background)
	a := h.arm(to)
	a.start, a.rewound = old.start, true
	a.checkpoint = old.start
	// The marks after the one it starts from are dropped: it saves them
	// again as it passes them, and its frames then say so (Frame.Marked),
	// where the page looks for them.
	if i := slices.IndexFunc(old.marks, func(k mark) bool { return k.atNs == atNs }); i >= 0 {
		a.checkpoint, a.marks = old.marks[i].data, old.marks[:i+1]
		for _, k := range a.marks {
			a.markBytes += len(k.data)
		}
	}
}

// Advance queues an advance request (see Runner.Advance). Requests for an arm
// the Host does not have are dropped: it was stopped.
func (h *Host) Advance(id ArmID, a Advance) {
	if arm := h.arm(id); arm != nil {
		arm.queue = append(arm.queue, request{Advance: a})
	}
}

// Cancel drops the arm's queued requests, the current one included, and queues
// one answer at wherever the arm is, with seq and the results there.
func (h *Host) Cancel(id ArmID, seq uint32) {
	if arm := h.arm(id); arm != nil {
		var sel Selection
		if len(arm.queue) > 0 {
			sel = arm.queue[0].Select
		} else {
			sel = NoSelection()
		}
		arm.queue = append(arm.queue[:0], request{Advance: Advance{Seq: seq, Results: true, Select: sel}, answerNow: true})
		arm.startedMs = -1
	}
}

// Stop forgets a simulation.
func (h *Host) Stop(id ArmID) {
	h.arms = slices.DeleteFunc(h.arms, func(a *hostArm) bool { return a.id == id })
}

// Busy reports whether any request is queued.
func (h *Host) Busy() bool {
	return slices.ContainsFunc(h.arms, func(a *hostArm) bool { return len(a.queue) > 0 })
}

// Work serves requests until the clock passes deadlineMs or none is left, and
// reports whether any is left. Foreground arms take turns chunk by chunk, so two
// arms asked for the same moment answer it at about the same time; background
// arms get what the foreground leaves. One chunk may overrun the deadline by about
// targetChunkMs.
func (h *Host) Work(deadlineMs float64) bool {
	for {
		a := h.nextArm()
		if a == nil {
			return false
		}
		h.serve(a)
		if h.clock() >= deadlineMs {
			return h.Busy()
		}
	}
}

// nextArm picks the foreground arm after the last one served that has a request,
// else a background one, else nil.
func (h *Host) nextArm() *hostArm {
	n := len(h.arms)
	for _, background := range []bool{false, true} {
		for k := 1; k <= n; k++ {
			i := (h.rr + k) % n
			if a := h.arms[i]; a.background == background && len(a.queue) > 0 {
				h.rr = i
				return a
			}
		}
	}
	return nil
}

// serve does one chunk of the arm's head request, or answers it.
func (h *Host) serve(a *hostArm) {
	req := a.queue[0]
	if a.startedMs < 0 {
		a.startedMs = h.clock()
	}
	if a.sim == nil && a.err == "" {
		a.build(h.compile)
	}
	switch {
	case a.err != "" || req.answerNow || a.sim.Done():
	case req.Step:
		a.sim.Step()
		a.drain(req.Advance)
	case req.Until.stepped():
		t0 := h.clock()
		complete := a.runUntilEvent(req.Advance)
		a.chunk = adaptChunk(a.chunk, h.clock()-t0)
		if !complete {
			return // the next events come at the arm's next turn
		}
	case a.sim.NowNs() < min(req.ToNs, a.sim.EndNs()):
		t0, chunk := h.clock(), a.chunk
		n := a.sim.RunUntilN(req.ToNs, chunk)
		a.drain(req.Advance)
		a.chunk = adaptChunk(chunk, h.clock()-t0)
		if n == chunk && !a.sim.Done() {
			return // maybe more to do: the next chunk comes at the arm's next turn
		}
	}
	h.answer(a, req)
}

// build makes the arm's simulation: resumed from its checkpoint when it has one
// the engine accepts (with the warm-up window this Host adds), else at time
// zero, with the warm-up window added. compile compiles a policy's source.
func (a *hostArm) build(compile engine.ScxCompiler) {
	// The same estimate the CLI and the share API make: a scenario that would
	// run for hours is refused, naming its fields, before it starts.
	if err := engine.CheckWork(a.sc); err != nil {
		a.err = "the engine refused this scenario: " + err.Error()
		return
	}
	if ck := a.checkpoint; ck != nil {
		a.checkpoint = nil
		sim, err := engine.ResumeScx(a.sc, ck, compile)
		if err == nil && a.sc.WarmupMs > 0 {
			if a.warmupWindow = sim.WindowIndex(0, a.sc.WarmupMs); a.warmupWindow < 0 {
				err = errors.New("it does not measure the warm-up")
			}
		}
		if err == nil {
			a.sim, a.resumed = sim, !a.rewound
			return
		}
		// A replay that cannot resume runs from time zero: the same run, later.
		a.warmupWindow = -1
		if !a.rewound {
			a.resumeErr = err.Error()
		}
	}
	sim, err := engine.NewSimScx(a.sc, compile)
	if err != nil {
		a.err = "the engine refused this scenario: " + err.Error()
		return
	}
	if a.sc.WarmupMs > 0 {
		a.warmupWindow = sim.AddWindow(0, a.sc.WarmupMs)
	}
	a.sim = sim
}

// adaptChunk doubles a chunk that took under a quarter of targetChunkMs and halves
// one that took over twice it, within [minChunkEvents, maxChunkEvents].
func adaptChunk(events int, elapsedMs float64) int {
	switch {
	case elapsedMs < targetChunkMs/4:
		events *= 2
	case elapsedMs > targetChunkMs*2:
		events /= 2
	}
	return min(max(events, minChunkEvents), maxChunkEvents)
}

// drain takes in the visual events of the chunk just run.
func (a *hostArm) drain(req Advance) {
	a.vis = a.sim.DrainVis(a.vis[:0])
	a.anim.add(a.sim, a.vis, req.Slides, req.Ghosts, a.ipiNs)
}

// answer emits the frame for the arm's head request and pops it.
func (h *Host) answer(a *hostArm, req request) {
	f := &h.frame
	f.Arm, f.Seq, f.Err = a.id, req.Seq, a.err
	f.Resumed, f.ResumeErr = a.resumed, a.resumeErr
	a.resumed, a.resumeErr = false, "" // told once
	f.BusyMs = h.clock() - a.startedMs
	a.startedMs = -1
	a.queue = a.queue[1:]
	if a.err != "" {
		*f = Frame{Arm: a.id, Seq: req.Seq, Err: a.err, ResumeErr: f.ResumeErr, Snap: f.Snap}
		h.emit(f)
		return
	}
	s := a.sim
	f.NowNs, f.EndNs, f.Done, f.Events = s.NowNs(), s.EndNs(), s.Done(), s.Events()
	f.Marked = req.Marks && a.mark(f.BusyMs)
	s.Snapshot(&f.Snap)
	f.Flights, f.Migrations = a.anim.take(f.Flights[:0], f.Migrations[:0])
	f.Selected, f.HasDecision = req.Select, false
	if hit := a.hit; hit != nil && req.Select == NoSelection() {
		// An Until answer that selects nothing points at its event.
		f.Selected = Selection{CPU: hit.cpu, Thread: -1}
		f.Decision, f.HasDecision = hit.decision, hit.hasDecision
	}
	a.hit = nil
	if sel := f.Selected; !f.HasDecision && (sel.CPU >= 0 || sel.Thread >= 0) {
		f.Decision, f.HasDecision = s.LastDecision(int(sel.CPU), int(sel.Thread))
	}
	f.HasResults = req.Results || req.answerNow || f.Done
	f.Results, f.InWarmup, f.Warmup, f.Latency = engine.Results{}, false, engine.Results{}, view.Histogram{}
	if f.HasResults {
		a.fillResults(f)
	}
	h.emit(f)
}

// mark saves the arm's state where it stands when busyMs more work brings
// what it did since its last mark to MarkEveryMs, and reports whether it did.
func (a *hostArm) mark(busyMs float64) bool {
	a.sinceMarkMs += busyMs
	s := a.sim
	if a.sinceMarkMs < MarkEveryMs || s.Done() || a.markBytes >= maxMarkBytes ||
		len(a.marks) > 0 && a.marks[len(a.marks)-1].atNs >= s.NowNs() {
		return false
	}
	data, err := s.AppendCheckpoint(nil, engine.CheckpointOptions{})
	if err != nil {
		return false
	}
	a.marks = append(a.marks, mark{atNs: s.NowNs(), data: data})
	a.markBytes += len(data)
	a.sinceMarkMs = 0
	return true
}

// fillResults puts in f the engine's results over the measured window, over the
// warm-up while it lasts, and the latency histogram of the window the page shows
// (the warm-up's until the measured window begins).
func (a *hostArm) fillResults(f *Frame) {
	s := a.sim
	f.Results = s.Results()
	shown := 0
	if a.warmupWindow >= 0 && s.NowNs() <= a.sc.WarmupMs*1e6 {
		f.InWarmup, shown = true, a.warmupWindow
		f.Warmup = s.ResultsWindow(shown)
		f.Warmup.Series = nil // Results carries the same series
	}
	a.buckets = s.LatencyHistogram(a.buckets[:0], shown)
	f.Latency = view.LatencyHistogram(a.buckets)
}
