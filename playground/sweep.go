package playground

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"schedplay/engine"
	"schedplay/playground/runner"
)

// Sweep runs the scenario across client counts for every arm, for the
// throughput-vs-clients chart. Its runs are background simulations in the Runner:
// they get what the live run leaves. It is a sub-model: the Model starts it, steps
// it every frame, hands it the runner's answers that are not an arm's, and stops
// it when the scenario changes; it shows in the page as its chart (charts.go).
type Sweep struct {
	Clients []int
	Names   []string
	// Tput[arm][i] is the throughput at Clients[i], NaN until measured.
	Tput [][]float64
	// DurationMs and WarmupMs are each point's horizon and warm-up.
	DurationMs, WarmupMs int64
	Err                  string

	// arms are the lines' arms (one without overrides for a single run); each
	// point resolves them with its own client count.
	arms []engine.Arm
	base engine.Scenario
	// next is the index of the next client count to start; running holds, per
	// arm, the simulation of the client count before it (0 once measured).
	next     int
	running  []runner.ArmID
	measured int
	// run runs the sweep's simulations beside the live arms, under IDs newID
	// hands out (the Model's, so they never collide with an arm's).
	run   runner.Runner
	newID func() runner.ArmID
}

// Sweep points are shorter than a live run so a sweep finishes in about a minute in
// the browser; the chart says so.
const (
	sweepMaxDurationMs = 4000
	sweepMaxPoints     = 9
)

// SweepClients picks the client counts: those with published numbers, plus a
// ladder around the vCPU count (where the collapse starts), at most
// sweepMaxPoints, ascending.
func SweepClients(sc engine.Scenario) []int {
	set := map[int]bool{}
	for _, p := range sc.Published {
		if v, ok := p.Set["workload.clients"]; ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 1 && n <= engine.MaxClients {
				set[n] = true
			}
		}
	}
	v := sc.Machine.VCPUs
	for _, f := range []float64{0.25, 0.5, 1, 1.5, 2, 3} {
		if len(set) >= sweepMaxPoints {
			break
		}
		n := int(math.Round(float64(v) * f))
		if n >= 1 && n <= engine.MaxClients {
			set[n] = true
		}
	}
	out := slices.Sorted(maps.Keys(set))
	if len(out) > sweepMaxPoints {
		out = out[:sweepMaxPoints]
	}
	return out
}

func newSweep(base engine.Scenario, arms []engine.Arm, run runner.Runner, newID func() runner.ArmID) *Sweep {
	if len(arms) == 0 {
		arms = []engine.Arm{{}} // a single run is one line
	}
	sw := &Sweep{Clients: SweepClients(base), arms: arms, base: base, running: make([]runner.ArmID, len(arms)), run: run, newID: newID}
	sw.DurationMs = min(base.DurationMs, sweepMaxDurationMs)
	sw.WarmupMs = min(base.WarmupMs, sw.DurationMs/4)
	sw.base.DurationMs, sw.base.WarmupMs = sw.DurationMs, sw.WarmupMs
	for _, a := range arms {
		row := make([]float64, len(sw.Clients))
		for i := range row {
			row[i] = math.NaN()
		}
		sw.Tput = append(sw.Tput, row)
		name := a.Name
		if name == "" {
			name = "this run"
		}
		sw.Names = append(sw.Names, name)
	}
	return sw
}

// Done reports whether every point is measured (or the sweep failed).
func (s *Sweep) Done() bool { return s.Err != "" || s.measured >= len(s.Clients)*len(s.arms) }

// Progress returns points measured and total.
func (s *Sweep) Progress() (int, int) { return s.measured, len(s.Clients) * len(s.arms) }

// step starts the next client count's runs, one per arm, once the last ones are
// measured: points go client count by client count, so the lines grow together.
func (s *Sweep) step() {
	if s.Done() || s.next >= len(s.Clients) || slices.ContainsFunc(s.running, func(id runner.ArmID) bool { return id != 0 }) {
		return
	}
	pt := s.base
	pt.Arms = nil
	for _, a := range s.arms {
		set := maps.Clone(a.Set)
		if set == nil {
			set = map[string]string{}
		}
		set["workload.clients"] = strconv.Itoa(s.Clients[s.next]) // the point's, whatever the arm's
		pt.Arms = append(pt.Arms, engine.Arm{Name: a.Name, Set: set})
	}
	arms, err := pt.ArmScenarios()
	if err != nil {
		s.Err = err.Error()
		s.stop()
		return
	}
	for ai, a := range arms {
		sc := a.Scenario
		id := s.newID()
		s.running[ai] = id
		s.run.Start(id, sc, true)
		s.run.Advance(id, runner.Advance{Seq: 1, ToNs: sc.DurationMs * 1e6, Results: true, Select: runner.NoSelection()})
	}
	s.next++
}

// take records an answer of one of the sweep's runs (false for another's): its
// throughput once it is done.
func (s *Sweep) take(f runner.Frame) bool {
	ai := slices.Index(s.running, f.Arm)
	if ai < 0 {
		return false
	}
	if f.Err == "" && !f.Done {
		return true
	}
	s.run.Stop(f.Arm)
	s.running[ai] = 0
	if f.Err != "" {
		s.Err = f.Err
		s.stop()
		return true
	}
	s.Tput[ai][s.next-1] = f.Results.ThroughputPerS
	s.measured++
	return true
}

// stop stops the sweep's runs (its measured points stay).
func (s *Sweep) stop() {
	for i, id := range s.running {
		if id != 0 {
			s.run.Stop(id)
			s.running[i] = 0
		}
	}
}

// dropSweep stops the sweep and forgets it: the scenario it measured changed.
func (m *Model) dropSweep() {
	if m.sweep != nil {
		m.sweep.stop()
	}
	m.sweep = nil
}

// StartSweep begins (or restarts) a sweep of the current scenario and arms. A
// workload without clients (hackbench, idle) has nothing to sweep.
func (m *Model) StartSweep() {
	if !m.usesClients(m.setup.base) {
		return
	}
	comp, err := compareOf(m.view, m.setup.base, m.controls)
	if err != nil {
		comp = comparison{}
	}
	m.edits++
	m.dropSweep()
	m.sweep = newSweep(m.setup.base, comp.arms, m.run, func() runner.ArmID { m.lastID++; return m.lastID })
}

// SweepState returns the running or finished sweep, or nil.
func (m *Model) SweepState() *Sweep { return m.sweep }
