package playground

import (
	"testing"

	"schedplay/playground/runner"
	"schedplay/view"
)

func TestSelectionMoved(t *testing.T) {
	// Two arms of 8 vCPUs in grids of 4 columns.
	tests := []struct {
		desc   string
		from   Selection
		dx, dy int
		want   Selection
	}{
		{"right", Selection{0, 0, -1}, 1, 0, Selection{0, 1, -1}},
		{"down a row", Selection{0, 1, -1}, 0, 1, Selection{0, 5, -1}},
		{"past the last column into arm B's first", Selection{0, 7, -1}, 1, 0, Selection{1, 4, -1}},
		{"left of arm B's first column into arm A's last", Selection{1, 4, -1}, -1, 0, Selection{0, 7, -1}},
		{"left at arm A's edge stays", Selection{0, 4, -1}, -1, 0, Selection{0, 4, -1}},
		{"right at arm B's edge stays", Selection{1, 3, -1}, 1, 0, Selection{1, 3, -1}},
		{"below the grid stops at the last vCPU", Selection{0, 4, -1}, 0, 5, Selection{0, 7, -1}},
		{"above the grid stops at the first vCPU", Selection{0, 6, -1}, 0, -3, Selection{0, 0, -1}},
		{"a selected thread gives way to its vCPU's neighbour", Selection{0, 0, 12}, 1, 0, Selection{0, 1, -1}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if got := tc.from.moved(tc.dx, tc.dy, 2, 4, 8); got != tc.want {
				t.Errorf("%+v moved (%d, %d) = %+v, want %+v", tc.from, tc.dx, tc.dy, got, tc.want)
			}
		})
	}
}

func TestHitAt(t *testing.T) {
	hits := []view.Hit{
		{Rect: view.Rect{X: 10, Y: 10, W: 4, H: 4}, Arm: 0, CPU: 2, Thread: 7}, // a chip on the tile below
		{Rect: view.Rect{X: 0, Y: 0, W: 20, H: 20}, Arm: 0, CPU: 2, Thread: -1},
	}
	tests := []struct {
		desc string
		p    view.Point
		want Selection
	}{
		{"the chip drawn over the tile", view.Point{X: 11, Y: 11}, Selection{0, 2, 7}},
		{"the tile around it", view.Point{X: 2, Y: 2}, Selection{0, 2, -1}},
		{"nothing", view.Point{X: 30, Y: 2}, noSelection()},
	}
	for _, tc := range tests {
		if got := hitAt(hits, tc.p); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.desc, got, tc.want)
		}
	}
}

func TestMoveSelection(t *testing.T) {
	ps, _ := BuiltinPresets()
	m := New(Options{Presets: ps, Fragment: "#v=1&preset=tpcb-32vcpu", Runner: runner.NewLocal(func() float64 { return 0 })})
	m.Render(1400, 600, 1, 0) // lays out 2 arms
	cols := m.lay.grids[0].Cols
	m.MoveSelection(1, 0)
	if m.sel != (Selection{Arm: 0, CPU: 0, Thread: -1}) {
		t.Fatalf("first move selects %+v, want A's CPU 0", m.sel)
	}
	m.MoveSelection(0, 1)
	if m.sel.CPU != cols {
		t.Errorf("down from CPU 0 gives %d, want %d (the grid's column count)", m.sel.CPU, cols)
	}
	for range cols {
		m.MoveSelection(1, 0)
	}
	if m.sel.Arm != 1 || m.sel.CPU != cols {
		t.Errorf("right past the last column gives %+v, want arm B CPU %d", m.sel, cols)
	}
}

// The bridge passes Select whatever a script gives it: an arm the page does not
// show clears the selection instead of indexing past the arms.
func TestSelectOutsideTheArms(t *testing.T) {
	ps, _ := BuiltinPresets()
	for _, arm := range []int{-1, 2, 1 << 30} {
		m := New(Options{Presets: ps, Fragment: "#v=1&preset=tpcb-32vcpu", Runner: runner.NewLocal(func() float64 { return 0 })})
		m.Select(arm, 0, -1)
		if m.sel != noSelection() {
			t.Errorf("Select(%d, 0, -1) kept %+v", arm, m.sel)
		}
		m.MoveSelection(1, 0)
		_ = m.Snapshot(0)
		_ = m.State()
	}
}
