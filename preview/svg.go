package preview

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
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

// SVG draws p's throughput chart in theme th.
func (p *Preview) SVG(th Theme) []byte {
	var b bytes.Buffer
	esc := func(s string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(s)) // never fails on a strings.Builder
		return e.String()
	}
	title := p.Title()
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s" font-family="%s">`+"\n",
		SVGW, SVGH, SVGW, SVGH, esc(title+". "+p.Description()), svgFont)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(title))
	fmt.Fprintf(&b, `<rect x="0.5" y="0.5" width="%d" height="%d" rx="10" fill="%s" stroke="%s"/>`+"\n", SVGW-1, SVGH-1, hex(th.Stage), hex(th.Grid))
	fmt.Fprintf(&b, `<text x="20" y="34" font-size="18" font-weight="600" fill="%s">%s</text>`+"\n", hex(th.Text), esc(clip(title, 70)))

	// The headline: the first two metrics, A → B and the change, in one text
	// element so the viewer lays the parts out (SVG text has no measure).
	fmt.Fprintf(&b, `<text x="20" y="62" font-size="14" fill="%s">`, hex(th.Text))
	for i, m := range p.Headline()[:2] {
		if i > 0 {
			fmt.Fprintf(&b, `<tspan fill="%s">  ·  </tspan>`, hex(th.Dim))
		}
		s := m.Label + " " + m.A
		if m.B != "" {
			s += " → " + m.B
		}
		b.WriteString(esc(s))
		if m.Change != "" {
			fmt.Fprintf(&b, ` <tspan font-weight="600" fill="%s">%s</tspan>`, hex(th.verdict(m.Verdict)), esc(m.Change))
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
	yStep := niceStep(top / 4)
	yMax := max(math.Ceil(top/yStep), 1) * yStep
	sx := func(ms float64) float64 { return plotX0 + (plotX1-plotX0)*ms/max(endMs, 1e-9) }
	sy := func(v float64) float64 { return plotY1 - (plotY1-plotY0)*v/yMax }

	// The measured window, then the grid and the axes' labels.
	fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="%s" fill-opacity="0.35"/>`+"\n",
		sx(p.FromMs), plotY0, max(sx(min(p.ToMs, endMs))-sx(p.FromMs), 0), plotY1-plotY0, hex(th.Grid))
	fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="11" fill="%s">measured</text>`+"\n", sx(p.FromMs)+4, plotY1-6, hex(th.Dim))
	for v := 0.0; v <= yMax+yStep/2; v += yStep {
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1"/>`+"\n", plotX0, plotX1, sy(v), sy(v), hex(th.Grid))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" font-size="12" text-anchor="end" fill="%s">%s</text>`+"\n", plotX0-8, sy(v)+4, hex(th.Dim), num(v))
	}
	xStep := niceStep(endMs / 6)
	for t := 0.0; t <= endMs+xStep/1e3; t += xStep {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="12" text-anchor="middle" fill="%s">%s</text>`+"\n", sx(t), plotY1+18, hex(th.Dim), seconds(t))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="12" fill="%s">throughput /s over simulated time</text>`+"\n", plotX0, plotY0-10, hex(th.Dim))

	// One line per arm, through the middle of each bucket.
	for i, a := range p.Arms {
		col := th.Running
		if len(p.Arms) == 2 {
			col = th.ArmA
			if i == 1 {
				col = th.ArmB
			}
		}
		var d strings.Builder
		for j, v := range a.Series {
			start := float64(j) * a.SeriesMs
			mid := (start + min(start+a.SeriesMs, endMs)) / 2
			cmd := 'L'
			if j == 0 {
				cmd = 'M'
			}
			fmt.Fprintf(&d, "%c%.1f %.1f", cmd, sx(mid), sy(v))
		}
		if d.Len() > 0 {
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round"/>`+"\n", d.String(), hex(col))
		}
		// The legend entry.
		lx := plotX0 + float64(i)*260
		name := p.ArmLabel(i)
		if len(p.Arms) == 2 {
			name = string(rune('A'+i)) + " · " + name
		}
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%d" y2="%d" stroke="%s" stroke-width="3" stroke-linecap="round"/>`, lx, lx+18, 331, 331, hex(col))
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" font-size="13" fill="%s">%s</text>`+"\n", lx+26, 335, hex(th.Text), esc(clip(name, 30)))
	}
	foot := "schedplay model · seed " + strconv.FormatUint(p.Seed, 10) + " · " + p.Coverage()
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end" fill="%s">%s</text>`+"\n", SVGW-20, 352, hex(th.Dim), esc(foot))
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// niceStep rounds a raw step up to 1, 2 or 5 times a power of ten (1 for 0).
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}
