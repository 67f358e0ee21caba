package preview

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"strings"

	"golang.org/x/image/font"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/view"
)

// The link-preview card: 1200x630, the size OpenGraph and Twitter's large card
// ask for. Everything on it must still read when a chat shows it 400 pixels
// wide, a third of the size: the smallest text that matters is 18-20 px (6-7 px
// there), the headline numbers 36 px and more. It is drawn in the page's
// palette (view.Dark) with the page's tiles, arcs and metric cards.
const (
	CardW = 1200
	CardH = 630
)

// margin is the card's outer margin, in pixels.
const margin = 30.0

// cardLayout is where the card's parts go, top to bottom: the title, the
// stage, the legend, the metric boxes and the footer. The stage gives up room
// for the boxes' evidence lines (published figures, the calibration's verdict)
// when a metric has any.
type cardLayout struct {
	stageTop, stageH float64
	legendY          float64
	boxesTop, boxesH float64
}

func layoutFor(evidence bool) cardLayout {
	if evidence {
		return cardLayout{stageTop: 80, stageH: 282, legendY: 386, boxesTop: 400, boxesH: 188}
	}
	return cardLayout{stageTop: 80, stageH: 334, legendY: 438, boxesTop: 456, boxesH: 130}
}

// PNG draws p's card (in the dark theme, the page's default) and encodes it.
// A policy that did not compile gets a card that says so (drawRefused).
func (p *Preview) PNG() ([]byte, error) {
	if len(p.Arms) == 0 && p.PolicyError == nil {
		return nil, fmt.Errorf("preview: no arms to draw")
	}
	f, err := loadFonts()
	if err != nil {
		return nil, err
	}
	pal := view.Dark()
	c := newCanvas(CardW, CardH, pal.Page)
	if p.PolicyError != nil {
		if err := drawRefused(c, f, &pal, p); err != nil {
			return nil, err
		}
		return encode(c)
	}
	ms := p.Headline()
	evidence := false
	for _, m := range ms {
		evidence = evidence || m.Published != "" || m.Trust != nil
	}
	l := layoutFor(evidence)
	drawHeader(c, f, &pal, p)
	panes := drawStage(c, f, &pal, p, l)
	drawEjections(c, f, &pal, p, panes)
	drawLegend(c, f, &pal, l.legendY)
	drawBoxes(c, f, &pal, ms, l, evidence)
	foot := "schedplay: model results, not measurements · " + p.Coverage() + " · seed " + fmt.Sprint(p.Seed) + " · tiles at t = " + view.Seconds(p.AtMs)
	c.textAt(f.face(false, 18), fitText(f.face(false, 18), foot, CardW-2*margin), margin, CardH-12, pal.TextDim)
	return encode(c)
}

// encode paints the card and encodes it as PNG.
func encode(c *canvas) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.finish()); err != nil {
		return nil, fmt.Errorf("preview: encoding the card: %w", err)
	}
	return buf.Bytes(), nil
}

// drawHeader writes the title (the scenario's name, its own policy's name and
// the knobs compared) after the brand mark, and what every arm runs.
func drawHeader(c *canvas, f *fonts, pal *view.Palette, p *Preview) {
	// The brand mark: four small tiles in the state colours.
	for i, col := range []view.Color{pal.Running, pal.Spinning, pal.Halted, pal.IRQ} {
		c.mesh.FillRoundRect(rect(margin+float64(i%2)*17, 27+float64(i/2)*17, 14, 14), 3, col)
	}
	small := f.face(false, 22)
	m := p.Machine()
	mx := CardW - margin - width(small, m)
	c.textAt(small, m, mx, 56, pal.TextDim)
	name := p.Name
	if name == "" {
		name = p.Machine()
	}
	left := margin + 48
	big := f.face(true, 40)
	room := mx - 24 - left
	policy := p.Policy != "" && p.PolicyError == nil // a refused policy's card names it below
	if policy {
		// The policy's name gets at least half the line.
		room = max(room-width(f.face(false, 26), "  custom policy: "+p.Policy), room/2)
	}
	name = fitText(big, name, room)
	x := c.textAt(big, name, left, 58, pal.Text)
	note := f.face(false, 26)
	if policy {
		x = c.textAt(note, "  custom policy: ", x, 58, pal.TextDim)
		x = c.textAt(note, fitText(note, p.Policy, mx-24-x), x, 58, pal.Text)
	}
	if len(p.Compared) > 0 && mx-24-x > 100 {
		paths := make([]string, len(p.Compared))
		for i, k := range p.Compared {
			paths[i] = k.Path
		}
		knobs := "  compares " + strings.Join(paths, ", ")
		if policy {
			knobs = " · compares " + strings.Join(paths, ", ")
		}
		// Beside the policy's name only whole: the panes' titles say it too.
		if !policy || width(note, knobs) <= mx-24-x {
			c.textAt(note, fitText(note, knobs, mx-24-x), x, 58, pal.TextDim)
		}
	}
}

// drawStage draws each arm's tiles in its own pane, as the page lays them out
// (view.Panes, view.LayoutGrid) and draws them (view.DrawTile,
// view.DrawFlight), with the IPIs in flight caught mid-way. It returns the
// arms' panes.
func drawStage(c *canvas, f *fonts, pal *view.Palette, p *Preview, l cardLayout) []view.Rect {
	stage := rect(margin-14, l.stageTop, CardW-2*margin+28, l.stageH)
	c.mesh.FillRoundRect(stage, 12, pal.Stage)
	n := len(p.Arms)
	const titleH, pad = 40, 14
	title := float32(0)
	if n > 1 {
		title = titleH
	}
	panes := view.Panes(stage, n, len(p.Arms[0].Tiles), title, pad, 1)
	var queue []view.Chip
	for i := range p.Arms {
		a := &p.Arms[i]
		pane := panes[min(i, len(panes)-1)]
		if n > 1 {
			// A faint panel behind each arm groups its tiles, as on the page.
			c.mesh.FillRoundRect(pane, 8, view.Mix(pal.Stage, pal.Text, 0.035))
			face := f.face(true, 24)
			col := pal.ArmA
			if i == 1 {
				col = pal.ArmB
			}
			x, y := float64(pane.X)+12, float64(pane.Y)+30
			tx := c.textAt(face, string(rune('A'+i))+" · ", x, y, col)
			c.textAt(face, fitText(face, p.ArmLabel(i), float64(pane.X+pane.W)-12-tx), tx, y, pal.Text)
		}
		area := view.GridArea(pane, title)
		area = view.Rect{X: area.X + 12, Y: area.Y + 4, W: area.W - 24, H: area.H - 14}
		g := view.LayoutGrid(len(a.Tiles), area, 1)
		for cpu, t := range a.Tiles {
			in := tileInput(cpu, t, a.Gauge, queue)
			queue = in.Queue
			view.DrawTile(&c.mesh, pal, g.Tiles[cpu], in, i, nil)
		}
		width := max(g.Size*0.05, 2)
		for _, ipi := range a.IPIs {
			if ipi.From < 0 || ipi.From >= len(g.Tiles) || ipi.To < 0 || ipi.To >= len(g.Tiles) || ipi.From == ipi.To {
				continue
			}
			view.DrawFlight(&c.mesh, pal, g.Tiles[ipi.From], g.Tiles[ipi.To],
				view.FlightLook{Kind: ipiKind(ipi.Kind), Progress: 0.7, Width: width})
		}
	}
	return panes
}

// drawLegend explains the tiles in one line, with the same swatches.
func drawLegend(c *canvas, f *fonts, pal *view.Palette, y float64) {
	face := f.face(false, 17)
	x := margin
	item := func(label string, swatch func(x float64)) {
		swatch(x)
		x = c.textAt(face, label, x+24, y, pal.TextDim) + 22
	}
	sq := func(st engine.CPUState) func(float64) {
		s := view.StyleFor(pal, st)
		return func(x float64) {
			r := rect(x, y-14, 16, 16)
			c.mesh.FillRoundRect(r, 3, s.Fill)
			if s.Edge != s.Fill {
				c.mesh.StrokeRoundRect(r.Inset(1), 2, 2, s.Edge)
			}
		}
	}
	line := func(k engine.IPIKind) func(float64) {
		return func(x float64) {
			pts := []view.Point{pt(x, y-6), pt(x+18, y-6)}
			if k == engine.IPIPull {
				c.mesh.StrokeDashed(pts, 3, 6, 4, pal.IPIColor(k))
				return
			}
			c.mesh.StrokePolyline(pts, 3, pal.IPIColor(k))
		}
	}
	item("running", sq(engine.CPURunning))
	item("spinning (ring: window / cap)", sq(engine.CPUSpinning))
	item("halted (VM exit)", sq(engine.CPUHalted))
	item("in interrupt", sq(engine.CPUIRQ))
	item("wakeup IPI", line(engine.IPIWakeup))
	item("pull request", line(engine.IPIPull))
	item("donation", line(engine.IPIDonate))
	item("waker", func(x float64) {
		c.mesh.FillDiamond(float32(x+8), float32(y-7), 9, pal.WakerEdge)
		c.mesh.FillDiamond(float32(x+8), float32(y-7), 6.5, pal.Waker)
	})
}

// drawBoxes draws the headline metrics as the page's cards: the label and the
// change on top, then A → B, then the evidence: the published figures and the
// calibration's verdict with its mark.
func drawBoxes(c *canvas, f *fonts, pal *view.Palette, ms []Metric, l cardLayout, evidence bool) {
	const gap, pad = 14.0, 16.0
	w := (CardW - 2*margin - gap*float64(len(ms)-1)) / float64(len(ms))
	for i, m := range ms {
		x := margin + float64(i)*(w+gap)
		box := rect(x, l.boxesTop, w, l.boxesH)
		c.mesh.FillRoundRect(box, 10, pal.Surface)
		c.mesh.StrokeRoundRect(box.Inset(0.75), 10, 1.5, pal.Border)
		top := l.boxesTop
		chg := f.face(true, 24)
		// The label shrinks a little before it is cut: "idle while overloaded"
		// beside its change is just too wide at 21 px.
		room := w - 2*pad - 8 - width(chg, m.Change)
		label := f.face(false, 21)
		for size := 20.0; size >= 16 && width(label, m.Def.Label) > room; size-- {
			label = f.face(false, size)
		}
		if m.Change != "" {
			c.textAt(chg, m.Change, x+w-pad-width(chg, m.Change), top+34, pal.VerdictColor(m.Verdict))
		}
		c.textAt(label, fitText(label, m.Def.Label, room), x+pad, top+34, pal.TextDim)
		// The value: A → B, as large as fits, A dimmed as on the page.
		type part struct {
			s   string
			col view.Color
		}
		parts := []part{{s: m.A, col: pal.Text}}
		if m.B != "" {
			parts = []part{{s: m.A, col: pal.TextDim}, {s: " → ", col: pal.TextDim}, {s: m.B, col: pal.Text}}
		}
		size := 44.0
		for ; size > 22; size -= 2 {
			total := 0.0
			for _, pt := range parts {
				total += width(f.face(true, size), pt.s)
			}
			if total <= w-2*pad {
				break
			}
		}
		valueY := top + 84
		vx := x + pad
		for _, pt := range parts {
			vx = c.textAt(f.face(true, size), pt.s, vx, valueY, pt.col)
		}
		if evidence {
			drawEvidence(c, f, pal, m.Evidence, x+pad, valueY, w-2*pad)
		}
	}
}

// drawEvidence writes a box's evidence lines below its value at valueY: the
// published figures; the verdict, its mark and words; and the numbers it
// compares, the model's median over the calibration's runs against the
// published value, each shrunk (to 16 px) or shortened until it fits.
func drawEvidence(c *canvas, f *fonts, pal *view.Palette, e docs.Evidence, x, valueY, w float64) {
	line := "published " + e.Published
	if e.Published == "" {
		// Said, so that a box beside others with published figures is not
		// read as one the source agrees with.
		line = "nothing published"
	}
	face, line := fitFirst(f, []string{line}, w, 19, 16)
	c.textAt(face, line, x, valueY+36, pal.TextDim)
	if e.Trust == nil {
		return
	}
	t := e.Trust
	const badge = 22.0
	y := valueY + 70
	drawMark(c, pal, t.Class, x+badge/2, y-7, badge/2)
	verdict := f.face(true, 20)
	c.textAt(verdict, fitText(verdict, t.Short, w-badge-10), x+badge+10, y, pal.Text)
	// The model's number here is the calibration's median, not this run's.
	face, s := fitFirst(f, []string{"model median " + t.Model + ", published " + t.Published,
		"median " + t.Model + ", published " + t.Published, "median " + t.Model + " vs " + t.Published}, w, 18, 16)
	c.textAt(face, s, x, y+30, pal.TextDim)
}

// fitFirst is the first of texts that fits w in a regular face of size down
// to smallest, in the largest such face; the last text, shortened, when none
// fits.
func fitFirst(f *fonts, texts []string, w, size, smallest float64) (font.Face, string) {
	for _, s := range texts {
		for sz := size; sz >= smallest; sz-- {
			if face := f.face(false, sz); width(face, s) <= w {
				return face, s
			}
		}
	}
	face := f.face(false, smallest)
	return face, fitText(face, texts[len(texts)-1], w)
}

// drawMark draws a verdict's mark as a badge centred at (cx, cy): a tick for
// reproduced, a cross for not reproduced, a wave for the direction only, a
// ring for a fitted figure. The Go fonts have no tick or cross glyphs, and a
// shape reads at a third of the size where a glyph would not.
func drawMark(c *canvas, pal *view.Palette, class docs.Class, cx, cy, r float64) {
	m := &c.mesh
	ink := pal.Page
	switch class {
	case docs.Hit:
		m.FillCircle(float32(cx), float32(cy), float32(r), pal.Better)
		m.StrokePolyline([]view.Point{pt(cx-r*0.45, cy+r*0.02), pt(cx-r*0.1, cy+r*0.38), pt(cx+r*0.48, cy-r*0.35)}, float32(r*0.28), ink)
	case docs.Direction:
		m.FillCircle(float32(cx), float32(cy), float32(r), pal.Spinning)
		var wave []view.Point
		for k := 0; k <= 12; k++ {
			t := float64(k) / 12
			wave = append(wave, pt(cx-r*0.5+t*r, cy+math.Sin(t*2*math.Pi)*r*0.22))
		}
		m.StrokePolyline(wave, float32(r*0.24), ink)
	case docs.Fitted:
		m.StrokeArc(float32(cx), float32(cy), float32(r*0.8), 0, 2*math.Pi, float32(r*0.3), pal.TextDim)
	default:
		m.FillCircle(float32(cx), float32(cy), float32(r), pal.Worse)
		d := r * 0.36
		m.StrokePolyline([]view.Point{pt(cx-d, cy-d), pt(cx+d, cy+d)}, float32(r*0.26), ink)
		m.StrokePolyline([]view.Point{pt(cx-d, cy+d), pt(cx+d, cy-d)}, float32(r*0.26), ink)
	}
}
