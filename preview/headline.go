package preview

import (
	"fmt"
	"math"
	"strings"

	"schedplay/engine"
)

// Metric is one headline number of a preview, formatted: arm A's value, arm B's
// and the change (both "" for a single run).
type Metric struct {
	Label  string
	A, B   string
	Change string
	// Verdict is +1 when B is better than A, -1 when worse, 0 when the metric
	// has no better direction or the values are within 2%.
	Verdict int
	short   string // how the description names it
	ratio   bool   // see metricDef
}

// metricDef is a headline metric's definition.
type metricDef struct {
	label, short string
	// higher is +1 when more is better, -1 when less is, 0 when neither.
	higher int
	// value is NaN when the window measured nothing of it.
	value  func(r *engine.Results) float64
	format func(v float64) string
	// ratio makes the description lead with the factor ("2.6x throughput").
	ratio bool
	// unfinished, when set, is shown for a NaN value instead of "–".
	unfinished func(p *Preview) string
}

// defsFor lists the four headline metrics of a workload kind: a server is judged
// by throughput and latency, a finite run (hackbench) by how long it took, an
// idle guest by what its idle loop costs the host. They are built per call:
// definitions in package variables would be mutable globals.
func defsFor(kind string) []metricDef {
	busy := metricDef{"busy vCPUs", "busy vCPUs", 0,
		func(r *engine.Results) float64 { return r.BusyVCPUsMean }, sig3, false, nil}
	idleOver := metricDef{"idle while overloaded", "idle while overloaded", -1,
		func(r *engine.Results) float64 { return r.IdleWhileOverloadedFrac }, percent, false, nil}
	ipis := metricDef{"IPIs /s", "IPIs /s", 0,
		func(r *engine.Results) float64 { return r.IPIsPerS.Total }, num, false, nil}
	switch kind {
	case engine.WorkloadHackbench:
		runTime := metricDef{"run time", "run time", -1, func(r *engine.Results) float64 {
			if r.ElapsedS == 0 {
				return math.NaN() // not finished within what was simulated
			}
			return r.ElapsedS * 1e6
		}, durationUs, false, func(p *Preview) string { return "> " + seconds(p.ReachedMs) }}
		return []metricDef{runTime, busy, idleOver, ipis}
	case engine.WorkloadIdle:
		return []metricDef{
			{"halt VM exits /s", "halt exits /s", -1, func(r *engine.Results) float64 { return r.HaltExitsPerS }, num, false, nil},
			{"host CPU", "host CPU", -1, func(r *engine.Results) float64 { return r.HostCPUFrac }, percent, false, nil},
			{"spin CPU", "spin CPU", -1, func(r *engine.Results) float64 { return r.SpinCPUFrac }, percent, false, nil},
			ipis,
		}
	}
	return []metricDef{
		{"throughput /s", "throughput", +1, func(r *engine.Results) float64 { return r.ThroughputPerS }, num, true, nil},
		{"mean latency", "mean latency", -1, func(r *engine.Results) float64 {
			if r.Completed == 0 {
				return math.NaN()
			}
			return r.LatencyUs.Mean
		}, durationUs, false, nil},
		busy, idleOver,
	}
}

// Headline returns the preview's four headline metrics.
func (p *Preview) Headline() []Metric {
	var out []Metric
	for _, d := range defsFor(p.Workload) {
		m := Metric{Label: d.label, short: d.short, ratio: d.ratio}
		vals := make([]float64, len(p.Arms))
		strs := make([]string, len(p.Arms))
		for i := range p.Arms {
			vals[i] = d.value(&p.Arms[i].Results)
			strs[i] = d.format(vals[i])
			if math.IsNaN(vals[i]) && d.unfinished != nil {
				strs[i] = d.unfinished(p)
			}
		}
		m.A = strs[0]
		if len(p.Arms) == 2 {
			a, b := vals[0], vals[1]
			m.B = strs[1]
			// As on the page's cards: no change between values shown alike.
			if m.A != m.B {
				m.Change = change(a, b)
			}
			if m.Change != "" && d.higher != 0 && math.Abs(b-a) > 0.02*math.Abs(a) {
				m.Verdict = -1
				if (b > a) == (d.higher > 0) {
					m.Verdict = +1
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// Title names the preview: the scenario and, in a comparison, its two arms and
// the knobs that differ between them.
func (p *Preview) Title() string {
	name := p.Name
	if name == "" {
		name = fmt.Sprintf("%d vCPUs, %s", p.VCPUs, p.Workload)
	}
	name = clip(name, 60)
	if len(p.Arms) < 2 {
		return name
	}
	t := name + ": " + p.ArmLabel(0) + " vs " + p.ArmLabel(1)
	switch n := len(p.Compared); {
	case n == 1:
		t += " (" + p.Compared[0].Path + ")"
	case n == 2:
		t += " (" + p.Compared[0].Path + ", " + p.Compared[1].Path + ")"
	case n > 2:
		t += fmt.Sprintf(" (%d knobs)", n)
	}
	return t
}

// ArmLabel is arm i's name, or its letter when it has none.
func (p *Preview) ArmLabel(i int) string {
	if n := p.Arms[i].Name; n != "" {
		return clip(n, 40)
	}
	return string(rune('A' + i))
}

// Machine describes what every arm runs: "32 vCPUs · request_server · 64 clients".
func (p *Preview) Machine() string {
	parts := []string{fmt.Sprintf("%d vCPUs", p.VCPUs), p.Workload}
	if p.Clients > 0 && p.Workload != engine.WorkloadHackbench && p.Workload != engine.WorkloadIdle {
		parts = append(parts, fmt.Sprintf("%d clients", p.Clients))
	}
	return strings.Join(parts, " · ")
}

// Coverage says what simulated time the numbers cover: the measured window of
// a complete run, or the prefix a bounded one reached.
func (p *Preview) Coverage() string {
	if p.Complete {
		return "measured " + seconds(p.FromMs) + "–" + seconds(p.ToMs) + " of simulated time"
	}
	return "first " + seconds(p.ReachedMs) + " of " + seconds(p.HorizonMs) + " simulated"
}

// Description is the headline result in one line, as the model computed it:
// "pull on: 2.6x throughput, mean latency 5.78 ms → 2.22 ms (first 3.6 s of
// 24 s simulated)".
func (p *Preview) Description() string {
	ms := p.Headline()
	var parts []string
	for _, m := range ms[:2] {
		switch {
		case len(p.Arms) < 2:
			parts = append(parts, m.short+" "+m.A)
		case m.ratio && strings.HasSuffix(m.Change, "x"):
			parts = append(parts, m.Change+" "+m.short)
		default:
			s := m.short + " " + m.A + " → " + m.B
			if m.Change != "" {
				s += " (" + m.Change + ")"
			}
			parts = append(parts, s)
		}
	}
	lead := p.Machine()
	if len(p.Arms) == 2 {
		lead = p.ArmLabel(1)
	}
	d := lead + ": " + strings.Join(parts, ", ")
	if !p.Complete {
		d += " (" + p.Coverage() + ")"
	}
	return d
}
