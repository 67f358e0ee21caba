package view

import (
	"math"
	"strconv"
	"strings"
)

// Charts are SVG drawn by the page; this file computes their geometry (path data in
// a fixed viewBox and axis ticks), so what they show is decided and tested in Go.

// ChartBox is the plotting area inside a chart's viewBox (the page uses viewBox
// "0 0 ChartW ChartH"; the margins hold the axis labels).
const (
	ChartW = 320
	ChartH = 150
)

// Plot returns where data goes inside the chart viewBox: the left margin holds the
// y labels, the bottom margin the x labels.
func Plot() Rect { return Rect{X: 40, Y: 8, W: ChartW - 40 - 10, H: ChartH - 8 - 22} }

// NiceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten, for an axis maximum.
func NiceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// NiceStep rounds a raw axis step up to 1, 2 or 5 times a power of ten (1 for
// zero or less), for a chart with labels every step.
func NiceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if raw <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// Steps lists 0, step, 2*step, ... up to top (within a thousandth of a step).
func Steps(top, step float64) []float64 {
	var out []float64
	for i := 0; step > 0 && float64(i)*step <= top+step/1e3; i++ {
		out = append(out, float64(i)*step)
	}
	return out
}

// Scale maps data coordinates to the plot area: x in [X0, X1], y in [0, Y1].
// Box is the plot area in the chart's own coordinates; the zero Box is Plot(),
// the page's charts. (The share link's SVG chart is larger and passes its own.)
type Scale struct {
	X0, X1, Y1 float64
	Box        Rect
}

// At returns the viewBox point of data (x, y).
func (s Scale) At(x, y float64) (float64, float64) {
	a := s.Box
	if a == (Rect{}) {
		a = Plot()
	}
	fx := 0.0
	if s.X1 > s.X0 {
		fx = (x - s.X0) / (s.X1 - s.X0)
	}
	fy := 0.0
	if s.Y1 > 0 {
		fy = y / s.Y1
	}
	fy = min(max(fy, 0), 1)
	return float64(a.X) + fx*float64(a.W), float64(a.Y+a.H) - fy*float64(a.H)
}

// LinePath is SVG path data through (xs[i], ys[i]).
func LinePath(xs, ys []float64, s Scale) string {
	var b strings.Builder
	for i := range min(len(xs), len(ys)) {
		x, y := s.At(xs[i], ys[i])
		if i == 0 {
			b.WriteByte('M')
		} else {
			b.WriteByte('L')
		}
		b.WriteString(num(x))
		b.WriteByte(',')
		b.WriteString(num(y))
	}
	return b.String()
}

// Tick is one axis label at a viewBox position.
type Tick struct {
	Pos  float64 `json:"pos"`
	Text string  `json:"text"`
}

// YTicks labels 0, half and the top of the y axis.
func YTicks(s Scale, format func(float64) string) []Tick {
	var out []Tick
	for _, f := range []float64{0, 0.5, 1} {
		_, y := s.At(s.X0, f*s.Y1)
		out = append(out, Tick{Pos: y, Text: format(f * s.Y1)})
	}
	return out
}

// XTicks labels the given data x positions.
func XTicks(s Scale, xs []float64, format func(float64) string) []Tick {
	var out []Tick
	for _, x := range xs {
		px, _ := s.At(x, 0)
		out = append(out, Tick{Pos: px, Text: format(x)})
	}
	return out
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
