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

// Duration formats nanoseconds with a unit chosen to keep three significant
// digits: "850 ns", "2.00 µs", "78.0 µs", "8.50 ms", "1.25 s".
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

// sig writes v with three significant digits (at most two decimals). The
// precision drops only where rounding at it would carry into the next decade:
// 99.96 is "100", 99.9 stays "99.9".
func sig(v float64) string {
	a := math.Abs(v)
	prec := 2
	switch {
	case a >= 99.95:
		prec = 0
	case a >= 9.995:
		prec = 1
	}
	return strings.Replace(strconv.FormatFloat(v, 'f', prec, 64), "-", "−", 1)
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

// Change says how b compares with a, the one rule for the page's cards, the
// share card and the link description. A reviewer reads it beside "A → B":
//
//   - "" without a baseline (a zero, or either side NaN or infinite);
//   - a factor from twice up: "2.9x", "14x". Past doubling a percentage is a
//     number the reader converts back ("+191%" is 2.9x), and a factor is how
//     speedups are published and how the calibration compares changes;
//   - otherwise a signed percentage, whole from 10% ("+44%", "−66%") and with one
//     decimal below ("+4.4%", "−0.3%"): the values beside it carry three
//     significant digits, so a change that small is visible in them, and
//     rounding it to "+4%" or "±0%" would contradict them;
//   - "±0%" when it rounds to nothing.
//
// A fall is always a percentage: it never passes −100%, and "0.34x" beside a
// latency is easily read as a factor of improvement.
func Change(a, b float64) string {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return ""
	}
	if r := b / a; r >= 2 {
		return Factor(r)
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

// Factor writes a change of twice or more as a factor: one decimal below ten
// ("2.9x"), none from ten ("14x").
func Factor(r float64) string {
	if math.Abs(r) >= 9.95 {
		return strconv.FormatFloat(r, 'f', 0, 64) + "x"
	}
	return strconv.FormatFloat(r, 'f', 1, 64) + "x"
}

// Ratio writes a ratio B / A with two decimals, as docs/calibration.md does
// ("1.10x", "0.34x"): the calibration's bands (a wash is 0.87x-1.15x) are
// decided in the second decimal, so a verdict quoting a ratio needs it.
func Ratio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "–"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "x"
}

// Seconds writes a span of simulated time given in milliseconds, as short as it
// reads: "3.6 s", "24 s", "12.5 s", "0.33 s".
func Seconds(ms float64) string {
	s := ms / 1e3
	switch {
	case s >= 10 || s == math.Trunc(s):
		return strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64) + " s"
	case s >= 1:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(s, 'f', 2, 64) + " s"
}

// Clip shortens s to at most n runes, ending in an ellipsis when cut.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
