package preview

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strings"
)

// The link-preview card: 1200x630, the size OpenGraph and Twitter's large card
// ask for. Everything on it must still read when a chat shows it 400 pixels
// wide, a third of the size: the smallest text that matters is 20 px (7 px
// there), the headline numbers 36 px and more.
const (
	CardW = 1200
	CardH = 630
)

// Card layout, in pixels.
const (
	margin   = 40.0
	stageTop = 128.0
	stageH   = 300.0
	cardsTop = 474.0
	cardsH   = 112.0
)

// PNG draws p's card (in the dark theme, the page's default) and encodes it.
func (p *Preview) PNG() ([]byte, error) {
	if len(p.Arms) == 0 {
		return nil, fmt.Errorf("preview: no arms to draw")
	}
	f, err := loadFonts()
	if err != nil {
		return nil, err
	}
	th := Dark()
	c := newCanvas(CardW, CardH, th.Page)
	drawHeader(c, f, &th, p)
	drawStage(c, f, &th, p)
	drawLegend(c, f, &th, stageTop+stageH+22)
	drawCards(c, f, &th, p)
	foot := "model results · " + p.Coverage() + " · seed " + fmt.Sprint(p.Seed) + " · tiles at t = " + seconds(p.AtMs)
	c.text(f.face(false, 18), fitText(f.face(false, 18), foot, CardW-2*margin), margin, CardH-16, th.Dim)
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.img); err != nil {
		return nil, fmt.Errorf("preview: encoding the card: %w", err)
	}
	return buf.Bytes(), nil
}

// drawHeader writes the brand, what every arm runs, and the title: the scenario's
// name and the knobs compared.
func drawHeader(c *canvas, f *fonts, th *Theme, p *Preview) {
	// The brand mark: four small tiles in the state colours.
	for i, col := range []color.RGBA{th.Running, th.Spinning, th.Halted, th.IRQ} {
		c.roundRect(margin+float64(i%2)*16, 28+float64(i/2)*16, 13, 13, 3, col)
	}
	brand := f.face(true, 26)
	c.text(brand, "schedplay", margin+42, 52, th.Text)
	small := f.face(false, 22)
	m := p.Machine()
	c.text(small, m, CardW-margin-width(small, m), 52, th.Dim)

	name := p.Name
	if name == "" {
		name = p.Machine()
	}
	big := f.face(true, 40)
	name = fitText(big, name, CardW-2*margin)
	x := c.text(big, name, margin, 106, th.Text)
	if len(p.Compared) > 0 {
		paths := make([]string, len(p.Compared))
		for i, k := range p.Compared {
			paths[i] = k.Path
		}
		knobs := f.face(false, 28)
		s := fitText(knobs, "  compares "+strings.Join(paths, ", "), CardW-margin-x)
		c.text(knobs, s, x, 106, th.Dim)
	}
}

// drawStage draws each arm's tiles in its own pane, side by side, with the IPIs
// in flight as arcs.
func drawStage(c *canvas, f *fonts, th *Theme, p *Preview) {
	c.roundRect(margin-16, stageTop, CardW-2*margin+32, stageH, 12, th.Stage)
	n := len(p.Arms)
	const gap, titleH = 32.0, 40.0
	paneW := (CardW - 2*margin - gap*float64(n-1)) / float64(n)
	for i := range p.Arms {
		a := &p.Arms[i]
		x := margin + float64(i)*(paneW+gap)
		title := f.face(true, 24)
		tx := x
		if n == 2 {
			col := th.ArmA
			if i == 1 {
				col = th.ArmB
			}
			tx = c.text(title, string(rune('A'+i))+" · ", x, stageTop+34, col)
		}
		c.text(title, fitText(title, p.ArmLabel(i), x+paneW-tx), tx, stageTop+34, th.Text)
		drawGrid(c, f, th, a, x, stageTop+titleH+6, paneW, stageH-titleH-20)
	}
}

// drawGrid lays out an arm's tiles in the area and draws them: the column count
// that makes the tiles largest, a gap of a tenth of a tile, centred.
func drawGrid(c *canvas, f *fonts, th *Theme, a *Arm, x, y, w, h float64) {
	n := len(a.Tiles)
	if n == 0 {
		return
	}
	best, cols := 0.0, 1
	for k := 1; k <= n; k++ {
		rows := (n + k - 1) / k
		s := min(w/(float64(k)+0.1*float64(k-1)), h/(float64(rows)+0.1*float64(rows-1)))
		// A full last row reads better than slightly larger tiles with holes.
		score := s * (1 - 0.1*min(float64(rows*k-n)/float64(k), 1))
		if score > best {
			best, cols = score, k
		}
	}
	rows := (n + cols - 1) / cols
	s := math.Floor(min(w/(float64(cols)+0.1*float64(cols-1)), h/(float64(rows)+0.1*float64(rows-1)), 110))
	g := math.Round(max(s*0.1, 2))
	gw, gh := float64(cols)*s+float64(cols-1)*g, float64(rows)*s+float64(rows-1)*g
	x0, y0 := math.Round(x+(w-gw)/2), math.Round(y+(h-gh)/2)
	centre := func(cpu int) pt {
		return pt{x0 + float64(cpu%cols)*(s+g) + s/2, y0 + float64(cpu/cols)*(s+g) + s/2}
	}
	for cpu, t := range a.Tiles {
		q := centre(cpu)
		drawTile(c, f, th, q.x-s/2, q.y-s/2, s, cpu, t, a.Gauge)
	}
	for _, ipi := range a.IPIs {
		if ipi.From < 0 || ipi.From >= n || ipi.To < 0 || ipi.To >= n || ipi.From == ipi.To {
			continue
		}
		from, to := centre(ipi.From), centre(ipi.To)
		// Bulge to the left of the direction of travel, as the page's arcs do.
		dx, dy := to.x-from.x, to.y-from.y
		ctl := pt{(from.x+to.x)/2 + dy*0.25, (from.y+to.y)/2 - dx*0.25}
		line := quad(from, ctl, to, 32)
		lw := max(s*0.07, 2.5)
		switch ipi.Kind {
		case "pull":
			c.dashed(line, lw, lw*3, lw*2, th.IPIPull)
		case "donate":
			c.stroke(line, lw, th.IPIDonate)
		default:
			c.stroke(line, lw, th.IPIWakeup)
		}
		head := line[len(line)*2/3]
		col := th.IPIWakeup
		switch ipi.Kind {
		case "pull":
			col = th.IPIPull
		case "donate":
			col = th.IPIDonate
		}
		c.circle(head.x, head.y, lw*1.6, col)
	}
}

// drawLegend explains the tiles in one line, with the same swatches.
func drawLegend(c *canvas, f *fonts, th *Theme, y float64) {
	face := f.face(false, 17)
	x := margin
	item := func(label string, swatch func(x float64)) {
		swatch(x)
		x = c.text(face, label, x+24, y, th.Dim) + 22
	}
	sq := func(fill, edge color.RGBA) func(float64) {
		return func(x float64) {
			c.roundRect(x, y-14, 16, 16, 3, fill)
			if edge != fill {
				c.strokeRoundRect(x, y-14, 16, 16, 3, 2, edge)
			}
		}
	}
	line := func(col color.RGBA, dashed bool) func(float64) {
		return func(x float64) {
			l := []pt{{x, y - 6}, {x + 18, y - 6}}
			if dashed {
				c.dashed(l, 3, 6, 4, col)
				return
			}
			c.stroke(l, 3, col)
		}
	}
	item("running", sq(th.Running, th.Running))
	item("spinning (ring: window / cap)", sq(th.SpinFill, th.Spinning))
	item("halted (VM exit)", sq(th.Halted, th.HaltedEdge))
	item("in interrupt", sq(th.IRQ, th.IRQ))
	item("wakeup IPI", line(th.IPIWakeup, false))
	item("pull request", line(th.IPIPull, true))
	item("donation", line(th.IPIDonate, false))
	item("waker", func(x float64) {
		c.fill(th.WakerEdge, orient([]pt{{x + 8, y - 16}, {x + 17, y - 7}, {x + 8, y + 2}, {x - 1, y - 7}}, false))
		c.fill(th.Waker, orient([]pt{{x + 8, y - 13}, {x + 14, y - 7}, {x + 8, y - 1}, {x + 2, y - 7}}, false))
	})
}

// drawCards draws the four headline metrics as the page's cards: the label and
// the change on top, then A → B.
func drawCards(c *canvas, f *fonts, th *Theme, p *Preview) {
	ms := p.Headline()
	const gap = 16.0
	w := (CardW - 2*margin - gap*float64(len(ms)-1)) / float64(len(ms))
	for i, m := range ms {
		x := margin + float64(i)*(w+gap)
		c.roundRect(x, cardsTop, w, cardsH, 10, th.Surface)
		c.strokeRoundRect(x, cardsTop, w, cardsH, 10, 1.5, th.Border)
		chg := f.face(true, 24)
		// The label shrinks a little before it is cut: "idle while overloaded"
		// beside its change is just too wide at 21 px.
		room := w - 40 - width(chg, m.Change)
		label := f.face(false, 21)
		for size := 20.0; size >= 17 && width(label, m.Label) > room; size-- {
			label = f.face(false, size)
		}
		if m.Change != "" {
			c.text(chg, m.Change, x+w-16-width(chg, m.Change), cardsTop+36, th.verdict(m.Verdict))
		}
		c.text(label, fitText(label, m.Label, room), x+16, cardsTop+36, th.Dim)
		// The value: A → B, as large as fits, A dimmed as on the page.
		parts := []struct {
			s   string
			col color.RGBA
		}{{m.A, th.Text}}
		if m.B != "" {
			parts = []struct {
				s   string
				col color.RGBA
			}{{m.A, th.Dim}, {" → ", th.Dim}, {m.B, th.Text}}
		}
		size := 44.0
		for ; size > 22; size -= 2 {
			total := 0.0
			for _, pt := range parts {
				total += width(f.face(true, size), pt.s)
			}
			if total <= w-32 {
				break
			}
		}
		vx := x + 16
		for _, pt := range parts {
			vx = c.text(f.face(true, size), pt.s, vx, cardsTop+cardsH-22, pt.col)
		}
	}
}
