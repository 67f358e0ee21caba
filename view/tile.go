package view

import (
	"math"
	"strconv"

	"schedplay/engine"
)

// Chip is one thread drawn in a tile.
type Chip struct {
	Thread int
	Role   engine.ThreadRole
	// Incoming marks a thread woken remotely that the CPU has not yet moved into its
	// runqueue: drawn hollow.
	Incoming bool
	// Group is the thread's task group from 1 (an rt-app task: its instances
	// share a colour, GroupColor), 0 for none.
	Group int
	// Class is its Linux scheduling class: a real-time task's chip carries a
	// bar along its top, a deadline task's a ring (ClassMark).
	Class engine.SchedClass
}

// TileInput is everything a vCPU tile shows.
type TileInput struct {
	CPU   int
	State engine.CPUState
	// Run is the running thread (Thread < 0 when none); Queue the queued threads in
	// run order, then the incoming ones.
	Run   Chip
	Queue []Chip
	// SpinWindow/SpinCap drive the gauge; ShowGauge draws it even when not spinning
	// (adaptive spin on: the shrunken window stays visible while halted).
	SpinWindow, SpinCap int64
	ShowGauge           bool
	// Selected outlines the tile; SelectedThread outlines that thread's chip.
	Selected       bool
	SelectedThread int
	// Capacity is the CPU's capacity (out of engine.SchedCapacityScale) to
	// write under its number, 0 for none: only a machine whose CPUs differ
	// shows it (CapacityShown).
	Capacity int
	// Scale is the device pixel ratio.
	Scale float32
}

// Hit is a clickable region of the frame.
type Hit struct {
	Rect   Rect
	Arm    int
	CPU    int
	Thread int // -1 for the tile itself
}

// TileStyle is how a CPU state looks. Colour is backed by a second cue for every
// state: the spin gauge ring (spinning), pause bars (halted), a rising chevron and
// dashed edge (waking), a lightning bolt (interrupt), a solid blue fill with a
// running chip (running).
type TileStyle struct {
	Fill, Edge, Ink Color
	EdgeWidth       float32 // multiple of the tile's base edge width
	Dashed          bool
	Icon            Icon
}

// Icon is the state glyph drawn in the tile's top-right corner.
type Icon int

const (
	IconNone  Icon = iota
	IconRing       // spin gauge
	IconPause      // halted
	IconWake       // halted, wake in progress
	IconBolt       // in an interrupt
)

// StyleFor returns the look of a CPU state.
func StyleFor(p *Palette, s engine.CPUState) TileStyle {
	switch s {
	case engine.CPURunning:
		return TileStyle{Fill: p.Running, Edge: p.Running, Ink: p.RunningInk, EdgeWidth: 1}
	case engine.CPUSpinning:
		return TileStyle{Fill: p.SpinFill, Edge: p.Spinning, Ink: p.SpinInk, EdgeWidth: 1.6, Icon: IconRing}
	case engine.CPUWaking:
		return TileStyle{Fill: p.Halted, Edge: p.Waking, Ink: p.HaltInk, EdgeWidth: 1.4, Dashed: true, Icon: IconWake}
	case engine.CPUIRQ:
		return TileStyle{Fill: p.IRQ, Edge: p.IRQ, Ink: p.IRQInk, EdgeWidth: 1, Icon: IconBolt}
	}
	return TileStyle{Fill: p.Halted, Edge: p.HaltedEdge, Ink: p.HaltInk, EdgeWidth: 1, Icon: IconPause}
}

// GaugeFrac is the spin window as a fraction of the cap, in [0, 1].
func GaugeFrac(window, cap int64) float32 {
	if cap <= 0 {
		return 0
	}
	return float32(min(max(float64(window)/float64(cap), 0), 1))
}

// DrawTile paints one vCPU tile at t and appends its clickable regions (chips
// before the tile, so a click on a chip selects the thread).
func DrawTile(m *Mesh, p *Palette, t Rect, in TileInput, arm int, hits []Hit) []Hit {
	st := StyleFor(p, in.State)
	parts := Parts(t, in.Scale)
	if in.Selected {
		m.StrokeRoundRect(t.Inset(-parts.Edge*1.6), parts.Radius+parts.Edge*1.6, parts.Edge*1.3, p.Select)
	}
	m.FillRoundRect(t, parts.Radius, st.Fill)
	ew := parts.Edge * st.EdgeWidth
	edgeRect := t.Inset(ew / 2)
	if st.Dashed {
		m.scratch2 = AppendRoundRect(m.scratch2[:0], edgeRect, parts.Radius, cornerSegments(parts.Radius))
		m.scratch2 = append(m.scratch2, m.scratch2[0])
		m.StrokeDashed(m.scratch2, ew, ew*2.5, ew*1.8, st.Edge)
	} else if st.Edge != st.Fill {
		m.StrokeRoundRect(edgeRect, parts.Radius-ew/2, ew, st.Edge)
	}

	// The CPU number, and under it a slower CPU's capacity, dimmer.
	m.Text(strconv.Itoa(in.CPU), parts.Label.X, parts.Label.Y, parts.LabelH, st.Ink)
	if in.Capacity > 0 {
		h := parts.LabelH * 0.72
		m.Text(strconv.Itoa(in.Capacity), parts.Label.X, parts.Label.Y+parts.LabelH*1.3, h, Mix(st.Ink, st.Fill, 0.3))
	}

	// The gauge and state icon share the top-right corner.
	c, r := parts.Ring, parts.RingR
	frac := GaugeFrac(in.SpinWindow, in.SpinCap)
	switch {
	case st.Icon == IconRing:
		drawGauge(m, c, r, parts.RingStroke, frac, p.RingTrack, p.Spinning)
	case in.ShowGauge && (st.Icon == IconPause || st.Icon == IconWake):
		drawGauge(m, c, r, parts.RingStroke*0.55, frac, Mix(st.Fill, st.Ink, 0.25), Mix(st.Fill, st.Ink, 0.75))
	}
	switch st.Icon {
	case IconPause:
		drawPause(m, c, r*0.62, st.Ink)
	case IconWake:
		drawChevron(m, c, r*0.6, max(parts.RingStroke*0.6, 1.2), p.Waking)
	case IconBolt:
		drawBolt(m, c, r, st.Ink)
	}

	// Thread chips: the running one large at the left, then the queue.
	chipOn := p.Chip
	if in.State == engine.CPURunning {
		chipOn = p.ChipOnRun
	}
	if in.Run.Thread >= 0 {
		rc := RunChipRect(parts)
		drawChip(m, p, rc, in.Run, chipOn, st.Fill, in.SelectedThread == in.Run.Thread)
		hits = append(hits, Hit{Rect: rc, Arm: arm, CPU: in.CPU, Thread: in.Run.Thread})
	}
	fit := FitChips(parts, len(in.Queue))
	for i := 0; i < fit.Visible; i++ {
		rc := ChipRect(parts, i)
		ch := in.Queue[i]
		drawChip(m, p, rc, ch, Mix(chipOn, st.Fill, 0.12), st.Fill, in.SelectedThread == ch.Thread)
		hits = append(hits, Hit{Rect: rc, Arm: arm, CPU: in.CPU, Thread: ch.Thread})
	}
	if fit.Overflow > 0 {
		x, y, h := OverflowLabel(parts, fit.Visible)
		m.Text("+"+strconv.Itoa(fit.Overflow), x, y, h, st.Ink)
	}
	return append(hits, Hit{Rect: t, Arm: arm, CPU: in.CPU, Thread: -1})
}

// drawChip paints a thread: a rounded square for workers, a smaller grey one for
// kernel threads (balancer, housekeeping), a yellow diamond for the waker; hollow
// while incoming.
func drawChip(m *Mesh, p *Palette, r Rect, ch Chip, col, bg Color, selected bool) {
	if selected {
		m.StrokeRoundRect(r.Inset(-2), 3, 1.6, p.Select)
	}
	switch ch.Role {
	case engine.RoleWaker:
		cx, cy := r.X+r.W/2, r.Y+r.H/2
		h := r.W * 0.62
		m.FillDiamond(cx, cy, h, p.WakerEdge)
		if ch.Incoming {
			m.FillDiamond(cx, cy, h*0.6, bg)
			return
		}
		m.FillDiamond(cx, cy, h*0.72, p.Waker)
		return
	case engine.RoleBalancer, engine.RoleKernel:
		r = r.Inset(r.W * 0.2)
		col = Mix(p.ChipKernel, bg, 0.15)
	default:
		if ch.Group > 0 {
			col = p.GroupColor(ch.Group)
		}
	}
	rad := r.W * 0.22
	if ch.Incoming {
		w := max(r.W*0.16, 1.2)
		m.StrokeRoundRect(r.Inset(w/2), rad, w, col)
		drawClassMark(m, p, r, ch.Class)
		return
	}
	m.FillRoundRect(r, rad, col)
	drawClassMark(m, p, r, ch.Class)
}

// drawClassMark marks a real-time chip with a bar just above it and a
// deadline chip with a ring just outside its edge, in the class's colour.
// Both sit on the tile, outside the chip, so that they show whatever the
// task's own colour (an rt-app task's chips take its group's).
func drawClassMark(m *Mesh, p *Palette, r Rect, class engine.SchedClass) {
	w := max(r.W*0.14, 1.5)
	switch class {
	case engine.ClassRT:
		bar := Rect{X: r.X, Y: r.Y - 2*w, W: r.W, H: w * 1.3}
		m.FillRoundRect(bar, w*0.6, p.ClassRT)
	case engine.ClassDL:
		m.StrokeRoundRect(r.Inset(-w*0.9), r.W*0.22+w, w, p.ClassDL)
	}
}

// drawGauge is the spin window ring: a track and an arc from twelve o'clock,
// clockwise, covering window/cap.
func drawGauge(m *Mesh, c Point, r, w, frac float32, track, fill Color) {
	m.StrokeArc(c.X, c.Y, r, 0, 2*math.Pi, w, track)
	if frac > 0.001 {
		m.StrokeArc(c.X, c.Y, r, -math.Pi/2, -math.Pi/2+2*math.Pi*frac, w, fill)
	}
}

func drawPause(m *Mesh, c Point, h float32, col Color) {
	w := max(h*0.36, 1)
	m.FillRect(Rect{c.X - h*0.55, c.Y - h*0.7, w, h * 1.4}, col)
	m.FillRect(Rect{c.X + h*0.55 - w, c.Y - h*0.7, w, h * 1.4}, col)
}

func drawChevron(m *Mesh, c Point, h, w float32, col Color) {
	m.scratch = append(m.scratch[:0], Point{c.X - h, c.Y + h*0.45}, Point{c.X, c.Y - h*0.55}, Point{c.X + h, c.Y + h*0.45})
	m.StrokePolyline(m.scratch, w, col)
}

func drawBolt(m *Mesh, c Point, r float32, col Color) {
	// Two triangles offset along a slanted axis make a lightning bolt.
	m.scratch = append(m.scratch[:0], Point{c.X + r*0.25, c.Y - r}, Point{c.X - r*0.55, c.Y + r*0.15}, Point{c.X + r*0.05, c.Y + r*0.15})
	m.FillConvex(m.scratch, col)
	m.scratch = append(m.scratch[:0], Point{c.X - r*0.05, c.Y - r*0.15}, Point{c.X + r*0.55, c.Y - r*0.15}, Point{c.X - r*0.25, c.Y + r})
	m.FillConvex(m.scratch, col)
}
