package playground

// Selection: the vCPU or thread the explanation line is about, chosen by a click
// or tap on the canvas or by the arrow keys.

import "schedplay/view"

// Selection is the clicked vCPU or thread (Thread -1 for a vCPU; CPU -1 for none).
type Selection struct {
	Arm    int `json:"arm"`
	CPU    int `json:"cpu"`
	Thread int `json:"thread"`
}

// noSelection selects nothing.
func noSelection() Selection { return Selection{CPU: -1, Thread: -1} }

// moved returns the vCPU dx columns and dy rows away from s's, on a stage of arms
// grids of cols columns and cpus vCPUs each; s must select a vCPU of an arm below
// arms. Moving past the last column of an arm continues into the next arm's first,
// and the result stays on the grid.
func (s Selection) moved(dx, dy, arms, cols, cpus int) Selection {
	col, row := s.CPU%cols+dx, s.CPU/cols+dy
	arm := s.Arm
	switch {
	case col >= cols && arm+1 < arms:
		arm, col = arm+1, 0
	case col < 0 && arm > 0:
		arm, col = arm-1, cols-1
	}
	col = min(max(col, 0), cols-1)
	return Selection{Arm: arm, CPU: min(max(row*cols+col, 0), cpus-1), Thread: -1}
}

// hitAt selects the first region under p, or nothing.
func hitAt(hits []view.Hit, p view.Point) Selection {
	for _, h := range hits {
		if h.Rect.Contains(p) {
			return Selection{Arm: h.Arm, CPU: h.CPU, Thread: h.Thread}
		}
	}
	return noSelection()
}

// Select marks a vCPU or thread for the explanation line (cpu -1 clears). An
// arm the page does not show (a script's bad argument) clears it too.
func (m *Model) Select(arm, cpu, thread int) {
	m.edits++
	if arm < 0 || arm >= len(m.arms) {
		m.sel = noSelection()
		return
	}
	m.sel = Selection{Arm: arm, CPU: cpu, Thread: thread}
}

// MoveSelection moves the selected vCPU by dx columns and dy rows of its grid
// (keyboard navigation of the canvas); with nothing selected it selects arm A's
// CPU 0. Moving past the last column of arm A continues into arm B's first.
func (m *Model) MoveSelection(dx, dy int) {
	m.edits++
	if m.sel.CPU < 0 || m.sel.Arm >= len(m.arms) {
		m.sel = Selection{CPU: 0, Thread: -1}
		return
	}
	cols := 1
	if g := m.lay.grids; m.sel.Arm < len(g) && g[m.sel.Arm].Cols > 0 {
		cols = g[m.sel.Arm].Cols
	}
	m.sel = m.sel.moved(dx, dy, len(m.arms), cols, len(m.arms[m.sel.Arm].Snap.CPUs))
}

// Click selects what is under a point given in CSS pixels on the canvas.
func (m *Model) Click(x, y float64) {
	m.edits++
	m.sel = hitAt(m.hits, view.Point{X: float32(x * m.lay.scale), Y: float32(y * m.lay.scale)})
}
