package view

import (
	"slices"
	"strconv"

	"schedplay/engine"
)

// Drawing a machine's topology: the frames around its nodes, LLCs and SMT
// cores (laid out by LayoutTopology), their labels, the capacity a tile
// shows, and the level of the machine a migration crosses.

// Crossing is the widest level of the machine a move from one CPU to another
// crosses: what a migration costs in lost cache grows with it.
type Crossing int

const (
	CrossNone Crossing = iota // the same CPU
	CrossSMT                  // an SMT sibling: the same core, its caches shared
	CrossCore                 // another core under the same LLC
	CrossLLC                  // another LLC of the same node
	CrossNode                 // another NUMA node
)

// CrossingOf is the level a move from CPU a to CPU b crosses.
func CrossingOf(a, b engine.TopoCPU) Crossing {
	switch {
	case a.Node != b.Node:
		return CrossNode
	case a.LLC != b.LLC:
		return CrossLLC
	case a.Core != b.Core:
		return CrossCore
	case a.Thread != b.Thread:
		return CrossSMT
	}
	return CrossNone
}

// String names the level as the legend does.
func (c Crossing) String() string {
	switch c {
	case CrossSMT:
		return "SMT sibling"
	case CrossCore:
		return "core"
	case CrossLLC:
		return "LLC"
	case CrossNode:
		return "node"
	}
	return "none"
}

// CrossLook is how a migration's arc across a level is stroked: its colour
// and, so that the level is not told by colour alone, its dash and gap in
// line widths (0: solid) and its width as a multiple of the base width.
type CrossLook struct {
	Color     Color
	Dash, Gap float32
	Width     float32
}

// CrossLook gives each level its arc: dotted within a core, solid within an
// LLC, dashed across LLCs, long dashes and heavier across nodes, so the
// costlier the move, the louder the arc.
func (p *Palette) CrossLook(c Crossing) CrossLook {
	switch c {
	case CrossSMT:
		return CrossLook{Color: p.CrossSMT, Dash: 0.8, Gap: 1.6, Width: 1}
	case CrossLLC:
		return CrossLook{Color: p.CrossLLC, Dash: 3, Gap: 2, Width: 1.2}
	case CrossNode:
		return CrossLook{Color: p.CrossNode, Dash: 6, Gap: 2.2, Width: 1.5}
	}
	return CrossLook{Color: p.CrossCore, Width: 1}
}

// DrawMigration paints a migration's arc from tile from to tile to, t in
// [0, 1] of the chip's slide: drawn whole at once and fading as the chip
// lands, so the move's level is read while the chip travels.
func DrawMigration(m *Mesh, p *Palette, from, to Rect, c Crossing, t, width float32) {
	a, b := ArcEnds(from, to)
	// The arc bows the other way from an IPI's (ArcControl from b to a), so
	// a donation's trail and the move it causes do not lie on one line.
	ctl := ArcControl(b, a)
	look := p.CrossLook(c)
	w := width * look.Width
	col := Mix(look.Color, p.Stage, 0.05+0.55*Ease(t))
	m.scratch2 = AppendQuad(m.scratch2[:0], a, ctl, b, 0, 1, arcSegments(dist(a, b)*1.2))
	if look.Dash == 0 {
		m.StrokePolyline(m.scratch2, w, col)
		return
	}
	m.StrokeDashed(m.scratch2, w, w*look.Dash, w*look.Gap, col)
}

// DrawTopoFrames paints the frames of a topology layout under its tiles:
// a node as a tinted panel with an edge, an LLC as an outline inside it, a
// core with SMT as a plate both siblings sit on. scale is the device pixel
// ratio.
func DrawTopoFrames(m *Mesh, p *Palette, g TopoGrid, scale float32) {
	k := max(scale, 0.5)
	r := min(max(g.Size*0.14, 3*k), 8*k)
	for _, n := range g.Nodes {
		m.FillRoundRect(n, r, p.FrameNodeFill)
		m.StrokeRoundRect(n.Inset(0.75*k), r, 1.5*k, p.FrameNode)
	}
	for _, l := range g.LLCs {
		m.StrokeRoundRect(l.Inset(0.5*k), r*0.8, 1*k, p.FrameLLC)
	}
	for _, c := range g.Cores {
		m.FillRoundRect(c, min(max(g.Size*0.12, 2*k), 7*k), p.FrameCore)
	}
}

// TopoLabel is a frame's label, which the page writes in HTML over the
// canvas (text on the canvas is kept to numbers): its frame, and the text.
type TopoLabel struct {
	Frame Rect
	// Level is "node" or "llc"; Text "node 1" or "LLC 3", or "N1" and "L3"
	// where the long form would not fit the frame.
	Level, Text string
	// At is the text's top-left corner, H its height, in the frame's
	// pixels: centred in the band above the frame's contents, indented as
	// its tiles are.
	At Point
	H  float32
}

// Label sizes in CSS pixels: a label is its frame's band tall, up to
// labelMaxCSS; below labelMinCSS (a phone's 64 CPUs) the frames go
// unlabelled rather than overprinted.
const (
	labelMinCSS = 7
	labelMaxCSS = 12
)

// TopoLabels are the labels of g's node and LLC frames, numbered as the
// engine numbers nodes and LLCs (LLCs across the machine, not per node).
func TopoLabels(g TopoGrid, scale float32) []TopoLabel {
	k := max(scale, 0.5)
	h := min(g.Size*TopoLabelBand*0.85, labelMaxCSS*k)
	if h < labelMinCSS*k {
		return nil
	}
	var out []TopoLabel
	add := func(frames []Rect, level, long, short string) {
		for i, f := range frames {
			text := long + " " + strconv.Itoa(i)
			// Roughly 0.6 em a character in the page's sans-serif.
			if float32(len(text))*h*0.62 > f.W-2*h {
				text = short + strconv.Itoa(i)
			}
			at := Point{f.X + g.Size*topoPad + 1, f.Y + g.Size*(topoPad+TopoLabelBand)/2 - h/2}
			out = append(out, TopoLabel{Frame: f, Level: level, Text: text, At: at, H: h})
		}
	}
	add(g.Nodes, "node", "node", "N")
	add(g.LLCs, "llc", "LLC", "L")
	return out
}

// CapacityShown is the capacity each CPU's tile shows: its own where it is
// below the machine's fastest CPU, 0 (nothing) elsewhere and on a machine
// whose CPUs are all alike, so a uniform machine's tiles look as they always
// did and a big.LITTLE one marks its little CPUs.
func CapacityShown(caps []int) []int {
	if len(caps) == 0 {
		return nil
	}
	top := slices.Max(caps)
	if slices.Min(caps) == top {
		return nil
	}
	out := make([]int, len(caps))
	for i, c := range caps {
		if c < top {
			out[i] = c
		}
	}
	return out
}
