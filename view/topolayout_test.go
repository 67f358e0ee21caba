package view

import "testing"

func inside(in, out Rect) bool {
	return in.X >= out.X && in.Y >= out.Y && in.X+in.W <= out.X+out.W && in.Y+in.H <= out.Y+out.H
}

func overlap(a, b Rect) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// disjoint checks that no two of rs overlap.
func disjoint(t *testing.T, what string, rs []Rect) {
	t.Helper()
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if overlap(rs[i], rs[j]) {
				t.Errorf("%s %d %v and %d %v overlap", what, i, rs[i], j, rs[j])
			}
		}
	}
}

func TestLayoutTopology(t *testing.T) {
	for _, tc := range []struct {
		name               string
		s                  TopoShape
		area               Rect
		cores, llcs, nodes int
	}{
		{"flat", TopoShape{1, 1, 8, 1}, Rect{0, 0, 800, 400}, 0, 0, 0},
		{"1n2l4c2t", TopoShape{1, 2, 4, 2}, Rect{10, 20, 1200, 500}, 8, 2, 0},
		{"2n2l4c2t", TopoShape{2, 1, 4, 2}, Rect{0, 0, 1200, 500}, 8, 2, 2},
		{"2n8l4c2t", TopoShape{2, 4, 4, 2}, Rect{0, 0, 1600, 900}, 32, 8, 2},
		{"tall", TopoShape{2, 2, 2, 1}, Rect{0, 0, 300, 1000}, 0, 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := LayoutTopology(tc.s, tc.area, 1)
			if len(g.Tiles) != tc.s.CPUs() || len(g.Cores) != tc.cores || len(g.LLCs) != tc.llcs || len(g.Nodes) != tc.nodes {
				t.Fatalf("%d tiles, %d cores, %d LLCs, %d nodes; want %d, %d, %d, %d",
					len(g.Tiles), len(g.Cores), len(g.LLCs), len(g.Nodes), tc.s.CPUs(), tc.cores, tc.llcs, tc.nodes)
			}
			if g.Size < MinTile {
				t.Errorf("tiles of %v px", g.Size)
			}
			disjoint(t, "tile", g.Tiles)
			disjoint(t, "core", g.Cores)
			disjoint(t, "LLC", g.LLCs)
			disjoint(t, "node", g.Nodes)
			// Containment follows the CPU numbering: threads first, then
			// cores, LLCs, nodes.
			perCore := tc.s.ThreadsPerCore
			perLLC := perCore * tc.s.CoresPerLLC
			perNode := perLLC * tc.s.LLCsPerNode
			for i, r := range g.Tiles {
				if r.W != g.Size || r.H != g.Size || !inside(r, tc.area) {
					t.Errorf("tile %d %v (size %v) outside %v", i, r, g.Size, tc.area)
				}
				if g.Cores != nil && !inside(r, g.Cores[i/perCore]) {
					t.Errorf("tile %d %v outside its core %v", i, r, g.Cores[i/perCore])
				}
				if g.LLCs != nil && !inside(r, g.LLCs[i/perLLC]) {
					t.Errorf("tile %d %v outside its LLC %v", i, r, g.LLCs[i/perLLC])
				}
				if g.Nodes != nil && !inside(r, g.Nodes[i/perNode]) {
					t.Errorf("tile %d %v outside its node %v", i, r, g.Nodes[i/perNode])
				}
			}
			// SMT siblings are a pair side by side.
			if perCore == 2 && (g.Tiles[0].Y != g.Tiles[1].Y || g.Tiles[1].X <= g.Tiles[0].X) {
				t.Errorf("siblings 0 %v and 1 %v are not side by side", g.Tiles[0], g.Tiles[1])
			}
		})
	}
	if g := LayoutTopology(TopoShape{1, 1, 4, 1}, Rect{0, 0, 0, 100}, 1); len(g.Tiles) != 0 {
		t.Errorf("an empty area has tiles: %v", g.Tiles)
	}
}
