package view

import (
	"math"

	"schedplay/engine"
)

// IPI arcs and migrating chips.

// ArcEnds returns where an IPI arc starts and ends: the centres of the sender and
// target tiles.
func ArcEnds(from, to Rect) (a, b Point) {
	return from.Center(), to.Center()
}

// FlightLook is one IPI's drawing state.
type FlightLook struct {
	Kind engine.IPIKind
	// Progress is how far the IPI has travelled, in [0, 1] (simulated time).
	Progress float32
	// Fade is 0 while in the air and rises to 1 as the trail disappears (wall time).
	Fade float32
	// Width is the line width for a fresh arc.
	Width float32
	// Ghost draws an IPI that was not sent: faint, dotted, ending in a barred
	// circle at the target.
	Ghost bool
}

// DrawFlight paints an IPI from tile from to tile to. In the air: the whole path
// faint, the travelled part bright, a dot at the head. Landed: a trail that
// shortens toward the target and fades into the stage, so a burst of IPIs at full
// speed reads as a shimmer of trails rather than flicker. Pull requests are dashed.
func DrawFlight(m *Mesh, p *Palette, from, to Rect, f FlightLook) {
	a, b := ArcEnds(from, to)
	c := ArcControl(a, b)
	col := p.IPIColor(f.Kind)
	n := arcSegments(dist(a, b) * 1.2)
	w := f.Width
	if f.Ghost {
		faint := Mix(col, p.Stage, 0.45+0.5*f.Fade)
		m.scratch2 = AppendQuad(m.scratch2[:0], a, c, b, 0, 1, n)
		m.StrokeDashed(m.scratch2, w*0.7, w*0.9, w*1.6, faint)
		r := w * 3
		m.StrokeArc(b.X, b.Y, r, 0, 2*math.Pi, w*0.8, faint)
		m.scratch2 = append(m.scratch2[:0], Point{b.X - r*0.7, b.Y - r*0.7}, Point{b.X + r*0.7, b.Y + r*0.7})
		m.StrokePolyline(m.scratch2, w*0.8, faint)
		return
	}
	dashed := f.Kind == engine.IPIPull
	stroke := func(pts []Point, w float32, col Color) {
		if dashed {
			m.StrokeDashed(pts, w, w*3, w*2.2, col)
		} else {
			m.StrokePolyline(pts, w, col)
		}
	}
	if f.Fade > 0 {
		t0 := min(f.Fade, 0.98)
		m.scratch2 = AppendQuad(m.scratch2[:0], a, c, b, t0, 1, max(int(float32(n)*(1-t0)), 2))
		stroke(m.scratch2, w*(1-0.5*f.Fade), Mix(col, p.Stage, 0.15+0.7*f.Fade))
		return
	}
	m.scratch2 = AppendQuad(m.scratch2[:0], a, c, b, 0, 1, n)
	stroke(m.scratch2, w*0.6, Mix(col, p.Stage, 0.55))
	t := min(max(f.Progress, 0), 1)
	if t > 0.01 {
		m.scratch2 = AppendQuad(m.scratch2[:0], a, c, b, 0, t, max(int(float32(n)*t), 2))
		stroke(m.scratch2, w, col)
	}
	head := QuadAt(a, c, b, t)
	m.FillCircle(head.X, head.Y, w*2.4, p.Stage)
	m.FillCircle(head.X, head.Y, w*1.8, col)
}

// Ease is the smoothstep easing used for sliding chips.
func Ease(t float32) float32 {
	t = min(max(t, 0), 1)
	return t * t * (3 - 2*t)
}

// DrawSlide paints a thread chip moving from tile from to tile to, t in [0, 1],
// outlined so it stands out from the chips it passes over.
func DrawSlide(m *Mesh, p *Palette, from, to Rect, t, scale float32, waker bool) {
	pf, pt := Parts(from, scale), Parts(to, scale)
	a, b := RunChipRect(pf), RunChipRect(pt)
	k := Ease(t)
	pos := Lerp(Point{a.X, a.Y}, Point{b.X, b.Y}, k)
	// Lift the chip along a shallow arc so it is seen to travel, not to teleport.
	lift := 4 * k * (1 - k) * dist(Point{a.X, a.Y}, Point{b.X, b.Y}) * 0.15
	r := Rect{pos.X, pos.Y - lift, a.W, a.H}
	m.FillRoundRect(r.Inset(-2), r.W*0.3, p.IPIDonate)
	if waker {
		m.FillDiamond(r.X+r.W/2, r.Y+r.H/2, r.W*0.55, p.Waker)
		return
	}
	m.FillRoundRect(r, r.W*0.22, p.ChipOnRun)
}
