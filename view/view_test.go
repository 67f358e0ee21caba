package view_test

import (
	"math"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/view"
)

func TestLayoutGrid(t *testing.T) {
	tests := []struct {
		desc       string
		n          int
		area       view.Rect
		cols, rows int
	}{
		{desc: "one vCPU is capped, not a giant square", n: 1, area: view.Rect{W: 800, H: 600}, cols: 1, rows: 1},
		{desc: "32 in a wide pane fill whole rows", n: 32, area: view.Rect{W: 900, H: 420}, cols: 8, rows: 4},
		{desc: "64 in a square pane", n: 64, area: view.Rect{W: 500, H: 500}, cols: 8, rows: 8},
		{desc: "7 in a strip", n: 7, area: view.Rect{W: 1000, H: 120}, cols: 7, rows: 1},
		{desc: "128 in a phone pane", n: 128, area: view.Rect{W: 340, H: 400}, cols: 10, rows: 13},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			g := view.LayoutGrid(tc.n, tc.area, 1)
			if g.Cols != tc.cols || g.Rows != tc.rows {
				t.Errorf("grid %dx%d, want %dx%d", g.Cols, g.Rows, tc.cols, tc.rows)
			}
			if len(g.Tiles) != tc.n {
				t.Fatalf("%d tiles, want %d", len(g.Tiles), tc.n)
			}
			if g.Size > view.MaxTile {
				t.Errorf("tile size %v above the cap %v", g.Size, view.MaxTile)
			}
			for i, r := range g.Tiles {
				if r.X < tc.area.X-0.5 || r.Y < tc.area.Y-0.5 || r.X+r.W > tc.area.X+tc.area.W+0.5 || r.Y+r.H > tc.area.Y+tc.area.H+0.5 {
					t.Errorf("tile %d %+v outside the area %+v", i, r, tc.area)
				}
				for j := range i {
					o := g.Tiles[j]
					if r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H {
						t.Fatalf("tiles %d and %d overlap", i, j)
					}
				}
			}
		})
	}
}

func TestLayoutGridScales(t *testing.T) {
	a := view.LayoutGrid(1, view.Rect{W: 2000, H: 2000}, 1)
	b := view.LayoutGrid(1, view.Rect{W: 2000, H: 2000}, 2)
	if b.Size != 2*a.Size {
		t.Errorf("the tile cap should scale with the device pixel ratio: %v at 1x, %v at 2x", a.Size, b.Size)
	}
}

func TestPanes(t *testing.T) {
	tests := []struct {
		desc    string
		stage   view.Rect
		stacked bool
	}{
		{desc: "laptop: side by side", stage: view.Rect{W: 1100, H: 480}},
		{desc: "phone: stacked", stage: view.Rect{W: 340, H: 480}, stacked: true},
		{desc: "banner: side by side", stage: view.Rect{W: 1200, H: 200}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			ps := view.Panes(tc.stage, 2, 32, 26, 10, 1)
			if len(ps) != 2 {
				t.Fatalf("%d panes", len(ps))
			}
			stacked := ps[1].Y > ps[0].Y
			if stacked != tc.stacked {
				t.Errorf("stacked = %v, want %v (%+v)", stacked, tc.stacked, ps)
			}
			if one := view.Panes(tc.stage, 1, 32, 0, 10, 1); len(one) != 1 || one[0].W != tc.stage.W-20 {
				t.Errorf("single pane %+v", one)
			}
		})
	}
}

// Every CPU state must differ from every other by more than colour (shape,
// outline or icon), so the tiles read without colour vision.
func TestStatesNotByColourAlone(t *testing.T) {
	p := view.Dark()
	states := []engine.CPUState{engine.CPURunning, engine.CPUSpinning, engine.CPUHalted, engine.CPUWaking, engine.CPUIRQ}
	type cue struct {
		icon   view.Icon
		dashed bool
		edge   bool
	}
	seen := map[cue]engine.CPUState{}
	for _, s := range states {
		st := view.StyleFor(&p, s)
		c := cue{st.Icon, st.Dashed, st.Edge != st.Fill}
		if o, dup := seen[c]; dup {
			t.Errorf("%v and %v share every non-colour cue %+v", s, o, c)
		}
		seen[c] = s
	}
}

func TestGaugeFrac(t *testing.T) {
	tests := []struct {
		w, c int64
		want float32
	}{{10000, 10000, 1}, {256, 100000, 0.00256}, {0, 0, 0}, {5, 10, 0.5}, {20, 10, 1}, {-1, 10, 0}}
	for _, tc := range tests {
		if got := view.GaugeFrac(tc.w, tc.c); math.Abs(float64(got-tc.want)) > 1e-6 {
			t.Errorf("GaugeFrac(%d, %d) = %v, want %v", tc.w, tc.c, got, tc.want)
		}
	}
}

func TestFitChips(t *testing.T) {
	tile := view.Rect{X: 100, Y: 50, W: 60, H: 60}
	p := view.Parts(tile, 1)
	fitAll := view.FitChips(p, 0)
	for n := 0; n <= 40; n++ {
		f := view.FitChips(p, n)
		if f.Visible+f.Overflow != n {
			t.Fatalf("n=%d: %d visible + %d overflow", n, f.Visible, f.Overflow)
		}
		for i := range f.Visible {
			r := view.ChipRect(p, i)
			if r.X+r.W > tile.X+tile.W || r.Y+r.H > tile.Y+tile.H || r.X < tile.X {
				t.Errorf("n=%d: chip %d %+v leaves the tile %+v", n, i, r, tile)
			}
		}
		if f.Overflow > 0 {
			x, _, h := view.OverflowLabel(p, f.Visible)
			if x+view.TextWidth("+"+strings.Repeat("9", len(itoa(f.Overflow))), h) > tile.X+tile.W {
				t.Errorf("n=%d: the +%d label leaves the tile", n, f.Overflow)
			}
		}
	}
	if fitAll.Visible != 0 || fitAll.Overflow != 0 {
		t.Errorf("empty queue: %+v", fitAll)
	}
	if f := view.FitChips(p, 3); f.Overflow != 0 {
		t.Errorf("three chips should fit a 60 px tile: %+v", f)
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestArcGeometry(t *testing.T) {
	a, b := view.Point{X: 0, Y: 100}, view.Point{X: 200, Y: 100}
	c := view.ArcControl(a, b)
	if c.Y >= 100 {
		t.Errorf("a left-to-right arc should bow upward (y down): control %+v", c)
	}
	if back := view.ArcControl(b, a); back.Y <= 100 {
		t.Errorf("the reply should bow the other way: %+v", back)
	}
	if p := view.QuadAt(a, c, b, 0); p != a {
		t.Errorf("t=0 gives %+v", p)
	}
	if p := view.QuadAt(a, c, b, 1); p != b {
		t.Errorf("t=1 gives %+v", p)
	}
	if p := view.QuadAt(a, c, b, 0.5); p.X != 100 {
		t.Errorf("the midpoint of a symmetric arc is at x=%v", p.X)
	}
}

func TestMeshBatches(t *testing.T) {
	var m view.Mesh
	red := view.Hex("#ff0000")
	for i := range 5000 {
		m.FillRoundRect(view.Rect{X: float32(i % 100), Y: float32(i / 100), W: 10, H: 10}, 3, red)
	}
	if len(m.Used()) < 2 {
		t.Fatalf("%d vertices in %d batches: expected a split", m.Vertices(), len(m.Used()))
	}
	for bi, b := range m.Used() {
		if len(b.V) > view.MaxBatchVertices {
			t.Errorf("batch %d has %d vertices", bi, len(b.V))
		}
		if len(b.I)%3 != 0 {
			t.Errorf("batch %d: %d indices, not triangles", bi, len(b.I))
		}
		for _, i := range b.I {
			if int(i) >= len(b.V) {
				t.Fatalf("batch %d: index %d beyond %d vertices", bi, i, len(b.V))
			}
		}
	}
	n := m.Vertices()
	m.Reset()
	if m.Vertices() != 0 {
		t.Errorf("Reset left %d vertices", m.Vertices())
	}
	for i := range 5000 {
		m.FillRoundRect(view.Rect{X: float32(i % 100), Y: float32(i / 100), W: 10, H: 10}, 3, red)
	}
	if m.Vertices() != n {
		t.Errorf("same shapes after Reset: %d vertices, want %d", m.Vertices(), n)
	}
}

// The feathered edge: fills keep full colour inside and fade to zero alpha just
// outside the shape.
func TestFillFeather(t *testing.T) {
	var m view.Mesh
	m.FillConvex([]view.Point{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 10, Y: 10}, {X: 0, Y: 10}}, view.Hex("#0072b2"))
	b := m.Used()[0]
	var in, out int
	for _, v := range b.V {
		switch v.A {
		case 1:
			in++
			if v.X < 0 || v.X > 10 || v.Y < 0 || v.Y > 10 {
				t.Errorf("opaque vertex outside the square: %+v", v)
			}
		case 0:
			out++
			if v.X > 0 && v.X < 10 && v.Y > 0 && v.Y < 10 {
				t.Errorf("transparent vertex inside the square: %+v", v)
			}
		}
	}
	if in != 4 || out != 4 {
		t.Errorf("%d opaque and %d transparent vertices, want 4 and 4", in, out)
	}
}

func TestText(t *testing.T) {
	for _, r := range "0123456789+" {
		if !view.HasGlyph(r) {
			t.Errorf("no glyph for %q", r)
		}
	}
	var m view.Mesh
	m.Text("128", 10, 20, 12, view.Hex("#ffffff"))
	w := view.TextWidth("128", 12)
	if m.Vertices() == 0 {
		t.Fatal("no geometry for 128")
	}
	pad := view.StrokeWidthFor(12) + 1
	for _, v := range m.Used()[0].V {
		if v.X < 10-pad || v.X > 10+w+pad || v.Y < 20-pad || v.Y > 32+pad {
			t.Fatalf("vertex %+v outside the text box", v)
		}
	}
	if view.TextWidth("12", 12) >= w || view.TextWidth("", 12) != 0 {
		t.Error("TextWidth does not grow with the text")
	}
}

func TestDrawTile(t *testing.T) {
	p := view.Dark()
	tile := view.Rect{X: 10, Y: 10, W: 60, H: 60}
	in := view.TileInput{CPU: 12, State: engine.CPURunning, Run: view.Chip{Thread: 3, Role: engine.RoleWaker},
		Queue: []view.Chip{{Thread: 4}, {Thread: 5, Incoming: true}}, SpinWindow: 256, SpinCap: 10000, Scale: 1,
		SelectedThread: -2}
	var m view.Mesh
	hits := view.DrawTile(&m, &p, tile, in, 1, nil)
	if len(hits) != 4 {
		t.Fatalf("%d hit regions, want the running chip, two queued chips and the tile", len(hits))
	}
	if last := hits[len(hits)-1]; last.Thread != -1 || last.CPU != 12 || last.Arm != 1 || last.Rect != tile {
		t.Errorf("tile hit %+v", last)
	}
	if hits[0].Thread != 3 {
		t.Errorf("first hit is thread %d, want the running thread 3", hits[0].Thread)
	}
	if !meshHas(&m, p.Waker) || !meshHas(&m, p.Running) {
		t.Error("the tile lacks the running fill or the waker diamond")
	}
	m.Reset()
	in.State = engine.CPUSpinning
	view.DrawTile(&m, &p, tile, in, 0, nil)
	if !meshHas(&m, p.Spinning) {
		t.Error("a spinning tile lacks its orange gauge")
	}
}

func meshHas(m *view.Mesh, c view.Color) bool {
	for _, b := range m.Used() {
		for _, v := range b.V {
			if v.A == 1 && math.Abs(float64(v.R)-float64(c.R)/255) < 1e-3 && math.Abs(float64(v.G)-float64(c.G)/255) < 1e-3 && math.Abs(float64(v.B)-float64(c.B)/255) < 1e-3 {
				return true
			}
		}
	}
	return false
}

func TestDrawFlight(t *testing.T) {
	p := view.Dark()
	a, b := view.Rect{X: 0, Y: 0, W: 50, H: 50}, view.Rect{X: 200, Y: 0, W: 50, H: 50}
	for _, k := range []engine.IPIKind{engine.IPIWakeup, engine.IPIPull, engine.IPIDonate} {
		var m view.Mesh
		view.DrawFlight(&m, &p, a, b, view.FlightLook{Kind: k, Progress: 0.5, Width: 2})
		if !meshHas(&m, p.IPIColor(k)) {
			t.Errorf("%v in the air is not drawn in its colour", k)
		}
		m.Reset()
		view.DrawFlight(&m, &p, a, b, view.FlightLook{Kind: k, Fade: 0.5, Width: 2})
		if m.Vertices() == 0 || meshHas(&m, p.IPIColor(k)) {
			t.Errorf("%v's trail should be drawn faded", k)
		}
	}
}

// The headline metric table: every workload kind has its metrics, the share
// card's are a subset in the same order, KVM's only under KVM; and the table's
// rules write a comparison the same way whichever surface asks.

// Task groups' chip colours: one per group, repeating past the palette,
// the plain chip colour for no group; none is a tile's fill.
func TestGroupColor(t *testing.T) {
	for _, p := range []view.Palette{view.Dark(), view.Light()} {
		n := len(p.Groups)
		if n < 6 {
			t.Fatalf("%s: %d group colours", p.Name, n)
		}
		if p.GroupColor(0) != p.Chip || p.GroupColor(n+1) != p.GroupColor(1) {
			t.Errorf("%s: no group or the group after the last", p.Name)
		}
		seen := map[view.Color]bool{}
		for g := 1; g <= n; g++ {
			c := p.GroupColor(g)
			if seen[c] || c == p.Running || c == p.Halted || c == p.Spinning || c == p.Waking || c == p.IRQ {
				t.Errorf("%s: group %d's colour %v repeats or is a tile's fill", p.Name, g, c)
			}
			seen[c] = true
		}
	}
}
