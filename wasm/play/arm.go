package play

import (
	"fmt"

	"schedplay/engine"
	"schedplay/wasm/view"
)

// Arm is one simulation the stage shows: the whole run in single mode, or one side
// of a comparison. Both arms of a comparison always sit at the same simulated time.
type Arm struct {
	// Name is the arm's short label ("pull off"); Set its knob overrides.
	Name string
	Set  []string
	Sc   engine.Scenario
	Sim  *engine.Sim
	// vals are Sc's knob values (see knobValues).
	vals map[string]string
	// Snap is the machine as of the last Update (reused every frame).
	Snap engine.Snapshot

	vis        []engine.VisEvent
	decs       []engine.Decision // scratch for finding suppressed IPIs
	flights    []flight
	migrations []migration
	series     view.Series
	hist       view.Histogram
	// results caches Sim.Results for the UI (recomputed at most once per UI poll).
	results   engine.Results
	resultsAt int64
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
	maxFlights    = 20
	maxMigrations = 12
	trailMs       = 320
	slideMs       = 500
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
	}
	return fmt.Sprintf("%d clients", w.Clients)
}

// usesClients reports whether workload.clients means anything for the workload.
func usesClients(sc engine.Scenario) bool {
	k := sc.Workload.Kind
	return k == engine.WorkloadRequestServer || k == engine.WorkloadCommit
}

func newArm(name string, set []string, sc engine.Scenario) (*Arm, error) {
	sim, err := engine.NewSim(sc)
	if err != nil {
		return nil, err
	}
	a := &Arm{Name: name, Set: set, Sc: sc, Sim: sim, series: view.NewSeries(seriesWidthNs, seriesMax), resultsAt: -1}
	a.hist = view.NewHistogram()
	a.vals = knobValues(sc)
	a.vis = make([]engine.VisEvent, 0, 4096)
	sim.Snapshot(&a.Snap)
	return a, nil
}

// runUntil advances the simulation to t and takes in what happened; slides says
// whether to animate migrations (see timeControl.slides).
func (a *Arm) runUntil(t int64, wallMs float64, slow, ghosts bool) {
	a.Sim.RunUntil(t)
	a.drain(wallMs, slow, ghosts)
}

// step processes one event.
func (a *Arm) step(wallMs float64, ghosts bool) {
	a.Sim.Step()
	a.drain(wallMs, true, ghosts)
}

// drain turns the engine's visual events into animation state and histogram
// counts. slow enables what only reads in slow motion: sliding migrations and,
// with ghosts, the arcs of suppressed IPIs.
func (a *Arm) drain(wallMs float64, slow, ghosts bool) {
	slides := slow
	a.vis = a.Sim.DrainVis(a.vis[:0])
	haveDecs := false
	for _, e := range a.vis {
		switch e.Kind {
		case engine.VisDecision:
			if !slow || !ghosts {
				continue
			}
			if !haveDecs {
				a.decs = a.Sim.Decisions(a.decs[:0])
				haveDecs = true
			}
			if d, ok := findDecision(a.decs, e); ok && d.Kind == engine.DecIPISuppressed {
				a.addFlight(flight{kind: engine.IPIWakeup, from: int(d.CPU), to: int(d.Target), sent: e.AtNs,
					due: e.AtNs + max(a.Sc.Machine.Costs.IPILatencyNs, 1), ghost: true})
			}
		case engine.VisIPISend:
			a.addFlight(flight{kind: e.IPI, from: int(e.CPU), to: int(e.Other),
				sent: e.AtNs, due: e.AtNs + int64(max(e.Arg, 1))})
		case engine.VisMigrate:
			if !slides {
				continue
			}
			if len(a.migrations) == maxMigrations {
				copy(a.migrations, a.migrations[1:])
				a.migrations = a.migrations[:maxMigrations-1]
			}
			a.migrations = append(a.migrations, migration{thread: int(e.Thread), from: int(e.CPU), to: int(e.Other), startMs: wallMs})
		case engine.VisComplete:
			if e.Arg > 0 {
				a.hist.Add(float64(e.Arg))
			}
		}
	}
}

// addFlight keeps the newest maxFlights IPIs.
func (a *Arm) addFlight(f flight) {
	if len(a.flights) == maxFlights {
		copy(a.flights, a.flights[1:])
		a.flights = a.flights[:maxFlights-1]
	}
	a.flights = append(a.flights, f)
}

// findDecision finds the record a VisDecision event announced, searching from the
// newest (the event carries the decision's CPU, target, thread and time).
func findDecision(ds []engine.Decision, e engine.VisEvent) (engine.Decision, bool) {
	for i := len(ds) - 1; i >= 0; i-- {
		d := ds[i]
		if d.AtNs < e.AtNs {
			break
		}
		if d.AtNs == e.AtNs && d.CPU == e.CPU && d.Target == e.Other && d.Thread == e.Thread {
			return d, true
		}
	}
	return engine.Decision{}, false
}

// settle runs after a frame's stepping: it snapshots the machine, feeds the charts
// and ages the animations.
func (a *Arm) settle(wallMs float64) {
	a.Sim.Snapshot(&a.Snap)
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

// Results returns the engine's metrics over the measured window, cached per
// simulated instant.
func (a *Arm) Results() engine.Results {
	if now := a.Sim.NowNs(); now != a.resultsAt {
		a.results, a.resultsAt = a.Sim.Results(), now
	}
	return a.results
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
