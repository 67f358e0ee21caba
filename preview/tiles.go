package preview

import (
	"image/color"
	"math"
	"strconv"
)

// vCPU tiles as the playground draws them (view/tile.go): the state is told
// by fill, edge and an icon together, never by colour alone. Running is solid
// blue with its thread's chip; spinning is a dark fill with an orange edge and a
// ring gauge of the spin window against its cap; halted is grey with pause bars
// (a VM exit under KVM); waking is halted with a dashed sky-blue edge and a
// rising chevron; in an interrupt is reddish purple with a lightning bolt.
// Queued threads are chips along the lower edge (hollow while incoming; the waker
// a yellow diamond; kernel threads small and grey) with "+n" for those that do
// not fit.

// tileStyle is how a state looks.
type tileStyle struct {
	fill, edge, ink color.RGBA
	edgeW           float64 // in units of the tile's base edge width
	dashed          bool
	icon            byte // 'r' ring, 'p' pause, 'w' wake chevron, 'b' bolt, 0 none
}

func styleOf(th *Theme, state string) tileStyle {
	switch state {
	case "running":
		return tileStyle{fill: th.Running, edge: th.Running, ink: th.RunningInk, edgeW: 1}
	case "spinning":
		return tileStyle{fill: th.SpinFill, edge: th.Spinning, ink: th.SpinInk, edgeW: 1.6, icon: 'r'}
	case "waking":
		return tileStyle{fill: th.Halted, edge: th.Waking, ink: th.HaltInk, edgeW: 1.4, dashed: true, icon: 'w'}
	case "irq":
		return tileStyle{fill: th.IRQ, edge: th.IRQ, ink: th.IRQInk, edgeW: 1, icon: 'b'}
	}
	return tileStyle{fill: th.Halted, edge: th.HaltedEdge, ink: th.HaltInk, edgeW: 1, icon: 'p'}
}

// drawTile paints tile t of CPU cpu with its top-left corner at (x, y), s pixels
// square; gauge shows the spin window on halted tiles too.
func drawTile(c *canvas, f *fonts, th *Theme, x, y, s float64, cpu int, t Tile, gauge bool) {
	st := styleOf(th, t.State)
	pad := math.Round(max(s*0.1, 2))
	radius := min(max(s*0.1, 2), 8)
	edge := max(s*0.035, 1.2)
	c.roundRect(x, y, s, s, radius, st.fill)
	ew := edge * st.edgeW
	switch {
	case st.dashed:
		outline := roundRect(x+ew/2, y+ew/2, s-ew, s-ew, radius-ew/2)
		c.dashed(append(outline, outline[0]), ew, ew*2.5, ew*1.8, st.edge)
	case st.edge != st.fill:
		c.strokeRoundRect(x, y, s, s, radius, ew, st.edge)
	}

	// The CPU number, when the tile is large enough for it to be read.
	labelH := min(max(s*0.21, 7), 17)
	if s >= 30 {
		c.text(f.face(true, math.Round(labelH*1.15)), strconv.Itoa(cpu), x+pad, y+pad+labelH, st.ink)
	}

	// The gauge and the state icon share the top-right corner.
	r := min(max(s*0.14, 4), 15)
	ringW := max(r*0.36, 1.5)
	cx, cy := x+s-pad-r, y+pad+r
	switch {
	case st.icon == 'r':
		drawGauge(c, cx, cy, r, ringW, t.Spin, th.RingTrack, th.Spinning)
	case gauge && (st.icon == 'p' || st.icon == 'w'):
		drawGauge(c, cx, cy, r, ringW*0.55, t.Spin, mix(st.fill, st.ink, 0.25), mix(st.fill, st.ink, 0.75))
	}
	switch st.icon {
	case 'p':
		h := r * 0.62
		w := max(h*0.36, 1)
		c.rect(cx-h*0.55, cy-h*0.7, w, h*1.4, st.ink)
		c.rect(cx+h*0.55-w, cy-h*0.7, w, h*1.4, st.ink)
	case 'w':
		h := r * 0.6
		c.stroke([]pt{{cx - h, cy + h*0.45}, {cx, cy - h*0.55}, {cx + h, cy + h*0.45}}, max(ringW*0.6, 1.2), th.Waking)
	case 'b':
		c.fill(st.ink, orient([]pt{{cx + r*0.25, cy - r}, {cx - r*0.55, cy + r*0.15}, {cx + r*0.05, cy + r*0.15}}, false),
			orient([]pt{{cx - r*0.05, cy - r*0.15}, {cx + r*0.55, cy - r*0.15}, {cx - r*0.25, cy + r}}, false))
	}

	// Chips: the running thread's large at the left, then the queue.
	run := math.Round(min(s*0.26, 24))
	chip := math.Round(min(max(s*0.13, 3), 13))
	gap := max(math.Round(s*0.035), 1)
	stripX, stripY, stripW := x+pad, y+s-pad-run, s-2*pad
	on := th.Chip
	if t.State == "running" {
		on = th.ChipOnRun
	}
	if t.Run != "" {
		drawChip(c, th, stripX, stripY, run, t.Run[0], on, st.fill)
	}
	slots := max(int((stripW-run-gap+gap)/(chip+gap)), 0)
	visible := min(len(t.Chips), slots)
	overflow := t.Queued - visible
	labelFace := f.face(true, math.Max(math.Round(chip*1.1), 8))
	if overflow > 0 {
		// Leave room for the "+n" count.
		for visible > 0 && stripX+run+gap+float64(visible)*(chip+gap)+width(labelFace, "+"+strconv.Itoa(t.Queued-visible)) > stripX+stripW {
			visible--
		}
		overflow = t.Queued - visible
	}
	qy := stripY + run - chip
	for i := range visible {
		qx := stripX + run + gap + float64(i)*(chip+gap)
		drawChip(c, th, qx, qy, chip, t.Chips[i], mix(on, st.fill, 0.12), st.fill)
	}
	if overflow > 0 && s >= 30 {
		qx := stripX + run + gap + float64(visible)*(chip+gap)
		c.text(labelFace, "+"+strconv.Itoa(overflow), qx, qy+chip, st.ink)
	}
}

// drawChip paints one thread: a rounded square for a worker, a smaller grey one
// for a kernel thread, a yellow diamond for the waker; hollow while incoming
// (an upper-case role letter, see Tile.Chips).
func drawChip(c *canvas, th *Theme, x, y, s float64, role byte, col, bg color.RGBA) {
	incoming := role >= 'A' && role <= 'Z'
	if incoming {
		role = role - 'A' + 'a'
	}
	switch role {
	case 'k':
		cx, cy, h := x+s/2, y+s/2, s*0.62
		diamond := func(h float64) []pt {
			return orient([]pt{{cx, cy - h}, {cx + h, cy}, {cx, cy + h}, {cx - h, cy}}, false)
		}
		c.fill(th.WakerEdge, diamond(h))
		if incoming {
			c.fill(bg, diamond(h*0.6))
			return
		}
		c.fill(th.Waker, diamond(h*0.72))
		return
	case 'b', 'h':
		x, y, s = x+s*0.2, y+s*0.2, s*0.6
		col = mix(th.ChipKernel, bg, 0.15)
	}
	if incoming {
		c.strokeRoundRect(x, y, s, s, s*0.22, max(s*0.16, 1.2), col)
		return
	}
	c.roundRect(x, y, s, s, s*0.22, col)
}

// drawGauge is the spin window ring: a track, and an arc clockwise from twelve
// o'clock covering frac of it.
func drawGauge(c *canvas, cx, cy, r, w, frac float64, track, fill color.RGBA) {
	c.arcBand(cx, cy, r, w, 0, 2*math.Pi, track)
	if frac > 0.001 {
		c.arcBand(cx, cy, r, w, -math.Pi/2, -math.Pi/2+2*math.Pi*frac, fill)
	}
}
