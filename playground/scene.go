package playground

import (
	"schedplay/engine"
	"schedplay/view"
)

// Pane title band and padding in CSS pixels (the titles themselves are HTML,
// positioned from the snapshot's panes section).
const (
	titleCSS = 26
	padCSS   = 10
)

// layout caches where tiles go for one canvas size.
type layout struct {
	w, h       int
	scale      float64
	arms, cpus int
	// shape is the machine's grouping when framed (a topology with more
	// than one node, LLC or thread a core): tiles then go by
	// view.LayoutTopology, topos holds each pane's frames and labels their
	// labels. A flat machine's tiles go by view.LayoutGrid, as they always did.
	shape  view.TopoShape
	framed bool
	panes  []view.Rect
	grids  []view.Grid
	topos  []view.TopoGrid
	labels [][]view.TopoLabel
}

func (m *Model) layoutFor(w, h int, scale float64) *layout {
	l := &m.lay
	cpus := len(m.arms[0].Snap.CPUs)
	shape, framed := m.arms[0].shape()
	framed = framed && shape.CPUs() == cpus
	if l.w == w && l.h == h && l.scale == scale && l.arms == len(m.arms) && l.cpus == cpus && l.shape == shape && l.framed == framed {
		return l
	}
	*l = layout{w: w, h: h, scale: scale, arms: len(m.arms), cpus: cpus, shape: shape, framed: framed}
	s := float32(scale)
	stage := view.Rect{W: float32(w), H: float32(h)}
	title := float32(0)
	if len(m.arms) > 1 {
		title = titleCSS * s
	}
	if !framed {
		l.panes = view.Panes(stage, len(m.arms), cpus, title, padCSS*s, s)
		for _, p := range l.panes {
			l.grids = append(l.grids, view.LayoutGrid(cpus, view.GridArea(p, title), s))
		}
		return l
	}
	l.panes = view.PanesBy(stage, len(m.arms), title, padCSS*s, func(area view.Rect) float32 {
		return view.LayoutTopology(shape, area, s).Size
	})
	for _, p := range l.panes {
		tg := view.LayoutTopology(shape, view.GridArea(p, title), s)
		l.topos = append(l.topos, tg)
		l.labels = append(l.labels, view.TopoLabels(tg, s))
		l.grids = append(l.grids, view.Grid{Tiles: tg.Tiles, Size: tg.Size, Cols: firstRow(tg.Tiles), Rows: 1})
	}
	return l
}

// firstRow counts the tiles level with the first: the columns keyboard
// navigation steps over (MoveSelection) in a topology's layout.
func firstRow(tiles []view.Rect) int {
	n := 0
	for _, t := range tiles {
		if len(tiles) > 0 && t.Y == tiles[0].Y {
			n++
		}
	}
	return max(n, 1)
}

// Render computes the frame for a canvas of w x h device pixels at the given device
// scale (device pixels per CSS pixel) and wall time, and returns its mesh. It also
// records the clickable regions for Click.
func (m *Model) Render(w, h int, scale, nowMs float64) *view.Mesh {
	m.mesh.Reset()
	m.hits = m.hits[:0]
	if w <= 0 || h <= 0 || len(m.arms) == 0 {
		return &m.mesh
	}
	l := m.layoutFor(w, h, scale)
	pal := &m.pal
	s := float32(scale)
	for ai, a := range m.arms {
		g := l.grids[ai]
		if len(m.arms) > 1 {
			// A faint panel behind each arm groups its tiles.
			m.mesh.FillRoundRect(l.panes[ai], 8*s, view.Mix(pal.Stage, pal.Text, 0.035))
		}
		if ai < len(l.topos) {
			view.DrawTopoFrames(&m.mesh, pal, l.topos[ai], s)
		}
		m.renderArm(a, ai, g, nowMs, s)
	}
	return &m.mesh
}

func (m *Model) renderArm(a *Arm, ai int, g view.Grid, nowMs float64, s float32) {
	pal := &m.pal
	adaptive := a.Sc.Sched.IdleSpin.Adaptive
	var queue []view.Chip
	for ci := range a.Snap.CPUs {
		if ci >= len(g.Tiles) {
			break
		}
		c := &a.Snap.CPUs[ci]
		in := view.TileInput{CPU: c.ID, State: c.State, Run: view.Chip{Thread: -1},
			SpinWindow: c.SpinWindow, SpinCap: c.SpinCap, ShowGauge: adaptive,
			Selected: m.sel.Arm == ai && m.sel.CPU == c.ID && m.sel.Thread < 0, SelectedThread: -2, Scale: s}
		if m.sel.Arm == ai && m.sel.Thread >= 0 {
			in.SelectedThread = m.sel.Thread
		}
		if c.Running >= 0 {
			in.Run = m.chip(a, c.Running, false)
		}
		queue = queue[:0]
		for _, t := range c.Runqueue {
			queue = append(queue, m.chip(a, t, false))
		}
		for _, t := range c.Incoming {
			queue = append(queue, m.chip(a, t, true))
		}
		in.Queue = queue
		if ci < len(a.capShown) {
			in.Capacity = a.capShown[ci]
		}
		m.hits = view.DrawTile(&m.mesh, pal, g.Tiles[ci], in, ai, m.hits)
	}
	now := a.Snap.NowNs
	width := max(g.Size*0.05, 2*s)
	for _, f := range a.flights {
		if f.from < 0 || f.to < 0 || f.from >= len(g.Tiles) || f.to >= len(g.Tiles) || f.from == f.to {
			continue
		}
		look := view.FlightLook{Kind: f.kind, Width: width, Ghost: f.ghost}
		if f.landedMs > 0 {
			look.Fade = float32(min(max((nowMs-f.landedMs)/trailMs, 0.02), 1))
		} else if f.due > f.sent {
			look.Progress = float32(float64(now-f.sent) / float64(f.due-f.sent))
		}
		view.DrawFlight(&m.mesh, pal, g.Tiles[f.from], g.Tiles[f.to], look)
	}
	for _, mg := range a.migrations {
		if mg.from < 0 || mg.to < 0 || mg.from >= len(g.Tiles) || mg.to >= len(g.Tiles) {
			continue
		}
		t, _ := a.thread(mg.thread)
		if a.levels {
			view.DrawMigration(&m.mesh, pal, g.Tiles[mg.from], g.Tiles[mg.to], a.crossing(mg.from, mg.to),
				float32((nowMs-mg.startMs)/slideMs), width)
		}
		view.DrawSlide(&m.mesh, pal, g.Tiles[mg.from], g.Tiles[mg.to], float32((nowMs-mg.startMs)/slideMs), s, t.Role == engine.RoleWaker)
	}
}

func (m *Model) chip(a *Arm, id int, incoming bool) view.Chip {
	t, _ := a.thread(id)
	return view.Chip{Thread: id, Role: t.Role, Incoming: incoming, Group: a.chipGroup(t), Class: t.Class}
}

// Hits returns the clickable regions of the last Render.
func (m *Model) Hits() []view.Hit { return m.hits }
