package play

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"schedplay/engine"
)

// Sweep runs the scenario across client counts for every arm, a slice at a time
// inside the frame budget, for the throughput-vs-clients chart.
type Sweep struct {
	Clients []int
	Names   []string
	// Tput[arm][i] is the throughput at Clients[i], NaN until measured.
	Tput [][]float64
	// DurationMs and WarmupMs are each point's horizon and warm-up.
	DurationMs, WarmupMs int64
	Err                  string

	specs  []armSpec
	base   engine.Scenario
	next   int // index of the next (client, arm) pair to run
	cur    *engine.Sim
	sliceN int64
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

func newSweep(base engine.Scenario, specs []armSpec) *Sweep {
	sw := &Sweep{Clients: SweepClients(base), specs: specs, base: base, sliceN: 20_000}
	sw.DurationMs = min(base.DurationMs, sweepMaxDurationMs)
	sw.WarmupMs = min(base.WarmupMs, sw.DurationMs/4)
	sw.base.DurationMs, sw.base.WarmupMs = sw.DurationMs, sw.WarmupMs
	for _, s := range specs {
		row := make([]float64, len(sw.Clients))
		for i := range row {
			row[i] = math.NaN()
		}
		sw.Tput = append(sw.Tput, row)
		name := s.name
		if name == "" {
			name = "this run"
		}
		sw.Names = append(sw.Names, name)
	}
	return sw
}

// Done reports whether every point is measured (or the sweep failed).
func (s *Sweep) Done() bool { return s.Err != "" || s.next >= len(s.Clients)*len(s.specs) }

// Progress returns points measured and total.
func (s *Sweep) Progress() (int, int) { return s.next, len(s.Clients) * len(s.specs) }

// step advances the sweep until deadline. Points go client count by client count,
// both arms at each, so the two lines grow together.
func (s *Sweep) step(clock func() float64, deadline float64) {
	for !s.Done() && clock() < deadline {
		ci, ai := s.next/len(s.specs), s.next%len(s.specs)
		if s.cur == nil {
			set := append(slices.Clone(s.specs[ai].set), fmt.Sprintf("workload.clients=%d", s.Clients[ci]))
			sc, err := s.base.WithKnobs(set...)
			if err == nil {
				s.cur, err = engine.NewSim(sc)
			}
			if err != nil {
				s.Err = err.Error()
				return
			}
		}
		t0 := clock()
		s.cur.RunUntil(min(s.cur.NowNs()+s.sliceN, s.cur.EndNs()))
		s.sliceN = adaptSlice(s.sliceN, clock()-t0)
		if s.cur.Done() {
			s.Tput[ai][ci] = s.cur.Results().ThroughputPerS
			s.cur = nil
			s.next++
		}
	}
}

// StartSweep begins (or restarts) a sweep of the current scenario and arms. A
// workload without clients (hackbench, idle) has nothing to sweep.
func (m *Model) StartSweep() {
	if !usesClients(m.setup.base) {
		return
	}
	comp, err := compareOf(m.view, m.setup.base, m.controls)
	if err != nil {
		comp.arms = []armSpec{{}}
	}
	m.sweep = newSweep(m.setup.base, comp.arms)
}

// SweepState returns the running or finished sweep, or nil.
func (m *Model) SweepState() *Sweep { return m.sweep }
