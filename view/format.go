package view

import (
	"math"
	"strconv"
	"strings"
)

// Formatting for the HTML numbers: compact, with units, using a thin space as the
// thousands separator (it never wraps a number and reads in every locale).

const thinSpace = "\u2009"

// Compact formats v with three significant digits and a k/M/G suffix: 7819 ->
// "7.82k", 22722 -> "22.7k", 950 -> "950", 0.5 -> "0.50".
func Compact(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	neg := v < 0
	v = math.Abs(v)
	suffix := ""
	for _, s := range []string{"k", "M", "G"} {
		if v < 999.5 {
			break
		}
		v /= 1000
		suffix = s
	}
	var out string
	switch {
	case v == 0:
		out = "0"
	case v >= 99.95:
		out = strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 9.995:
		out = strconv.FormatFloat(v, 'f', 1, 64)
	default:
		out = strconv.FormatFloat(v, 'f', 2, 64)
	}
	if neg {
		out = "−" + out
	}
	return out + suffix
}

// Grouped formats an integer with thin-space thousands groups: 100000 -> "100 000".
func Grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteString("−")
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(thinSpace)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Duration formats nanoseconds with a unit chosen to keep 2-3 significant digits:
// "850 ns", "2.0 µs", "78 µs", "8.5 ms", "1.25 s".
func Duration(ns float64) string {
	abs := math.Abs(ns)
	switch {
	case abs == 0:
		return "0"
	case abs < 1e3:
		return strconv.FormatFloat(ns, 'f', 0, 64) + " ns"
	case abs < 1e6:
		return sig(ns/1e3) + " µs"
	case abs < 1e9:
		return sig(ns/1e6) + " ms"
	}
	return sig(ns/1e9) + " s"
}

func sig(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 99.5:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 9.95:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// SimTime formats a simulated instant to the microsecond, grouped for reading:
// 2431507000 ns -> "2.431 507 s".
func SimTime(ns int64) string {
	us := ns / 1000
	sec, frac := us/1_000_000, us%1_000_000
	f := strconv.FormatInt(frac+1_000_000, 10)[1:]
	return strconv.FormatInt(sec, 10) + "." + f[:3] + thinSpace + f[3:] + " s"
}

// Percent formats a fraction as a whole percentage (one decimal below 10%, and
// "<0.1%" for a positive share too small to show).
func Percent(frac float64) string {
	p := frac * 100
	if math.IsNaN(p) {
		return "–"
	}
	if p > 0 && p < 0.05 {
		return "<0.1%"
	}
	if p != 0 && math.Abs(p) < 9.95 {
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 0, 64) + "%"
}

// VCPUs formats a mean number of vCPUs: one decimal, two below one vCPU, where an
// idle guest's share of a vCPU would otherwise read as 0.0 or 0.1 on both sides.
func VCPUs(v float64) string {
	if v != 0 && math.Abs(v) < 0.995 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// Change formats the relative change from a to b: "+191%", "−66%", "±0%"; "" when
// a is zero (no baseline to compare with).
func Change(a, b float64) string {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return ""
	}
	c := (b - a) / math.Abs(a) * 100
	r := math.Round(c)
	if math.Abs(c) < 9.95 {
		r = math.Round(c*10) / 10
	}
	switch {
	case r > 0:
		return "+" + strconv.FormatFloat(r, 'f', -1, 64) + "%"
	case r < 0:
		return "−" + strconv.FormatFloat(-r, 'f', -1, 64) + "%"
	}
	return "±0%"
}
