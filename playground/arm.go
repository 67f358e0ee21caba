package playground

import (
	"cmp"
	"fmt"
	"slices"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/playground/runner"
	"schedplay/view"
)

// Arm is one simulation the stage shows: the whole run in single mode, or one side
// of a comparison. The simulation itself runs in the Runner; the Arm holds what
// its answers showed last and what is being animated. Both arms of a comparison
// are shown at the same simulated time (see advance.go).
type Arm struct {
	// Name is the arm's short label ("pull off"); Set its knob overrides.
	Name string
	Set  []string
	Sc   engine.Scenario
	id   runner.ArmID
	// key is Sc's (saved states are matched by it); resumed and resumeErr are
	// what the arm's first answer said of the saved state it was started
	// from (saved.go), and backfill asks for its charts' history from the
	// first answer's results.
	key       engine.ScenarioKey
	resumed   bool
	resumeErr string
	backfill  bool
	// vals reads Sc's knob values.
	vals *knobReader
	// published are the source's published figures for Sc's settings, by metric
	// key (publishedSet.figures); calibrated is the calibration's point Sc is,
	// nil when it ran no such configuration.
	published  map[string]float64
	calibrated *docs.Point
	// Snap is the machine as last shown; before the first answer, idle tiles.
	Snap  engine.Snapshot
	endNs int64
	done  bool
	// err is the engine's refusal of Sc, if it refused.
	err string
	// inbox holds answers not yet shown, oldest first.
	inbox []runner.Frame

	flights    []flight
	migrations []migration
	series     view.Series
	// results are the engine's results over the measured window, and warmup its
	// results over the warm-up while inWarmup; latency is its latency histogram of
	// the window the cards show. All are as of resultsAt (-1: none yet).
	results   engine.Results
	warmup    engine.Results
	inWarmup  bool
	latency   view.Histogram
	resultsAt int64
	// events is the engine's event count as shown; busyMs sums what the runner
	// reported spending on the targets shown (the page's speed report).
	events int64
	busyMs float64
	// costMs is what the runner spent bringing the simulation from where it
	// started (startNs: time zero, or a saved state's time) to the time
	// shown: what replaying it would cost (lead.go). replays counts them.
	costMs  float64
	startNs int64
	replays int
	// marks are where the runner saved the arm's state on the way
	// (runner.Advance.Marks), with what reaching each cost: a replay starts
	// from the latest before where it goes.
	marks []armMark
	// decision is the newest decision about decisionFor, if hasDecision.
	decision    engine.Decision
	decisionFor runner.Selection
	hasDecision bool
	// groups numbers an rt-app workload's tasks for their chips' colours
	// (chipGroup), built on first use.
	groups map[string]int
	// topo is Sc's machine as the engine tables it (nil if it refuses it),
	// capShown the capacity each tile writes (view.CapacityShown), levels
	// whether migrations' arcs show the level they cross (topology.go).
	topo     *engine.TopoTable
	capShown []int
	levels   bool
}

// flight is an IPI being animated: in the air while the simulated clock is between
// sent and due, then a fading trail for trailMs of wall time.
type flight struct {
	kind     engine.IPIKind
	from, to int
	sent     int64
	due      int64
	// landedMs is the wall time at which the trail started (0 while in the air).
	landedMs float64
	// ghost marks a wakeup IPI the scheduler decided not to send (drawn faint,
	// ending in a "no entry" mark), so the absence of an IPI is visible too.
	ghost bool
}

// migration is a thread chip sliding from one tile to another, in wall time.
type migration struct {
	thread   int
	from, to int
	startMs  float64
}

// Animation limits: enough to read the pattern at full speed without letting a
// burst of thousands of IPIs cost more to draw than the frame allows.
const (
	trailMs = 320
	slideMs = 500
)

// seriesWidthNs is the first bucket width of the over-time charts; it doubles as the
// run grows (view.Series).
const (
	seriesWidthNs = 1_000_000
	seriesMax     = 240
)

// armTitle is arm i of n's title above its tiles: the arm's letter and name in
// a comparison, then the machine and the workload's size.
func armTitle(i, n int, name string, sc engine.Scenario) string {
	tail := fmt.Sprintf("%d vCPUs · %s", sc.Machine.VCPUs, workloadLabel(sc))
	if n <= 1 {
		return tail
	}
	return fmt.Sprintf("%c · %s · %s", 'A'+i, name, tail)
}

// workloadLabel says how big the workload is, in its own terms.
func workloadLabel(sc engine.Scenario) string {
	w := sc.Workload
	switch w.Kind {
	case engine.WorkloadHackbench:
		return fmt.Sprintf("%d tasks", 2*w.Hackbench.Groups*w.Hackbench.FDs)
	case engine.WorkloadIdle:
		return "idle"
	case engine.WorkloadCommit:
		return fmt.Sprintf("%d writers", w.Clients)
	case engine.WorkloadSyncPairs:
		return fmt.Sprintf("%d spinners, %d pairs", w.SyncPairs.Spinners, w.SyncPairs.Pairs)
	case engine.WorkloadThreadPerConn:
		// Each client holds one connection, served by its own short-lived thread.
		return fmt.Sprintf("%d connections", w.Clients)
	case engine.WorkloadRTApp:
		return rtappLabel(w.RTApp)
	case engine.WorkloadTrace:
		return fmt.Sprintf("trace: %d threads", len(w.Trace.Threads))
	}
	return fmt.Sprintf("%d clients", w.Clients)
}

func newArm(id runner.ArmID, name string, set []string, sc engine.Scenario, published publishedSet) *Arm {
	a := &Arm{id: id, Name: name, Set: set, Sc: sc, key: sc.Key(), endNs: sc.DurationMs * 1e6, resultsAt: -1,
		series: view.NewSeries(seriesWidthNs, seriesMax), vals: newKnobReader(sc)}
	a.published, a.calibrated = published.figures(a.vals), published.calibrated(sc)
	a.setTopology()
	// Idle tiles until the runner's first answer (a frame or two later).
	a.Snap.CPUs = make([]engine.CPUSnap, sc.Machine.VCPUs)
	for i := range a.Snap.CPUs {
		a.Snap.CPUs[i] = engine.CPUSnap{ID: i, State: engine.CPUHalted, Running: -1, PullSlot: -1}
	}
	return a
}

// Key is the arm's scenario key (engine.Scenario.Key), by which saved states
// are matched.
func (a *Arm) Key() engine.ScenarioKey { return a.key }

// NowNs is the simulated time shown.
func (a *Arm) NowNs() int64 { return a.Snap.NowNs }

// answered reports whether the arm has answered target seq (a refused arm
// answers everything).
func (a *Arm) answered(seq uint32) bool {
	return a.err != "" || slices.ContainsFunc(a.inbox, func(f runner.Frame) bool { return f.Seq == seq })
}

// answer returns the arm's answer to seq.
func (a *Arm) answer(seq uint32) (runner.Frame, bool) {
	i := slices.IndexFunc(a.inbox, func(f runner.Frame) bool { return f.Seq == seq })
	if i < 0 {
		return runner.Frame{}, false
	}
	return a.inbox[i], true
}

// show takes in the answers up to target seq, in order: their animation
// events and latencies, then the last one's snapshot. wallMs starts the slides.
func (a *Arm) show(seq uint32, wallMs float64) {
	n := 0
	for _, f := range a.inbox {
		if f.Seq > seq {
			break
		}
		n++
		a.take(f, wallMs)
	}
	a.inbox = append(a.inbox[:0], a.inbox[n:]...)
}

func (a *Arm) take(f runner.Frame, wallMs float64) {
	if f.Err != "" {
		a.err, a.done = f.Err, true
		return
	}
	for _, fl := range f.Flights {
		a.addFlight(flight{kind: fl.Kind, from: int(fl.From), to: int(fl.To), sent: fl.SentNs, due: fl.DueNs, ghost: fl.Ghost})
	}
	for _, mg := range f.Migrations {
		if len(a.migrations) == runner.MaxMigrations {
			a.migrations = append(a.migrations[:0], a.migrations[1:]...)
		}
		a.migrations = append(a.migrations, migration{thread: int(mg.Thread), from: int(mg.From), to: int(mg.To), startMs: wallMs})
	}
	a.resumed, a.resumeErr = a.resumed || f.Resumed, cmp.Or(f.ResumeErr, a.resumeErr)
	if a.backfill && f.HasResults {
		// Started from a saved state: the charts get the run's history from the
		// engine's series, before the first point of their own.
		a.backfill = false
		a.backfillSeries(f.Results.Series, f.NowNs)
	}
	a.Snap, a.endNs, a.done = f.Snap, f.EndNs, f.Done
	a.events, a.busyMs, a.costMs = f.Events, a.busyMs+f.BusyMs, a.costMs+f.BusyMs
	if f.Marked {
		a.marks = append(a.marks, armMark{atNs: f.NowNs, costMs: a.costMs})
	}
	if f.HasResults {
		a.results, a.warmup, a.inWarmup, a.latency, a.resultsAt = f.Results, f.Warmup, f.InWarmup, f.Latency, f.NowNs
	}
	// A frame that selects nothing leaves the explanation as it was: the answer
	// to a run until an event carries the decision about the event, and the
	// target after it (asked before the event was known) selects nothing.
	if f.HasDecision || f.Selected != runner.NoSelection() {
		a.decision, a.decisionFor, a.hasDecision = f.Decision, f.Selected, f.HasDecision
	}
}

// addFlight keeps the newest runner.MaxFlights IPIs.
func (a *Arm) addFlight(f flight) {
	if len(a.flights) == runner.MaxFlights {
		a.flights = append(a.flights[:0], a.flights[1:]...)
	}
	a.flights = append(a.flights, f)
}

// settle runs every frame: it feeds the charts and ages the animations.
func (a *Arm) settle(wallMs float64) {
	l := &a.Snap.Live
	a.series.Add(a.Snap.NowNs, view.Totals{
		Completed: l.Completed, IPIs: l.IPIs[0] + l.IPIs[1] + l.IPIs[2], HaltExits: l.HaltExits,
		BusyNs: l.BusyNs, IdleOverNs: l.IdleOverNs,
	})
	now := a.Snap.NowNs
	keep := a.flights[:0]
	for _, f := range a.flights {
		if now >= f.due && f.landedMs == 0 {
			f.landedMs = wallMs
		}
		if f.landedMs == 0 || wallMs-f.landedMs < trailMs {
			keep = append(keep, f)
		}
	}
	a.flights = keep
	km := a.migrations[:0]
	for _, m := range a.migrations {
		if wallMs-m.startMs < slideMs {
			km = append(km, m)
		}
	}
	a.migrations = km
}

// Results returns the engine's metrics over the measured window as of the newest
// answer that carried them.
func (a *Arm) Results() engine.Results { return a.results }

// shownResults are the headline numbers, all the engine's: its results over the
// warm-up until the measured window begins, then over the measured window (the
// numbers the CLI prints). measured says which.
func (a *Arm) shownResults() (r engine.Results, measured bool) {
	if a.inWarmup {
		return a.warmup, false
	}
	return a.results, a.resultsAt >= 0
}

// sharedQueue counts runnable threads that wait in no CPU's runqueue or incoming
// list: those in a policy's shared queue (scx_simple's global queue), which has
// no tile of its own.
func (a *Arm) sharedQueue() int {
	n := 0
	for _, t := range a.Snap.Threads {
		if t.State == engine.ThreadQueued {
			n++
		}
	}
	for _, c := range a.Snap.CPUs {
		n -= len(c.Runqueue)
	}
	return max(n, 0)
}

// thread returns the snapshot of thread id.
func (a *Arm) thread(id int) (engine.ThreadSnap, bool) {
	ts := a.Snap.Threads
	if id >= 0 && id < len(ts) && ts[id].ID == id {
		return ts[id], true
	}
	for _, t := range ts {
		if t.ID == id {
			return t, true
		}
	}
	return engine.ThreadSnap{}, false
}
