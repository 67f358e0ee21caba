package view

import "math"

// TopoShape is a machine's shape as the stage groups its CPU tiles: Nodes
// NUMA nodes of LLCsPerNode LLCs, each of CoresPerLLC cores of
// ThreadsPerCore CPUs, numbered threads first (engine/topology.go).
type TopoShape struct {
	Nodes, LLCsPerNode, CoresPerLLC, ThreadsPerCore int
}

// CPUs is the shape's CPU count.
func (s TopoShape) CPUs() int { return s.Nodes * s.LLCsPerNode * s.CoresPerLLC * s.ThreadsPerCore }

// TopoGrid is the tile layout of a machine with a topology: a tile per CPU
// in CPU order, and the frames around its groups. A level with nothing to
// tell apart has no frames (and takes no room): Cores only with SMT, LLCs
// only with more than one LLC, Nodes only with more than one node.
type TopoGrid struct {
	Tiles              []Rect
	Cores, LLCs, Nodes []Rect
	// Size is the tile edge.
	Size float32
}

// Spacing in tile edges: SMT siblings sit close, as one core; cores further
// apart; a frame pads what it holds and keeps clear of the next frame, and
// keeps a band along its top for its label ("node 1", "LLC 3"), which the
// page writes in HTML over the canvas (TopoLabels).
const (
	topoSibGap    = 0.06
	topoCoreGap   = 0.14
	topoPad       = 0.14
	topoFrameGap  = 0.22
	TopoLabelBand = 0.3
)

// topoBox is a group laid out in tile edges: width and height, and each
// member's offset.
type topoBox struct {
	w, h float64
	at   [][2]float64
}

// topoRow places n boxes of w x h in rows of cols, gap apart, inside pad,
// with top more above them (a frame's label band).
func topoRow(n, cols int, w, h, gap, pad, top float64) topoBox {
	rows := (n + cols - 1) / cols
	b := topoBox{
		w: float64(cols)*w + float64(cols-1)*gap + 2*pad,
		h: float64(rows)*h + float64(rows-1)*gap + 2*pad + top,
	}
	for i := range n {
		b.at = append(b.at, [2]float64{pad + float64(i%cols)*(w+gap), pad + top + float64(i/cols)*(h+gap)})
	}
	return b
}

// LayoutTopology places the CPU tiles of a machine of shape s in area: the
// SMT siblings of a core side by side, cores in rows inside their LLC's
// frame, LLCs inside their node's frame, nodes in rows. It tries every
// column count at each level and keeps the layout with the largest tiles,
// centred; scale is the device pixel ratio (tiles stay within MaxTile).
func LayoutTopology(s TopoShape, area Rect, scale float32) TopoGrid {
	g := TopoGrid{}
	if s.CPUs() <= 0 || area.W <= 0 || area.H <= 0 {
		return g
	}
	coreW, sib := float64(s.ThreadsPerCore)+float64(s.ThreadsPerCore-1)*topoSibGap, s.ThreadsPerCore > 1
	if sib {
		coreW += 2 * topoSibGap // the core's own frame, snug
	}
	coreH := 1.0
	if sib {
		coreH += 2 * topoSibGap
	}
	llcFramed, nodeFramed := s.Nodes*s.LLCsPerNode > 1, s.Nodes > 1
	llcPad, nodePad, llcTop, nodeTop := 0.0, 0.0, 0.0, 0.0
	if llcFramed {
		llcPad, llcTop = topoPad, TopoLabelBand
	}
	if nodeFramed {
		nodePad, nodeTop = topoPad, TopoLabelBand
	}
	best, bestSize := [3]topoBox{}, 0.0
	for cc := 1; cc <= s.CoresPerLLC; cc++ {
		llc := topoRow(s.CoresPerLLC, cc, coreW, coreH, topoCoreGap, llcPad, llcTop)
		for lc := 1; lc <= s.LLCsPerNode; lc++ {
			node := topoRow(s.LLCsPerNode, lc, llc.w, llc.h, topoFrameGap, nodePad, nodeTop)
			for nc := 1; nc <= s.Nodes; nc++ {
				m := topoRow(s.Nodes, nc, node.w, node.h, topoFrameGap, 0, 0)
				if size := min(float64(area.W)/m.w, float64(area.H)/m.h); size > bestSize {
					best, bestSize = [3]topoBox{llc, node, m}, size
				}
			}
		}
	}
	size := math.Floor(min(bestSize, float64(MaxTile*scale)))
	g.Size = float32(size)
	llc, node, m := best[0], best[1], best[2]
	x0 := float64(area.X) + (float64(area.W)-m.w*size)/2
	y0 := float64(area.Y) + (float64(area.H)-m.h*size)/2
	rect := func(x, y, w, h float64) Rect {
		return Rect{float32(math.Round(x0 + x*size)), float32(math.Round(y0 + y*size)), float32(math.Round(w * size)), float32(math.Round(h * size))}
	}
	for n := range s.Nodes {
		nx, ny := m.at[n][0], m.at[n][1]
		if nodeFramed {
			g.Nodes = append(g.Nodes, rect(nx, ny, node.w, node.h))
		}
		for l := range s.LLCsPerNode {
			lx, ly := nx+node.at[l][0], ny+node.at[l][1]
			if llcFramed {
				g.LLCs = append(g.LLCs, rect(lx, ly, llc.w, llc.h))
			}
			for c := range s.CoresPerLLC {
				cx, cy := lx+llc.at[c][0], ly+llc.at[c][1]
				if sib {
					g.Cores = append(g.Cores, rect(cx, cy, coreW, coreH))
					cx, cy = cx+topoSibGap, cy+topoSibGap
				}
				for t := range s.ThreadsPerCore {
					g.Tiles = append(g.Tiles, rect(cx+float64(t)*(1+topoSibGap), cy, 1, 1))
				}
			}
		}
	}
	return g
}
