package playground

// Slider ladders and value display, derived from a knob's schema entry (range,
// Log, unit, kind), so a knob the engine widens, narrows or re-units changes the
// panel with it.

import (
	"math"
	"strconv"
	"strings"

	"schedplay/engine"
	"schedplay/view"
)

// maxIntegerSteps is the widest range a slider steps through one by one (vCPUs,
// 1 to 128: a step is a couple of pixels, and the arrow keys move by one). A wider
// range that is not stepped by factors is typed in instead (the seed).
const maxIntegerSteps = 128

// schemaLadder returns the slider positions for a numeric knob: a 1-2-5 ladder
// for a knob stepped by factors (Log), every integer for a small integer range,
// and nil for a knob better typed in (a number input).
func schemaLadder(k engine.Knob) []float64 {
	switch {
	case k.Kind != engine.KindInt && k.Kind != engine.KindFloat:
		return nil
	case k.Log:
		return ladder125(k.Min, k.Max, k.Kind == engine.KindInt)
	case k.Kind == engine.KindInt && k.Max-k.Min <= maxIntegerSteps:
		var l []float64
		for v := k.Min; v <= k.Max; v++ {
			l = append(l, v)
		}
		return l
	}
	return nil
}

// ladder125 returns 1, 2 and 5 times every power of ten within [lo, hi], with lo
// and hi themselves as the ends when they are not such a value, so the slider
// covers the schema's whole range. A range from 0 has 0 as its first position and
// the scale starts at 1: zero is below any scale of factors, and for these knobs it
// means "off" (formatKnob). Integer knobs get no fractional positions.
func ladder125(lo, hi float64, integer bool) []float64 {
	var l []float64
	if lo <= 0 {
		l = append(l, 0)
		lo = 1
	}
	if hi < lo {
		return l
	}
	l = append(l, lo)
	for e := int(math.Floor(math.Log10(lo))); ; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow10(e)
			if e < 0 {
				v = m / math.Pow10(-e) // 2/100 is exactly the float 0.02; 2*0.01 is not
			}
			if v > hi {
				return appendEnd(l, hi)
			}
			if v > lo && (!integer || v == math.Trunc(v)) {
				l = append(l, v)
			}
		}
	}
}

// appendEnd appends hi unless the ladder already ends there.
func appendEnd(l []float64, hi float64) []float64 {
	if l[len(l)-1] != hi {
		l = append(l, hi)
	}
	return l
}

// clampLadder keeps the positions of a hand-kept ladder that lie in the knob's
// range.
func clampLadder(l []float64, k engine.Knob) []float64 {
	var out []float64
	for _, v := range l {
		if v >= k.Min && v <= k.Max {
			out = append(out, v)
		}
	}
	return out
}

// formatKnob renders a value as the engine writes it (Scenario.Get) with the
// knob's unit: "200 µs", "10 000 iterations", "on", "bare metal". names are the
// display names of a choice knob's values. Zero on a scale of factors that starts
// at 0 reads "off": the schema's docs give it that meaning for every such knob
// (no polling, no spinning, no balancer).
func formatKnob(k engine.Knob, names map[string]string, v string) string {
	switch k.Kind {
	case engine.KindBool:
		if v == "true" || v == "1" {
			return "on"
		}
		return "off"
	case engine.KindChoice:
		if n, ok := names[v]; ok {
			return n
		}
		return v
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v
	}
	if x == 0 && k.Log && k.Min == 0 {
		return "off"
	}
	switch k.Unit {
	case "ps":
		return view.Duration(x / 1e3)
	case "ns":
		return view.Duration(x)
	case "µs":
		return view.Duration(x * 1e3)
	case "ms":
		return view.Duration(x * 1e6)
	}
	num := strconv.FormatFloat(x, 'g', -1, 64)
	if k.Kind == engine.KindInt && math.Abs(x) < 1<<53 {
		num = view.Grouped(int64(x))
	}
	switch {
	case k.Unit == "":
		return num
	case strings.HasPrefix(k.Unit, "/"):
		return num + k.Unit // "1 000/s"
	}
	return num + " " + k.Unit
}
