package preview

import (
	"math"
	"strconv"
	"strings"
)

// Number formatting for the card, the chart and the link description. It follows
// the playground's conventions (three significant digits, k/M suffixes, µs/ms/s)
// so a preview reads like the page it leads to; it is written here, not shared
// with view, because web must not import wasm.

// num formats v with three significant digits and a k/M/G suffix: 7819 ->
// "7.82k", 22722 -> "22.7k", 950 -> "950".
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	suffix := ""
	for _, s := range []string{"k", "M", "G"} {
		if math.Abs(v) < 999.5 {
			break
		}
		v /= 1000
		suffix = s
	}
	return sig3(v) + suffix
}

// sig3 writes v with three significant digits (at most two decimals).
func sig3(v float64) string {
	a := math.Abs(v)
	prec := 2
	switch {
	case a == 0:
		return "0"
	case a >= 99.95:
		prec = 0
	case a >= 9.995:
		prec = 1
	}
	return strings.Replace(strconv.FormatFloat(v, 'f', prec, 64), "-", "−", 1)
}

// durationUs formats a duration given in microseconds with a unit that keeps
// three significant digits: "850 ns", "78.0 µs", "8.50 ms", "1.25 s".
func durationUs(us float64) string {
	a := math.Abs(us)
	switch {
	case math.IsNaN(us):
		return "–"
	case a == 0:
		return "0"
	case a < 1:
		return strconv.FormatFloat(us*1e3, 'f', 0, 64) + " ns"
	case a < 1e3:
		return sig3(us) + " µs"
	case a < 1e6:
		return sig3(us/1e3) + " ms"
	}
	return sig3(us/1e6) + " s"
}

// percent formats a fraction as a percentage: one decimal below 10%, "<0.1%"
// for a positive share too small to show (as the page's cards do).
func percent(frac float64) string {
	p := frac * 100
	switch {
	case math.IsNaN(p):
		return "–"
	case p > 0 && p < 0.05:
		return "<0.1%"
	case p != 0 && math.Abs(p) < 9.95:
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 0, 64) + "%"
}

// change describes b against a: a factor ("3.0x") when one is at least 1.5
// times the other, a relative change ("+9%", "−66%") otherwise, "" without a
// baseline.
func change(a, b float64) string {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) || math.IsInf(b, 0) {
		return ""
	}
	if r := b / a; r >= 1.5 {
		return strconv.FormatFloat(r, 'f', 1, 64) + "x"
	}
	c := (b - a) / math.Abs(a) * 100
	switch r := math.Round(c); {
	case r > 0:
		return "+" + strconv.FormatFloat(r, 'f', 0, 64) + "%"
	case r < 0:
		return "−" + strconv.FormatFloat(-r, 'f', 0, 64) + "%"
	}
	return "±0%"
}

// seconds formats simulated milliseconds as seconds: "3.6 s", "24 s", "0.33 s".
func seconds(ms float64) string {
	s := ms / 1e3
	switch {
	case s >= 10 || s == math.Trunc(s):
		return strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64) + " s"
	case s >= 1:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(s, 'f', 2, 64) + " s"
}

// clip shortens s to at most n runes, ending in an ellipsis when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
