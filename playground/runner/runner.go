// Package runner runs the playground's simulations for the view model, in the
// page's own thread (Local) or in Web Workers (Remote talking to a Server), behind
// one interface, Runner.
//
// The view model never holds an engine.Sim. It starts a simulation per arm (at
// time zero, or from an engine checkpoint: StartFrom) and sends it advance
// requests: "bring arm 3 to t = 1.25 s and tell me what it looks like" (Advance).
// The runner answers each request with a Frame: the snapshot at that instant, the
// animation-worthy events since the previous frame (IPIs, migrations, suppressed
// IPIs), the last decision about what the page has selected, and, when asked, the
// engine's results and latency histogram. Requests are answered in order, so the
// model can keep two arms at the same simulated time by showing an answer only
// when every arm has given it. In this package and the model, "checkpoint" means
// only the engine's saved state (engine.Sim.AppendCheckpoint).
//
// Work is bounded: a Host steps its simulations by event count (engine's
// RunUntilN) in chunks of at most maxChunkEvents, reading the clock between
// chunks, so a dense scenario never holds the page's frame (Local) or a worker's
// message loop (Server) for longer than its budget, and Cancel is seen within one
// budget.
//
// Which simulation code runs where:
//
//	Local:  Model -> Local -> Host -> engine.Sim               (one thread)
//	Remote: Model -> Remote -> codec -> postMessage -> Server -> Host -> engine.Sim
//
// The package imports neither Ebiten nor syscall/js; the JavaScript glue lives in
// wasm/ (the page's side) and wasm/worker (the worker program).
package runner

import (
	"schedplay/engine"
	"schedplay/view"
)

// ArmID names a simulation for the lifetime of a Runner; IDs are never reused, so
// a frame of a stopped arm that was already in flight is recognised and dropped.
type ArmID uint32

// Runner starts simulations and carries advance requests to them and frames
// back. Calls are made from one goroutine (the page's frame loop); frames arrive
// only through Receive.
type Runner interface {
	// Start begins a simulation of sc at time zero. A background simulation (a
	// sweep point) gets only the time the foreground ones leave. If the engine
	// refuses sc, the first frame asked of the arm carries the error.
	Start(id ArmID, sc engine.Scenario, background bool)
	// StartFrom begins a foreground simulation of sc from an engine checkpoint
	// of it (engine.Resume). A checkpoint the engine refuses starts the arm at
	// time zero instead; the arm's first frame says which (Frame.Resumed,
	// Frame.ResumeErr).
	StartFrom(id ArmID, sc engine.Scenario, checkpoint []byte)
	// Advance queues an advance request; requests are answered in order.
	Advance(id ArmID, a Advance)
	// Cancel drops the arm's queued requests and cuts the current one short at
	// the next chunk; the arm answers with one frame at wherever it stopped,
	// carrying seq.
	Cancel(id ArmID, seq uint32)
	// Stop ends a simulation; nothing more is heard of it.
	Stop(id ArmID)
	// Rewind ends arm id and starts arm to in its place (on the same worker)
	// from the state id saved at atNs (a mark: Frame.Marked), or from where
	// id started when it saved none there. Arm to keeps id's marks up to
	// atNs and saves the later ones again as it passes them (the engine is
	// deterministic: its run passes the same states).
	Rewind(id, to ArmID, atNs int64)
	// Pump lets an in-process runner work until deadlineMs (on its clock); a
	// runner whose simulations run elsewhere returns at once.
	Pump(deadlineMs float64)
	// Receive appends the frames that arrived since the last call to dst.
	Receive(dst []Frame) []Frame
}

// Advance asks an arm to reach a moment and say what it looks like there.
type Advance struct {
	// Seq numbers the request; the answering frame carries it.
	Seq uint32
	// ToNs is the simulated time to reach (capped at the horizon). A time the arm
	// has passed answers at once, where the arm is.
	ToNs int64
	// Step processes exactly one event instead (ToNs is ignored).
	Step bool
	// Until stops the arm right after the first event of this kind at or after
	// its current time, or at ToNs if none happens before (see until.go). When
	// Select selects nothing, the answer selects the CPU where the event happened
	// (and carries the decision about it).
	Until Event
	// Results asks for the engine's results and latency histogram in the answer
	// (they cost a pass over the histograms, so the model asks a few times a
	// second, not every frame).
	Results bool
	// Slides asks for thread migrations (drawn as sliding chips in slow motion),
	// Ghosts for the wakeup IPIs the scheduler chose not to send.
	Slides, Ghosts bool
	// Select is what the page explains: the answer carries the newest decision
	// about it.
	Select Selection
	// Marks asks the runner to save the arm's state as it goes (a mark: every
	// MarkEveryMs of its work, when it answers), so that Rewind can bring the
	// arm back to an earlier time without running it from its start. The
	// model asks while one arm runs ahead of another (playground/lead.go).
	Marks bool
}

// Selection names a vCPU (Thread < 0) or a thread; CPU < 0 and Thread < 0 select
// nothing.
type Selection struct {
	CPU, Thread int32
}

// NoSelection selects nothing.
func NoSelection() Selection { return Selection{CPU: -1, Thread: -1} }

// Frame is one arm's answer to an advance request.
type Frame struct {
	Arm ArmID
	Seq uint32
	// Err is set when the engine refused the scenario (NewSim failed); nothing
	// else in the frame is meaningful then.
	Err   string
	NowNs int64
	EndNs int64
	Done  bool
	// Events is the number of engine events processed so far.
	Events int64
	// BusyMs is the wall time the runner spent from starting this request until
	// answering it: what a request of this size costs.
	BusyMs float64
	// Marked says the runner saved the arm's state at NowNs (Advance.Marks).
	Marked bool
	// Resumed, on an arm's first frame, says it started from the checkpoint
	// StartFrom gave it; ResumeErr, that the engine refused that checkpoint
	// (why) and the arm started at time zero.
	Resumed   bool
	ResumeErr string
	Snap      engine.Snapshot
	// Flights and Migrations are the newest animation events since the previous
	// frame (at most MaxFlights and MaxMigrations), oldest first.
	Flights    []Flight
	Migrations []Migration
	// Decision is the newest decision about Selected, when HasDecision.
	Selected    Selection
	HasDecision bool
	Decision    engine.Decision
	// Results are the engine's results over the scenario's measured window at
	// NowNs (Sim.Results), when HasResults (asked for, the answer to a Cancel, or
	// the last frame).
	HasResults bool
	Results    engine.Results
	// InWarmup says the arm is still in its warm-up (NowNs at or before its end),
	// where the measured window has not begun. Warmup then holds the engine's
	// results over the warm-up so far, [0, NowNs): what the page shows until the
	// measured window begins. Its Series is left out: Results has the same one.
	InWarmup bool
	Warmup   engine.Results
	// Latency, with the results, is the engine's latency histogram of the window
	// the page shows (the warm-up's while InWarmup, else the measured window's)
	// in the latency chart's bins.
	Latency view.Histogram
}

// Flight is an IPI sent (or, Ghost, one the scheduler decided not to send).
type Flight struct {
	Kind          engine.IPIKind
	From, To      int32
	SentNs, DueNs int64
	Ghost         bool
}

// Migration is a thread moved from one vCPU to another.
type Migration struct {
	Thread, From, To int32
}

// Animation limits: what the stage can show of a burst. The view keeps the newest
// MaxFlights IPIs and MaxMigrations slides, so a frame carries no more.
const (
	MaxFlights    = 20
	MaxMigrations = 12
)
