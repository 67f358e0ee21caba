package view

import (
	"slices"
	"strings"

	"schedplay/engine"
)

// PublishedSet is a scenario's published figures, ready to be matched against
// the settings of a run: a figure belongs to a run whose knob settings match the
// point's and those of the scenario arm the point is labelled with. Matching on
// settings rather than names finds the point in every compare mode (the preset's
// arms, a knob comparison, one run) and in a shared scenario whose arms were
// renamed. The page's cards and the share card both match through it.
type PublishedSet []publishedPoint

// publishedPoint is one published point under one reading of its label: its
// settings and, for a labelled point, those of one scenario arm of that name.
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

// NewPublishedSet reads sc's published points. A setting the engine cannot read
// (the scenario decoder refuses those) never matches.
func NewPublishedSet(sc engine.Scenario) PublishedSet {
	read := func(set map[string]string) []knobSetting {
		var out []knobSetting
		for path, v := range set {
			x, err := engine.KnobValue(path, v)
			if err != nil {
				x = unreadable{}
			}
			out = append(out, knobSetting{path: path, value: x})
		}
		slices.SortFunc(out, func(a, b knobSetting) int { return strings.Compare(a.path, b.path) })
		return out
	}
	var out PublishedSet
	for _, p := range sc.Published {
		if p.Relative {
			continue // only a change between arms, not a figure a run can show
		}
		if p.Arm == "" {
			out = append(out, publishedPoint{when: read(p.Set), values: p.Values})
			continue
		}
		for _, a := range sc.Arms {
			if a.Name == p.Arm {
				out = append(out, publishedPoint{when: append(read(p.Set), read(a.Set)...), values: p.Values})
			}
		}
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
