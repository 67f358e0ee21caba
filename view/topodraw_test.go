package view

import (
	"slices"
	"testing"

	"schedplay/engine"
)

func TestCrossingOf(t *testing.T) {
	cpu := func(node, llc, core, thread int) engine.TopoCPU {
		return engine.TopoCPU{Node: node, LLC: llc, Core: core, Thread: thread}
	}
	for _, tc := range []struct {
		a, b engine.TopoCPU
		want Crossing
	}{
		{cpu(0, 0, 0, 0), cpu(0, 0, 0, 0), CrossNone},
		{cpu(0, 0, 0, 0), cpu(0, 0, 0, 1), CrossSMT},
		{cpu(0, 0, 0, 1), cpu(0, 0, 1, 1), CrossCore},
		{cpu(0, 0, 0, 0), cpu(0, 1, 4, 0), CrossLLC},
		{cpu(0, 1, 4, 0), cpu(1, 2, 8, 0), CrossNode},
		// The widest level wins: another node is also another LLC and core.
		{cpu(1, 3, 12, 1), cpu(0, 0, 0, 1), CrossNode},
	} {
		if got := CrossingOf(tc.a, tc.b); got != tc.want {
			t.Errorf("CrossingOf(%+v, %+v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// Each level's arc differs from the others' by more than colour (dash or
// width), and its colour is none of the IPIs', so an arc is never read as
// an IPI, on either theme.
func TestCrossLooksDiffer(t *testing.T) {
	for _, p := range []Palette{Dark(), Light()} {
		levels := []Crossing{CrossSMT, CrossCore, CrossLLC, CrossNode}
		for i, a := range levels {
			la := p.CrossLook(a)
			for _, ipi := range []Color{p.IPIWakeup, p.IPIPull, p.IPIDonate} {
				if la.Color == ipi {
					t.Errorf("%s: the %v arc has an IPI's colour %v", p.Name, a, ipi.CSS())
				}
			}
			if la.Color == p.Stage {
				t.Errorf("%s: the %v arc is the stage's colour", p.Name, a)
			}
			for _, b := range levels[i+1:] {
				lb := p.CrossLook(b)
				if la.Color == lb.Color {
					t.Errorf("%s: %v and %v arcs share a colour", p.Name, a, b)
				}
				if la.Dash == lb.Dash && la.Width == lb.Width {
					t.Errorf("%s: %v and %v arcs differ by colour alone", p.Name, a, b)
				}
			}
		}
	}
}

func TestTopoLabels(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     TopoShape
		area  Rect
		scale float32
		want  []string
	}{
		{"flat has none", TopoShape{1, 1, 8, 1}, Rect{0, 0, 800, 400}, 1, nil},
		{"SMT alone has none", TopoShape{1, 1, 4, 2}, Rect{0, 0, 800, 400}, 1, nil},
		{"1n2l4c2t", TopoShape{1, 2, 4, 2}, Rect{0, 0, 900, 500}, 1, []string{"LLC 0", "LLC 1"}},
		{"2n2l4c2t", TopoShape{2, 1, 4, 2}, Rect{0, 0, 900, 500}, 2, []string{"node 0", "node 1", "LLC 0", "LLC 1"}},
		// LLCs numbered across the machine, as the engine numbers them.
		{"2n8l4c2t", TopoShape{2, 4, 4, 2}, Rect{0, 0, 1400, 900}, 1,
			[]string{"node 0", "node 1", "LLC 0", "LLC 1", "LLC 2", "LLC 3", "LLC 4", "LLC 5", "LLC 6", "LLC 7"}},
		// A phone's half of a comparison: frames too small for a label go without.
		{"2n8l4c2t on a phone", TopoShape{2, 4, 4, 2}, Rect{0, 0, 170, 400}, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := LayoutTopology(tc.s, tc.area, tc.scale)
			labels := TopoLabels(g, tc.scale)
			var got []string
			for _, l := range labels {
				got = append(got, l.Text)
				// The label sits in the frame's top band, above what it holds.
				if l.H > l.Frame.W || l.H > g.Size*TopoLabelBand {
					t.Errorf("%q is %v px tall in a frame %v with %v px tiles", l.Text, l.H, l.Frame, g.Size)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("labels %q, want %q", got, tc.want)
			}
		})
	}
	// A narrow LLC frame takes the short form.
	g := TopoGrid{LLCs: []Rect{{0, 0, 40, 60}}, Size: 36}
	if l := TopoLabels(g, 1); len(l) != 1 || l[0].Text != "L0" {
		t.Errorf("a 40 px wide LLC is labelled %+v, want L0", l)
	}
}

func TestCapacityShown(t *testing.T) {
	for _, tc := range []struct {
		caps, want []int
	}{
		{nil, nil},
		{[]int{1024, 1024, 1024}, nil},
		{[]int{512, 512}, nil}, // all alike, however slow: nothing to tell apart
		{[]int{1024, 1024, 512, 512}, []int{0, 0, 512, 512}},
		{[]int{800, 1024, 300}, []int{800, 0, 300}},
	} {
		if got := CapacityShown(tc.caps); !slices.Equal(got, tc.want) {
			t.Errorf("CapacityShown(%v) = %v, want %v", tc.caps, got, tc.want)
		}
	}
}

// A tile with a capacity draws more than one without, and the same tile
// without one draws what it always did.
func TestTileCapacity(t *testing.T) {
	p := Dark()
	draw := func(capacity int) *Mesh {
		var m Mesh
		DrawTile(&m, &p, Rect{0, 0, 80, 80}, TileInput{CPU: 5, Run: Chip{Thread: -1}, Scale: 1, Capacity: capacity}, 0, nil)
		return &m
	}
	if plain, withCap := draw(0), draw(512); withCap.Vertices() <= plain.Vertices() {
		t.Errorf("a tile with capacity 512 draws %d vertices, no more than without (%d)", withCap.Vertices(), plain.Vertices())
	}
}
