package preview

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	"schedplay/view"
)

// The chart for READMEs and docs that cannot embed the page: throughput over
// simulated time for each arm, the measured window shaded, the headline above.
// Colours are presentation attributes, not style: the server's
// Content-Security-Policy (style-src 'self') would drop inline styles when the
// SVG is opened on its own.
const (
	SVGW = 720
	SVGH = 360

	plotX0, plotX1 = 64.0, 700.0
	plotY0, plotY1 = 104.0, 300.0
)

const svgFont = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"

// SVG draws p's throughput chart in palette pal. Its geometry is the page's
// charts' (view.Scale, view.LinePath, view.YTicks), in a larger box.
func (p *Preview) SVG(pal view.Palette) []byte {
	var b bytes.Buffer
	esc := func(s string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(s)) // never fails on a strings.Builder
		return e.String()
	}
	hex := func(c view.Color) string { return c.CSS() }
	title := p.Title()
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s" font-family="%s">`+"\n",
		SVGW, SVGH, SVGW, SVGH, esc(title+". "+p.Description()), svgFont)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(title))
	fmt.Fprintf(&b, `<rect x="0.5" y="0.5" width="%d" height="%d" rx="10" fill="%s" stroke="%s"/>`+"\n", SVGW-1, SVGH-1, hex(pal.Stage), hex(pal.Grid))
	fmt.Fprintf(&b, `<text x="20" y="34" font-size="18" font-weight="600" fill="%s">%s</text>`+"\n", hex(pal.Text), esc(view.Clip(title, 70)))

	if e := p.PolicyError; e != nil {
		// Nothing ran: the chart says why instead.
		fmt.Fprintf(&b, `<text x="20" y="72" font-size="16" font-weight="600" fill="%s">The custom policy does not compile</text>`+"\n", hex(pal.Worse))
		fmt.Fprintf(&b, `<text x="20" y="100" font-size="14" fill="%s">%s</text>`+"\n", hex(pal.Text), esc(view.Clip(e.Message, 90)))
		if e.Code != "" {
			fmt.Fprintf(&b, `<text x="20" y="132" font-size="14" font-family="ui-monospace, Menlo, Consolas, monospace" fill="%s" xml:space="preserve">%d | %s</text>`+"\n",
				hex(pal.TextDim), e.Line, esc(view.Clip(e.Code, 80)))
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end" fill="%s">%s</text>`+"\n", SVGW-20, 352, hex(pal.TextDim),
			esc("schedplay model: nothing ran · seed "+strconv.FormatUint(p.Seed, 10)))
		b.WriteString("</svg>\n")
		return b.Bytes()
	}

	// The headline: the first two metrics, A → B and the change, in one text
	// element so the viewer lays the parts out (SVG text has no measure).
	fmt.Fprintf(&b, `<text x="20" y="62" font-size="14" fill="%s">`, hex(pal.Text))
	ms := p.Headline()
	for i, m := range ms[:min(2, len(ms))] {
		if i > 0 {
			fmt.Fprintf(&b, `<tspan fill="%s">  ·  </tspan>`, hex(pal.TextDim))
		}
		s := m.Def.Label + " " + m.A
		if m.B != "" {
			s += " → " + m.B
		}
		b.WriteString(esc(s))
		if m.Change != "" {
			fmt.Fprintf(&b, ` <tspan font-weight="600" fill="%s">%s</tspan>`, hex(pal.VerdictColor(m.Verdict)), esc(m.Change))
		}
	}
	b.WriteString("</text>\n")

	endMs := p.ReachedMs
	top := 0.0
	for _, a := range p.Arms {
		for _, v := range a.Series {
			top = max(top, v)
		}
	}
	yStep := view.NiceStep(top / 4)
	box := view.Rect{X: plotX0, Y: plotY0, W: plotX1 - plotX0, H: plotY1 - plotY0}
	sc := view.Scale{X0: 0, X1: max(endMs, 1e-9), Y1: max(math.Ceil(top/yStep), 1) * yStep, Box: box}

	// The measured window, then the grid and the axes' labels.
	x0, _ := sc.At(p.FromMs, 0)
	x1, _ := sc.At(min(p.ToMs, endMs), 0)
	fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="%s" fill-opacity="0.35"/>`+"\n",
		x0, plotY0, max(x1-x0, 0), plotY1-plotY0, hex(pal.Grid))
	fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="11" fill="%s">measured</text>`+"\n", x0+4, plotY1-6, hex(pal.TextDim))
	for _, v := range view.Steps(sc.Y1, yStep) {
		_, y := sc.At(0, v)
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1"/>`+"\n", plotX0, plotX1, y, y, hex(pal.Grid))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" font-size="12" text-anchor="end" fill="%s">%s</text>`+"\n", plotX0-8, y+4, hex(pal.TextDim), view.Compact(v))
	}
	for _, t := range view.XTicks(sc, view.Steps(endMs, view.NiceStep(endMs/6)), view.Seconds) {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="12" text-anchor="middle" fill="%s">%s</text>`+"\n", t.Pos, plotY1+18, hex(pal.TextDim), t.Text)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="12" fill="%s">throughput /s over simulated time (model)</text>`+"\n", plotX0, plotY0-10, hex(pal.TextDim))

	// One line per arm, through the middle of each bucket.
	for i, a := range p.Arms {
		col := pal.Running
		if len(p.Arms) == 2 {
			col = pal.ArmA
			if i == 1 {
				col = pal.ArmB
			}
		}
		var xs, ys []float64
		for j, v := range a.Series {
			start := float64(j) * a.SeriesMs
			xs = append(xs, (start+min(start+a.SeriesMs, endMs))/2)
			ys = append(ys, v)
		}
		if d := view.LinePath(xs, ys, sc); d != "" {
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round"/>`+"\n", d, hex(col))
		}
		// The legend entry.
		lx := plotX0 + float64(i)*260
		name := p.ArmLabel(i)
		if len(p.Arms) == 2 {
			name = string(rune('A'+i)) + " · " + name
		}
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%d" y2="%d" stroke="%s" stroke-width="3" stroke-linecap="round"/>`, lx, lx+18, 331, 331, hex(col))
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" font-size="13" fill="%s">%s</text>`+"\n", lx+26, 335, hex(pal.Text), esc(view.Clip(name, 30)))
	}
	foot := "schedplay model, not measurements · seed " + strconv.FormatUint(p.Seed, 10) + " · " + p.Coverage()
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end" fill="%s">%s</text>`+"\n", SVGW-20, 352, hex(pal.TextDim), esc(foot))
	b.WriteString("</svg>\n")
	return b.Bytes()
}
