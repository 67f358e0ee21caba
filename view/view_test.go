package view_test

import (
	"math"
	"os"
	"regexp"
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

func TestFormat(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{view.Compact(7819), "7.82k"},
		{view.Compact(22722), "22.7k"},
		{view.Compact(950), "950"},
		{view.Compact(999.7), "1.00k"},
		{view.Compact(0.5), "0.50"},
		{view.Compact(0), "0"},
		{view.Compact(1.2e6), "1.20M"},
		{view.Compact(-3400), "−3.40k"},
		{view.Compact(math.NaN()), "–"},
		{view.Grouped(100000), "100\u2009000"},
		{view.Grouped(256), "256"},
		{view.Grouped(-1234567), "−1\u2009234\u2009567"},
		{view.Duration(850), "850 ns"},
		{view.Duration(2000), "2.00 µs"},
		{view.Duration(78_000), "78.0 µs"},
		{view.Duration(8.5e6), "8.50 ms"},
		{view.Duration(14e9), "14.0 s"},
		{view.Duration(0), "0"},
		{view.SimTime(2_431_507_000), "2.431\u2009507 s"},
		{view.SimTime(0), "0.000\u2009000 s"},
		{view.Percent(0.71), "71%"},
		{view.Percent(0.041), "4.1%"},
		{view.Percent(0), "0%"},
		{view.Percent(0.000003), "<0.1%"},
		{view.Percent(0.0006), "0.1%"},
		{view.VCPUs(9.84), "9.8"},
		{view.VCPUs(0.04), "0.04"},
		{view.VCPUs(0.996), "1.0"},
		{view.VCPUs(0), "0.0"},
		{view.Duration(99_960), "100 µs"},
		{view.Duration(99_900), "99.9 µs"},
		{view.Duration(9_996), "10.0 µs"},
		{view.Change(7819, 22722), "2.9x"},
		{view.Change(100, 300), "3.0x"},
		{view.Change(100, 199), "+99%"},
		{view.Change(100, 200), "2.0x"},
		{view.Change(1, 14), "14x"},
		{view.Change(8.5, 2.9), "−66%"},
		{view.Change(300, 100), "−67%"},
		{view.Change(100, 104.4), "+4.4%"},
		{view.Change(100, 102), "+2%"},
		{view.Change(100, 99.7), "−0.3%"},
		{view.Change(100, 100), "±0%"},
		{view.Change(100, 100.04), "±0%"},
		{view.Change(0, 5), ""},
		{view.Change(5, math.NaN()), ""},
		{view.Change(5, math.Inf(1)), ""},
		{view.Change(5, 0), "−100%"},
		{view.Ratio(1.0957), "1.10x"},
		{view.Ratio(0.341), "0.34x"},
		{view.Ratio(math.NaN()), "–"},
		{view.Seconds(3609), "3.6 s"},
		{view.Seconds(24000), "24 s"},
		{view.Seconds(332), "0.33 s"},
		{view.Seconds(12500), "12.5 s"},
		{view.Clip("abcdef", 4), "abc…"},
		{view.Clip("abc", 4), "abc"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestSeries(t *testing.T) {
	s := view.NewSeries(1_000_000, 8)
	// 1000 completions per ms, added at uneven times, for 40 ms.
	var tNs int64
	for _, step := range []int64{300_000, 2_700_000, 1_000_000, 6_000_000, 30_000_000} {
		tNs += step
		s.Add(tNs, view.Totals{Completed: tNs / 1000, BusyNs: 2 * tNs})
	}
	if len(s.Buckets) > 8 {
		t.Fatalf("%d buckets, above the maximum 8", len(s.Buckets))
	}
	var sum int64
	for _, b := range s.Buckets {
		sum += b.Completed
	}
	if sum != tNs/1000 {
		t.Errorf("buckets hold %d completions, want %d", sum, tNs/1000)
	}
	if s.WidthNs <= 1_000_000 {
		t.Errorf("width %d: the buckets should have merged", s.WidthNs)
	}
	for i, v := range s.Values(nil, view.Throughput) {
		if math.Abs(v-1e6) > 1e3 {
			t.Errorf("bucket %d throughput %v/s, want 1e6", i, v)
		}
	}
	for i, v := range s.Values(nil, view.BusyVCPUs) {
		if math.Abs(v-2) > 1e-6 {
			t.Errorf("bucket %d busy %v, want 2", i, v)
		}
	}
	if s.EndNs() != tNs {
		t.Errorf("EndNs %d, want %d", s.EndNs(), tNs)
	}
}

func TestCharts(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{{0, 1}, {7.3, 10}, {1800, 2000}, {23000, 25000}, {0.31, 0.5}, {100, 100}} {
		if got := view.NiceCeil(tc.in); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("NiceCeil(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	sc := view.Scale{X0: 0, X1: 10, Y1: 100}
	d := view.LinePath([]float64{0, 10}, []float64{0, 100}, sc)
	p := view.Plot()
	want := "M" + f1(float64(p.X)) + "," + f1(float64(p.Y+p.H)) + "L" + f1(float64(p.X+p.W)) + "," + f1(float64(p.Y))
	if d != want {
		t.Errorf("LinePath = %q, want %q", d, want)
	}
	if ticks := view.YTicks(sc, view.Compact); len(ticks) != 3 || ticks[2].Text != "100" {
		t.Errorf("YTicks = %+v", ticks)
	}
}

func f1(v float64) string {
	s := []byte{}
	n := int64(math.Round(v * 10))
	s = append(s, []byte(itoa(int(n/10)))...)
	return string(s) + "." + itoa(int(n%10))
}

func TestLatencyHistogram(t *testing.T) {
	edge := view.HistEdge(10) // 100 µs, a bin edge
	tests := []struct {
		desc    string
		buckets []engine.LatencyBucket
		want    map[int]int64 // bin -> count; every other bin empty
	}{
		{desc: "nothing measured", want: map[int]int64{}},
		{desc: "buckets inside one bin add up", buckets: []engine.LatencyBucket{
			{LowUs: 110, HighUs: 113, Count: 4}, {LowUs: 113, HighUs: 116.5, Count: 6}},
			want: map[int]int64{10: 10}},
		{desc: "a bucket straddling an edge goes where its midpoint is", buckets: []engine.LatencyBucket{
			{LowUs: edge - 1, HighUs: edge + 2, Count: 3}, {LowUs: edge - 2, HighUs: edge + 1, Count: 5}},
			want: map[int]int64{10: 3, 9: 5}},
		{desc: "below 1 µs and above 10 s land in the end bins", buckets: []engine.LatencyBucket{
			{LowUs: 0.1, HighUs: 0.2, Count: 2}, {LowUs: 2e7, HighUs: 2.1e7, Count: 1}},
			want: map[int]int64{0: 2, view.HistBins - 1: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			h := view.LatencyHistogram(tc.buckets)
			var n int64
			for i, c := range h.Counts {
				if c != tc.want[i] {
					t.Errorf("bin %d (%.3g µs) holds %d, want %d", i, view.HistEdge(i), c, tc.want[i])
				}
				n += c
			}
			if h.N != n {
				t.Errorf("N = %d, the bins hold %d", h.N, n)
			}
		})
	}
	if view.HistBin(math.NaN()) != 0 {
		t.Error("NaN must land in the first bin")
	}
}

// The page's stylesheet repeats the palettes so the page is right before the
// wasm loads: the dark one in :root, the light one's differences in
// :root.theme-light. A colour the light block leaves out is the dark one, so it
// must be the same in both palettes.
func TestStylesheetMatchesPalette(t *testing.T) {
	css, err := os.ReadFile("../static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	block := func(sel string) string {
		s := string(css)
		i := strings.Index(s, sel+" {")
		if i < 0 {
			t.Fatalf("style.css has no %s block", sel)
		}
		s = s[i:]
		return s[:strings.Index(s, "}")]
	}
	lookup := func(block, name string) (string, bool) {
		m := regexp.MustCompile(`(?:^|[\s;{])` + regexp.QuoteMeta(name) + `:\s*(#[0-9a-f]{6})`).FindStringSubmatch(block)
		if m == nil {
			return "", false
		}
		return m[1], true
	}
	root, light := block(":root"), block(":root.theme-light")
	dark, lightP := view.Dark(), view.Light()
	lightVars := lightP.CSSVars()
	for name, want := range dark.CSSVars() {
		got, ok := lookup(root, name)
		switch {
		case !ok:
			t.Errorf("style.css :root lacks %s", name)
		case got != want:
			t.Errorf("style.css %s = %s, dark palette %s", name, got, want)
		}
		wantLight := lightVars[name]
		if got, ok := lookup(light, name); ok {
			if got != wantLight {
				t.Errorf("style.css :root.theme-light %s = %s, light palette %s", name, got, wantLight)
			}
		} else if wantLight != want {
			t.Errorf("style.css :root.theme-light lacks %s: the light palette's %s is not the dark %s", name, wantLight, want)
		}
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
func TestMetricTable(t *testing.T) {
	for _, kind := range []string{engine.WorkloadRequestServer, engine.WorkloadCommit, engine.WorkloadHackbench, engine.WorkloadIdle, engine.WorkloadThreadPerConn} {
		for _, kvm := range []bool{true, false} {
			all, card := view.Metrics(kind, view.Shows{KVM: kvm}), view.CardMetrics(kind, view.Shows{KVM: kvm})
			ids := map[string]bool{}
			for _, d := range all {
				if ids[d.ID] || d.Label == "" || d.Short == "" || d.Key == "" || d.Value == nil || d.Format == nil {
					t.Errorf("%s: metric %+v is repeated or incomplete", kind, d.ID)
				}
				ids[d.ID] = true
				if d.KVMOnly && !kvm {
					t.Errorf("%s: %s shown off KVM", kind, d.ID)
				}
			}
			if len(card) < 3 || len(card) > 4 {
				t.Errorf("%s (kvm %v): the share card shows %d metrics", kind, kvm, len(card))
			}
			j := 0
			for _, c := range card {
				for j < len(all) && all[j].ID != c.ID {
					j++
				}
				if j == len(all) {
					t.Errorf("%s: card metric %s is not in the page's order", kind, c.ID)
				}
			}
		}
	}
	def := func(kind, id string) view.MetricDef {
		for _, d := range view.Metrics(kind, view.Shows{KVM: true}) {
			if d.ID == id {
				return d
			}
		}
		t.Fatalf("no %s metric %s", kind, id)
		return view.MetricDef{}
	}
	tput, runTime, idleOver, busy := def(engine.WorkloadRequestServer, "throughput"), def(engine.WorkloadHackbench, "elapsed"),
		def(engine.WorkloadRequestServer, "idle-over"), def(engine.WorkloadRequestServer, "busy")
	tests := []struct {
		desc string
		d    view.MetricDef
		a, b engine.Results
		want view.Shown
	}{
		{"a factor, better", tput, engine.Results{ThroughputPerS: 7819}, engine.Results{ThroughputPerS: 22722},
			view.Shown{A: "7.82k", B: "22.7k", Change: "2.9x", Verdict: view.IsBetter}},
		{"within 2% is no verdict", tput, engine.Results{ThroughputPerS: 1000}, engine.Results{ThroughputPerS: 1015},
			view.Shown{A: "1.00k", B: "1.01k", Change: "+1.5%"}},
		{"no baseline", tput, engine.Results{}, engine.Results{ThroughputPerS: 5}, view.Shown{A: "0", B: "5.00"}},
		{"unfinished", runTime, engine.Results{}, engine.Results{ElapsedS: 0.378},
			view.Shown{A: "> 3.60 s", B: "378 ms"}},
		{"tiny shares alike", idleOver, engine.Results{IdleWhileOverloadedFrac: 0.0003}, engine.Results{IdleWhileOverloadedFrac: 0.0004},
			view.Shown{A: "<0.1%", B: "<0.1%"}},
		{"no better way", busy, engine.Results{BusyVCPUsMean: 6.1}, engine.Results{BusyVCPUsMean: 27.4},
			view.Shown{A: "6.1", B: "27.4", Change: "4.5x"}},
		{"a fall for the better", idleOver, engine.Results{IdleWhileOverloadedFrac: 0.71}, engine.Results{IdleWhileOverloadedFrac: 0.04},
			view.Shown{A: "71%", B: "4.0%", Change: "−94%", Verdict: view.IsBetter}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if got := tc.d.Show(3_600_000_000, &tc.a, &tc.b); got != tc.want {
				t.Errorf("Show = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Published figures belong to a run of the configuration they were measured at
// (the point's and its arm's settings on the scenario), read as the engine reads
// them, whatever the run's seed, window or platform costs; a run that changes
// anything else about the system or its load is not that measurement.
func TestPublishedSet(t *testing.T) {
	sc := engine.DefaultScenario()
	sc.Arms = []engine.Arm{{Name: "off", Set: map[string]string{"sched.wake_pull": "false"}}, {Name: "on", Set: map[string]string{"sched.wake_pull": "1"}}}
	sc.Published = []engine.Published{
		{Arm: "off", Set: map[string]string{"workload.clients": "64"}, Values: map[string]float64{"throughput_per_s": 7819}},
		{Arm: "on", Set: map[string]string{"workload.clients": "64"}, Values: map[string]float64{"throughput_per_s": 22722}},
		{Arm: "on", Set: map[string]string{"workload.clients": "many"}, Values: map[string]float64{"throughput_per_s": 1}},
		{Arm: "gone", Values: map[string]float64{"throughput_per_s": 2}},
		{Arm: "off", Set: map[string]string{"workload.clients": "16"}, Relative: true, Values: map[string]float64{"throughput_per_s": 1}},
	}
	ps := view.NewPublishedSet(sc)
	for _, tc := range []struct {
		desc string
		sets []string
		want float64
	}{
		{"the off arm", []string{"sched.wake_pull=false", "workload.clients=64"}, 7819},
		{"the on arm, written another way", []string{"sched.wake_pull=on", "workload.clients=064"}, 22722},
		{"another seed, window and cost", []string{"sched.wake_pull=true", "seed=7", "duration_ms=900", "warmup_ms=100", "machine.costs.halted_wake_ns=30000"}, 22722},
		{"another load", []string{"sched.wake_pull=true", "workload.clients=32"}, 0},
		{"a rule the measurement did not have", []string{"sched.wake_pull=true", "sched.idle_spin.adaptive=true"}, 0},
		{"another machine", []string{"sched.wake_pull=true", "machine.vcpus=16"}, 0},
		{"a relative value is no figure", []string{"sched.wake_pull=false", "workload.clients=16"}, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			base := sc
			base.Published = nil // the unreadable point would refuse every run
			run, err := base.WithKnobs(tc.sets...)
			if err != nil {
				t.Fatal(err)
			}
			if got := ps.FiguresOf(run)["throughput_per_s"]; got != tc.want {
				t.Errorf("throughput %v, want %v", got, tc.want)
			}
		})
	}
}

// The row-lock cards: shown for a server whose runs take pgbench's row locks,
// after its latency, never on the share card, and written like the other
// cards.
func TestRowLockMetrics(t *testing.T) {
	locked := &engine.Results{RowLocks: engine.RowLockResults{TPCBScale: 100, WaitedTxnFrac: 0.367, WaitsPerS: 8847, WaitMeanUs: 1180}}
	fewer := &engine.Results{RowLocks: engine.RowLockResults{TPCBScale: 100, WaitedTxnFrac: 0.37, WaitsPerS: 10652, WaitMeanUs: 975}}
	unlocked := &engine.Results{ThroughputPerS: 25769}
	noWaits := &engine.Results{RowLocks: engine.RowLockResults{TPCBScale: 100}}
	ids := func(ds []view.MetricDef) string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return strings.Join(out, " ")
	}
	plain := "throughput mean p99 busy busy-host idle-over ipis halts"
	withLocks := "throughput mean p99 lock-waited lock-wait busy busy-host idle-over ipis halts"
	for _, tc := range []struct {
		desc  string
		kind  string
		locks bool
		want  string
	}{
		{"no row locks", engine.WorkloadRequestServer, false, plain},
		{"row locks", engine.WorkloadRequestServer, true, withLocks},
		{"another workload", engine.WorkloadCommit, true, "throughput wake p99 busy busy-host idle-over ipis halts"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			shows := view.Shows{KVM: true, RowLocks: tc.locks}
			if got := ids(view.Metrics(tc.kind, shows)); got != tc.want {
				t.Errorf("metrics %q, want %q", got, tc.want)
			}
			if got, want := ids(view.CardMetrics(tc.kind, shows)), ids(view.CardMetrics(tc.kind, view.Shows{KVM: true})); got != want {
				t.Errorf("share card %q, want its four as without row locks, %q", got, want)
			}
		})
	}
	def := func(id string) view.MetricDef {
		for _, d := range view.Metrics(engine.WorkloadRequestServer, view.Shows{KVM: true, RowLocks: true}) {
			if d.ID == id {
				return d
			}
		}
		t.Fatalf("no metric %s", id)
		return view.MetricDef{}
	}
	share, wait := def("lock-waited"), def("lock-wait")
	for _, tc := range []struct {
		desc string
		d    view.MetricDef
		a, b *engine.Results
		want view.Shown
	}{
		{"share alike", share, locked, fewer, view.Shown{A: "37%", B: "37%"}},
		{"shorter waits are better", wait, locked, fewer, view.Shown{A: "1.18 ms", B: "975 µs", Change: "−17%", Verdict: view.IsBetter}},
		{"no row locks in arm A", share, unlocked, locked, view.Shown{A: "–", B: "37%"}},
		{"no wait has ended", wait, noWaits, locked, view.Shown{A: "–", B: "1.18 ms"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := tc.d.Show(1e9, tc.a, tc.b); got != tc.want {
				t.Errorf("Show = %+v, want %+v", got, tc.want)
			}
		})
	}
}
