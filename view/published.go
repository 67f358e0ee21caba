package view

import (
	"maps"
	"slices"
	"strings"

	"schedplay/engine"
)

// PublishedSet is a scenario's published figures, ready to be matched against
// the settings of a run. A figure belongs to a run of the system it was measured
// on under the same load: the scenario with the point's settings and those of
// the arm it is labelled with, compared knob by knob on everything but how the
// run is measured (seed, horizon, warm-up, series width) and the platform's
// costs (the model's estimate of the measured machine, not a setting of it). So
// a run with another seed or window keeps the published figure, and one that
// changes a rule the measurement did not have (another spin-window rule, the
// faster balancer) or the load does not. Matching on settings rather than names
// finds the point in every compare mode (the preset's arms, a knob comparison,
// one run) and in a shared scenario whose arms were renamed. The page's cards
// and the share card both match through it.
type PublishedSet []publishedPoint

// publishedPoint is one published point under one reading of its label: the
// settings of the configuration it was measured at.
type publishedPoint struct {
	when   []knobSetting
	values map[string]float64
}

// knobSetting is a knob path and a value as the engine reads it (a "1" and a
// "true" are the same setting).
type knobSetting struct {
	path  string
	value any
}

// measuredKnob says a knob describes the measured system or its load, not how
// the model measures a run or what it assumes the platform costs.
func measuredKnob(path string) bool {
	switch path {
	case "seed", "duration_ms", "warmup_ms", "series_interval_ms":
		return false
	}
	return !strings.HasPrefix(path, "machine.costs.")
}

// NewPublishedSet reads sc's published points. A point whose settings the
// engine refuses for sc, or labelled with an arm sc does not have, matches no
// run.
func NewPublishedSet(sc engine.Scenario) PublishedSet {
	var paths []string
	for _, p := range engine.KnobPaths() {
		if measuredKnob(p) {
			paths = append(paths, p)
		}
	}
	// The configuration is the scenario's machine, rules and load: its arms and
	// published points are not part of it (and one bad point must not hide the
	// others).
	base := sc
	base.Arms, base.Published = nil, nil
	var out PublishedSet
	for _, p := range sc.Published {
		if p.Relative {
			continue // only a change between arms, not a figure a run can show
		}
		var sets []string
		if p.Arm != "" {
			i := slices.IndexFunc(sc.Arms, func(a engine.Arm) bool { return a.Name == p.Arm })
			if i < 0 {
				continue
			}
			sets = setsOf(sc.Arms[i].Set)
		}
		cfg, err := base.WithKnobs(append(sets, setsOf(p.Set)...)...)
		if err != nil {
			continue
		}
		pt := publishedPoint{values: p.Values}
		for _, path := range paths {
			v, _ := cfg.Get(path)
			x, err := engine.KnobValue(path, v)
			if err != nil {
				x = unreadable{}
			}
			pt.when = append(pt.when, knobSetting{path: path, value: x})
		}
		out = append(out, pt)
	}
	return out
}

// setsOf writes overrides as path=value, in path order.
func setsOf(set map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}

// unreadable is a setting's value the engine refused: equal to nothing a run
// can have.
type unreadable struct{}

// Figures returns, by metric key ("throughput_per_s"), the published value of
// the first point whose settings all match the run's; get reads a knob of the
// run (its value in any form the engine reads).
func (ps PublishedSet) Figures(get func(path string) string) map[string]float64 {
	out := map[string]float64{}
	for _, p := range ps {
		if !p.matches(get) {
			continue
		}
		for key, v := range p.values {
			if _, seen := out[key]; !seen {
				out[key] = v
			}
		}
	}
	return out
}

func (p publishedPoint) matches(get func(string) string) bool {
	for _, s := range p.when {
		if _, bad := s.value.(unreadable); bad {
			return false
		}
		x, err := engine.KnobValue(s.path, get(s.path))
		if err != nil || x != s.value {
			return false
		}
	}
	return true
}

// FiguresOf is Figures for a run's scenario.
func (ps PublishedSet) FiguresOf(run engine.Scenario) map[string]float64 {
	return ps.Figures(func(path string) string {
		v, _ := run.Get(path)
		return v
	})
}
