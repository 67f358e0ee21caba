package playground

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"schedplay/view"
)

// Chart is one SVG chart, laid out: the page sets its viewBox and paints every
// element where the chart says, computing no position of its own.
type Chart struct {
	Title string `json:"title"`
	// ViewBox is the SVG's viewBox ("0 0 320 150"); everything else is in its
	// units.
	ViewBox string `json:"view_box"`
	// Axis is the x axis along the plot's bottom; Grid the y ticks' lines across
	// the plot; Labels every tick's text.
	Axis   Seg     `json:"axis"`
	Grid   []Seg   `json:"grid"`
	Labels []Label `json:"labels"`
	Lines  []Line  `json:"lines"`
	Bars   []Bar   `json:"bars,omitzero"`
	// Empty says, in the middle of the plot, why there is nothing to plot.
	Empty  *Label `json:"empty,omitzero"`
	Note   string `json:"note,omitzero"`
	Button string `json:"button,omitzero"`
}

// Line is one series; Dots are points drawn as rings (published numbers).
type Line struct {
	Name  string `json:"name"`
	D     string `json:"d"`
	Color string `json:"color"`
	Dots  []Dot  `json:"dots,omitzero"`
}

// Dot is a marker at a viewBox position.
type Dot struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Title string  `json:"title"`
}

// Bar is a histogram bar in viewBox units.
type Bar struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	W     float64 `json:"w"`
	H     float64 `json:"h"`
	Color string  `json:"color"`
	Title string  `json:"title"`
}

// Seg is a line from (X1, Y1) to (X2, Y2) in viewBox units.
type Seg struct {
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
	X2 float64 `json:"x2"`
	Y2 float64 `json:"y2"`
}

// Label is a text whose baseline starts, ends or centres (Anchor, SVG's
// text-anchor) at (X, Y).
type Label struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Anchor string  `json:"anchor"`
	Text   string  `json:"text"`
}

// Where tick labels go, for the page's 11 px chart text: a y label ends
// labelGap left of the plot, its baseline labelDrop below its tick so that the
// text centres on it; an x label's baseline is xLabelDrop below the plot.
const (
	labelGap   = 4
	labelDrop  = 3
	xLabelDrop = 14
)

// newChart is an empty chart: its viewBox and its x axis.
func newChart(title string) Chart {
	p := view.Plot()
	bottom := float64(p.Y + p.H)
	return Chart{Title: title, ViewBox: fmt.Sprintf("0 0 %d %d", view.ChartW, view.ChartH),
		Axis: Seg{X1: float64(p.X), Y1: bottom, X2: float64(p.X + p.W), Y2: bottom}}
}

// ticks lays out the axes' ticks: a grid line and a label at each y tick, a
// label under each x tick.
func (c *Chart) ticks(xt, yt []view.Tick) {
	p := view.Plot()
	left, right, bottom := float64(p.X), float64(p.X+p.W), float64(p.Y+p.H)
	for _, t := range yt {
		c.Grid = append(c.Grid, Seg{X1: left, Y1: t.Pos, X2: right, Y2: t.Pos})
		c.Labels = append(c.Labels, Label{X: left - labelGap, Y: t.Pos + labelDrop, Anchor: "end", Text: t.Text})
	}
	for _, t := range xt {
		c.Labels = append(c.Labels, Label{X: t.Pos, Y: bottom + xLabelDrop, Anchor: "middle", Text: t.Text})
	}
}

// empty says why there is nothing to plot, in the middle of the plot.
func (c *Chart) empty(text string) {
	p := view.Plot()
	c.Empty = &Label{X: float64(p.X) + float64(p.W)/2, Y: float64(p.Y) + float64(p.H)/2 + labelDrop, Anchor: "middle", Text: text}
}

// chartMetric is one choice of the over-time chart: the picker's value and label,
// and the series it plots.
type chartMetric struct {
	Option
	metric view.Metric
}

// chartMetrics are the over-time chart's choices in picker order. This is the one
// list: the page builds its picker from Meta.Charts, Set("chart") accepts its
// values and Settings.Chart reports one.
func chartMetrics() []chartMetric {
	return []chartMetric{
		{Option{"throughput", "throughput"}, view.Throughput},
		{Option{"busy", "busy vCPUs"}, view.BusyVCPUs},
		{Option{"ipis", "IPIs/s"}, view.IPIRate},
		{Option{"halts", "halt VM exits/s"}, view.HaltRate},
	}
}

// chartOptions are the chart picker's options.
func chartOptions() []Option {
	var out []Option
	for _, c := range chartMetrics() {
		out = append(out, c.Option)
	}
	return out
}

// chartOf returns the choice that plots mt.
func chartOf(mt view.Metric) chartMetric {
	cs := chartMetrics()
	if i := slices.IndexFunc(cs, func(c chartMetric) bool { return c.metric == mt }); i >= 0 {
		return cs[i]
	}
	panic("playground.chartOf: no chart choice plots metric " + strconv.Itoa(int(mt)))
}

// setChart chooses the over-time chart's metric by its picker value.
func (m *Model) setChart(value string) string {
	cs := chartMetrics()
	if i := slices.IndexFunc(cs, func(c chartMetric) bool { return c.Value == value }); i >= 0 {
		m.chart = cs[i].metric
		return ""
	}
	values := make([]string, len(cs))
	for i, c := range cs {
		values[i] = c.Value
	}
	return fmt.Sprintf("chart: %q is not one of %s", value, strings.Join(values, ", "))
}

func yFormat(mt view.Metric) func(float64) string {
	if mt == view.BusyVCPUs {
		return func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	}
	return view.Compact
}

// timeChart plots the chosen metric over simulated time for every arm.
func (m *Model) timeChart() Chart {
	c := newChart(chartOf(m.chart).Label + " over simulated time")
	end := m.arms[0].series.EndNs()
	if end <= 0 || len(m.arms[0].series.Buckets) < 2 {
		c.empty("press play: the chart fills as simulated time passes")
		return c
	}
	var vals [][]float64
	var all []float64
	for _, a := range m.arms {
		v := a.series.Values(nil, m.chart)
		// The last bucket is partial and noisy; drop it while there are others.
		if len(v) > 2 {
			v = v[:len(v)-1]
		}
		vals = append(vals, v)
		all = append(all, v...)
	}
	// Scale to the 98th percentile, not the maximum: one burst (all clients
	// starting at once) would otherwise flatten the rest of the run. Clipped
	// spikes run off the top.
	slices.Sort(all)
	ymax := all[min(len(all)-1, len(all)*98/100)] * 1.15
	if m.chart == view.BusyVCPUs {
		ymax = max(ymax, float64(m.arms[0].Sc.Machine.VCPUs))
	}
	w := float64(m.arms[0].series.WidthNs) / 1e6 // bucket width in ms
	xmax := 0.0
	for _, v := range vals {
		xmax = max(xmax, float64(len(v))*w)
	}
	sc := view.Scale{X0: 0, X1: xmax, Y1: view.NiceCeil(ymax)}
	for i, v := range vals {
		xs := make([]float64, len(v))
		for j := range v {
			xs[j] = (float64(j) + 0.5) * w
		}
		c.Lines = append(c.Lines, Line{Name: m.arms[i].Name, D: view.LinePath(xs, v, sc), Color: m.armColor(i)})
	}
	c.ticks(view.XTicks(sc, []float64{0, xmax / 2, xmax}, func(ms float64) string { return view.Duration(ms * 1e6) }),
		view.YTicks(sc, yFormat(m.chart)))
	return c
}

// sweepChart plots throughput against clients for every arm, with the published
// numbers of the matching arm as rings.
func (m *Model) sweepChart() Chart {
	c := newChart("sweep: throughput vs clients")
	c.Button = "run sweep"
	sw := m.sweep
	pub := m.publishedPoints()
	xmax, ymax := 1.0, 0.0
	if sw != nil {
		for _, n := range sw.Clients {
			xmax = max(xmax, float64(n))
		}
		for _, row := range sw.Tput {
			for _, v := range row {
				if !math.IsNaN(v) {
					ymax = max(ymax, v)
				}
			}
		}
	}
	for _, p := range pub {
		xmax, ymax = max(xmax, p.clients), max(ymax, p.tput)
	}
	if !m.usesClients(m.setup.base) {
		c.Button = ""
		c.empty("this workload has no client count to sweep")
		return c
	}
	if sw == nil && len(pub) == 0 {
		c.empty("run the scenario across client counts for every arm")
		return c
	}
	sc := view.Scale{X0: 0, X1: xmax * 1.05, Y1: view.NiceCeil(ymax)}
	names := m.armNames()
	for i, name := range names {
		ln := Line{Name: name, Color: m.armColor(i)}
		if sw != nil && i < len(sw.Tput) {
			var xs, ys []float64
			for j, v := range sw.Tput[i] {
				if !math.IsNaN(v) {
					xs, ys = append(xs, float64(sw.Clients[j])), append(ys, v)
				}
			}
			ln.D = view.LinePath(xs, ys, sc)
		}
		for _, p := range pub {
			if p.arm == name || len(names) == 1 {
				x, y := sc.At(p.clients, p.tput)
				ln.Dots = append(ln.Dots, Dot{X: x, Y: y, Title: fmt.Sprintf("published %s, %g clients: %s/s", p.arm, p.clients, view.Compact(p.tput))})
			}
		}
		c.Lines = append(c.Lines, ln)
	}
	var xt []float64
	if sw != nil {
		for _, n := range sw.Clients {
			xt = append(xt, float64(n))
		}
	} else {
		for _, p := range pub {
			xt = append(xt, p.clients)
		}
	}
	c.ticks(view.XTicks(sc, dedupe(xt), func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }),
		view.YTicks(sc, view.Compact))
	switch {
	case sw == nil:
		c.Note = "rings: published numbers"
	case sw.Err != "":
		c.Note = "sweep failed: " + sw.Err
	case !sw.Done():
		done, total := sw.Progress()
		c.Note = fmt.Sprintf("sweeping %d/%d · each point %s after %s warm-up", done, total,
			view.Duration(float64(sw.DurationMs)*1e6), view.Duration(float64(sw.WarmupMs)*1e6))
		c.Button = ""
	default:
		c.Note = fmt.Sprintf("each point %s after %s warm-up · rings: published", view.Duration(float64(sw.DurationMs)*1e6),
			view.Duration(float64(sw.WarmupMs)*1e6))
	}
	return c
}

func dedupe(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		seen := false
		for _, y := range out {
			seen = seen || y == x
		}
		if !seen {
			out = append(out, x)
		}
	}
	return out
}

func (m *Model) armNames() []string {
	var out []string
	for _, a := range m.arms {
		out = append(out, a.Name)
	}
	return out
}

type pubPoint struct {
	arm           string
	clients, tput float64
}

// publishedPoints are the scenario's published throughputs by client count.
func (m *Model) publishedPoints() []pubPoint {
	var out []pubPoint
	for _, p := range m.setup.base.Published {
		if p.Relative {
			continue // a change between arms, not a throughput to plot
		}
		v, ok := p.Values["throughput_per_s"]
		cs, ok2 := p.Set["workload.clients"]
		if !ok || !ok2 {
			continue
		}
		n, err := strconv.ParseFloat(cs, 64)
		if err != nil {
			continue
		}
		out = append(out, pubPoint{p.Arm, n, v})
	}
	return out
}

// histChart draws the engine's latency histogram of the window the cards show
// (share of requests per logarithmic bin), one bar per arm in each bin.
func (m *Model) histChart() Chart {
	c := newChart("latency (log scale)")
	lo, hi := view.HistBins, -1
	for _, a := range m.arms {
		for i, n := range a.latency.Counts {
			if n > 0 {
				lo, hi = min(lo, i), max(hi, i)
			}
		}
	}
	if hi < 0 {
		c.empty("no requests completed in this window yet")
		return c
	}
	lo, hi = max(lo-1, 0), min(hi+1, view.HistBins-1)
	share := func(a *Arm, i int) float64 { return float64(a.latency.Counts[i]) / float64(max(a.latency.N, 1)) }
	ymax := 0.0
	for _, a := range m.arms {
		for i := lo; i <= hi; i++ {
			ymax = max(ymax, share(a, i))
		}
	}
	sc := view.Scale{X0: float64(lo), X1: float64(hi + 1), Y1: view.NiceCeil(ymax)}
	edge := func(i int) float64 { return view.HistEdge(i) * 1e3 } // ns
	n := len(m.arms)
	for i := lo; i <= hi; i++ {
		for ai, a := range m.arms {
			frac := share(a, i)
			x0, y0 := sc.At(float64(i)+float64(ai)/float64(n)*0.9+0.05, frac)
			x1, yb := sc.At(float64(i)+float64(ai+1)/float64(n)*0.9+0.05, 0)
			c.Bars = append(c.Bars, Bar{X: x0, Y: y0, W: x1 - x0, H: yb - y0, Color: m.armColor(ai),
				Title: fmt.Sprintf("%s%s to %s: %s", armPrefix(n, ai), view.Duration(edge(i)), view.Duration(edge(i+1)), view.Percent(frac))})
		}
	}
	var xt []float64
	for i := (lo + view.BinsPerDecade - 1) / view.BinsPerDecade * view.BinsPerDecade; i <= hi+1; i += view.BinsPerDecade {
		xt = append(xt, float64(i))
	}
	c.ticks(view.XTicks(sc, xt, func(v float64) string { return view.Duration(edge(int(v))) }), view.YTicks(sc, view.Percent))
	c.Note = "share of requests by latency in the measured window"
	if m.arms[0].inWarmup {
		c.Note = "share of requests by latency during the warm-up"
	}
	return c
}

func armPrefix(n, i int) string {
	if n <= 1 {
		return ""
	}
	return string(rune('A'+i)) + ": "
}
