package playground

import "schedplay/engine"

// publishedSet is a scenario's published figures, ready to be matched against an
// arm: a figure belongs to an arm whose knob settings match the point's and those
// of the scenario arm the point is labelled with. Matching on settings rather than
// names finds the point in every compare mode (preset arms, a knob comparison, or
// one run). The settings are kept in the form Scenario.Get writes values
// (canonicalKnob), once per scenario, so matching an arm compares strings.
type publishedSet []publishedPoint

// publishedPoint is one published point under one reading of its label: its
// settings and, for a labelled point, those of one scenario arm of that name.
type publishedPoint struct {
	when   []setting
	values map[string]float64
}

// setting is a knob path and a value in the engine's form.
type setting struct{ path, value string }

func newPublishedSet(sc engine.Scenario) publishedSet {
	// Points repeat their settings (both arms at each client count); each
	// distinct one is put in the engine's form once, as that looks the path up
	// in the schema.
	seen := map[setting]string{}
	canonical := func(set map[string]string) []setting {
		var out []setting
		for path, v := range set {
			c, ok := seen[setting{path, v}]
			if !ok {
				c = canonicalKnob(path, v)
				seen[setting{path, v}] = c
			}
			out = append(out, setting{path, c})
		}
		return out
	}
	var out publishedSet
	for _, p := range sc.Published {
		if p.Arm == "" {
			out = append(out, publishedPoint{canonical(p.Set), p.Values})
			continue
		}
		for _, a := range sc.Arms {
			if a.Name == p.Arm {
				out = append(out, publishedPoint{append(canonical(p.Set), canonical(a.Set)...), p.Values})
			}
		}
	}
	return out
}

// figures returns, by metric key ("throughput_per_s"), the published value of
// the first point whose settings all match vals.
func (ps publishedSet) figures(vals *knobReader) map[string]float64 {
	out := map[string]float64{}
	for _, p := range ps {
		if !p.matches(vals) {
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

func (p publishedPoint) matches(vals *knobReader) bool {
	for _, s := range p.when {
		if vals.get(s.path) != s.value {
			return false
		}
	}
	return true
}
