package view

import (
	"math"
	"strconv"
)

// Grid is the tile layout of one arm's vCPUs.
type Grid struct {
	Tiles      []Rect
	Cols, Rows int
	// Size is the tile edge; Gap the space between tiles.
	Size, Gap float32
}

// Tile size limits in CSS pixels (multiplied by the device scale): below MinTile a
// tile cannot show its runqueue; above MaxTile a one-vCPU machine would be one
// giant square.
const (
	MinTile = 18
	MaxTile = 140
)

// LayoutGrid places n square tiles in area, choosing the column count that makes
// them largest, and centres the grid. scale is the device pixel ratio.
func LayoutGrid(n int, area Rect, scale float32) Grid {
	g := Grid{}
	if n <= 0 || area.W <= 0 || area.H <= 0 {
		return g
	}
	// The largest tiles win, but a grid without a ragged last row wins over one
	// whose tiles are up to 10% larger: 32 vCPUs read better as 8x4 than 6x6 with
	// four holes.
	bestScore := float32(0)
	for cols := 1; cols <= n; cols++ {
		rows := (n + cols - 1) / cols
		// The gap is a tenth of the tile, so solve size + gap fractions together.
		size := min(area.W/(float32(cols)+0.1*float32(cols-1)), area.H/(float32(rows)+0.1*float32(rows-1)))
		holes := float32(rows*cols - n)
		score := size * (1 - 0.1*min(holes/float32(cols), 1))
		if score > bestScore {
			bestScore, g.Size, g.Cols, g.Rows = score, size, cols, rows
		}
	}
	g.Size = min(g.Size, MaxTile*scale)
	g.Gap = float32(math.Round(float64(max(g.Size*0.1, 2*scale))))
	g.Size = float32(math.Floor(float64(g.Size)))
	w := float32(g.Cols)*g.Size + float32(g.Cols-1)*g.Gap
	h := float32(g.Rows)*g.Size + float32(g.Rows-1)*g.Gap
	// Shrink if rounding the gap up pushed the grid out of the area.
	if w > area.W || h > area.H {
		f := min(area.W/w, area.H/h)
		g.Size = float32(math.Floor(float64(g.Size * f)))
		w = float32(g.Cols)*g.Size + float32(g.Cols-1)*g.Gap
		h = float32(g.Rows)*g.Size + float32(g.Rows-1)*g.Gap
	}
	x0 := float32(math.Round(float64(area.X + (area.W-w)/2)))
	y0 := float32(math.Round(float64(area.Y + (area.H-h)/2)))
	g.Tiles = make([]Rect, n)
	for i := range n {
		c, r := i%g.Cols, i/g.Cols
		g.Tiles[i] = Rect{x0 + float32(c)*(g.Size+g.Gap), y0 + float32(r)*(g.Size+g.Gap), g.Size, g.Size}
	}
	return g
}

// Panes splits the stage into one pane per arm: side by side when that gives the
// larger tiles (wide screens), stacked otherwise (phones, tall embeds). Each pane
// keeps titleH at its top for the HTML title. pad is the space around and between.
func Panes(stage Rect, arms, vcpus int, titleH, pad, scale float32) []Rect {
	return PanesBy(stage, arms, titleH, pad, func(area Rect) float32 { return LayoutGrid(vcpus, area, scale).Size })
}

// PanesBy is Panes for any layout of the tiles: tile says how large the
// tiles come out in a pane's grid area (LayoutTopology lays a machine with
// frames out otherwise than LayoutGrid).
func PanesBy(stage Rect, arms int, titleH, pad float32, tile func(area Rect) float32) []Rect {
	if arms <= 1 {
		return []Rect{{stage.X + pad, stage.Y + pad, stage.W - 2*pad, stage.H - 2*pad}}
	}
	side := make([]Rect, arms)
	stack := make([]Rect, arms)
	w := (stage.W - pad*float32(arms+1)) / float32(arms)
	h := (stage.H - pad*float32(arms+1)) / float32(arms)
	for i := range arms {
		side[i] = Rect{stage.X + pad + float32(i)*(w+pad), stage.Y + pad, w, stage.H - 2*pad}
		stack[i] = Rect{stage.X + pad, stage.Y + pad + float32(i)*(h+pad), stage.W - 2*pad, h}
	}
	if tile(GridArea(stack[0], titleH)) > tile(GridArea(side[0], titleH)) {
		return stack
	}
	return side
}

// GridArea is the part of a pane below its title.
func GridArea(pane Rect, titleH float32) Rect {
	return Rect{pane.X, pane.Y + titleH, pane.W, pane.H - titleH}
}

// TileParts is where things go inside one tile.
type TileParts struct {
	// Label is the top-left corner of the CPU number; LabelH its height.
	Label  Point
	LabelH float32
	// Ring is the centre and radius of the spin gauge (top-right corner), which
	// doubles as the state icon's place.
	Ring       Point
	RingR      float32
	RingStroke float32
	// Chips is the strip along the bottom edge where thread chips go; Chip is the
	// edge of one queued chip and RunChip of the running thread's chip.
	Chips         Rect
	Chip, RunChip float32
	ChipGap       float32
	// Radius is the tile's corner radius; Edge its outline width.
	Radius, Edge float32
}

// Parts lays out the inside of a tile at t; scale is the device pixel ratio (the
// clamps are in CSS pixels, so text stays readable on small tiles and does not grow
// silly on large ones).
func Parts(t Rect, scale float32) TileParts {
	s := t.W
	k := max(scale, 0.5)
	pad := float32(math.Round(float64(max(s*0.1, 2*k))))
	p := TileParts{
		LabelH: min(max(s*0.21, 7*k), 17*k),
		Radius: min(max(s*0.1, 2*k), 8*k),
		Edge:   max(s*0.035, 1.2*k),
	}
	p.Label = Point{t.X + pad, t.Y + pad}
	p.RingR = min(max(s*0.14, 4*k), 15*k)
	p.RingStroke = max(p.RingR*0.36, 1.5*k)
	p.Ring = Point{t.X + t.W - pad - p.RingR, t.Y + pad + p.RingR}
	// Chips stop growing on large tiles, so a big tile shows more of its queue.
	p.RunChip = float32(math.Round(float64(min(s*0.26, 24*k))))
	p.Chip = float32(math.Round(float64(min(max(s*0.13, 3*k), 13*k))))
	p.ChipGap = max(float32(math.Round(float64(s*0.035))), k)
	p.Chips = Rect{t.X + pad, t.Y + t.H - pad - p.RunChip, t.W - 2*pad, p.RunChip}
	return p
}

// ChipFit says how many queued chips fit in the strip after the running chip
// (which is always drawn when a thread runs). When n exceed it, the last place
// shows "+k" instead: Visible chips are drawn and Overflow counted.
type ChipFit struct{ Visible, Overflow int }

// FitChips fits n queued chips into a tile's chip strip, leaving room for the
// "+k" count when they do not all fit.
func FitChips(p TileParts, n int) ChipFit {
	room := p.Chips.W - p.RunChip - p.ChipGap
	slots := max(int((room+p.ChipGap)/(p.Chip+p.ChipGap)), 0)
	if n <= slots {
		return ChipFit{Visible: n}
	}
	end := p.Chips.X + p.Chips.W
	for vis := slots - 1; vis > 0; vis-- {
		x, _, h := OverflowLabel(p, vis)
		if x+TextWidth("+"+strconv.Itoa(n-vis), h) <= end {
			return ChipFit{Visible: vis, Overflow: n - vis}
		}
	}
	return ChipFit{Overflow: n}
}

// ChipRect is the i-th queued chip's square (0-based, after the running chip).
func ChipRect(p TileParts, i int) Rect {
	x := p.Chips.X + p.RunChip + p.ChipGap + float32(i)*(p.Chip+p.ChipGap)
	y := p.Chips.Y + p.Chips.H - p.Chip
	return Rect{x, y, p.Chip, p.Chip}
}

// RunChipRect is the running thread's chip.
func RunChipRect(p TileParts) Rect {
	return Rect{p.Chips.X, p.Chips.Y, p.RunChip, p.RunChip}
}

// OverflowLabel is where the "+k" count goes after Visible chips.
func OverflowLabel(p TileParts, visible int) (x, y, h float32) {
	r := ChipRect(p, visible)
	h = min(p.Chip*0.9, p.LabelH*0.8)
	return r.X, r.Y + r.H - h, h
}
