package playground

// The machine's topology on the stage: which arm's machine is drawn in
// frames (scene.go), what each tile says of its capacity, and the level a
// migration crosses. The engine's per-CPU table (engine.NewTopoTable, the
// table Sim.Topology returns) is built here from the arm's scenario, since
// the simulation itself runs in a worker.

import (
	"schedplay/engine"
	"schedplay/view"
)

// setTopology tables the arm's machine. A machine the engine refuses has
// no table: the arm shows the refusal, and its tiles lie flat.
func (a *Arm) setTopology() {
	tt, err := engine.NewTopoTable(a.Sc.Machine)
	if err != nil {
		return
	}
	a.topo = tt
	caps := make([]int, tt.NumCPUs())
	for i := range caps {
		caps[i] = tt.CPU(i).Capacity
	}
	a.capShown = view.CapacityShown(caps)
	_, framed := a.shape()
	// A flat machine of alike CPUs looks as it always did; any other shows
	// its migrations' levels (on a big.LITTLE machine, all between cores).
	a.levels = framed || a.capShown != nil
}

// shape is the arm's machine as the stage groups its tiles, and whether it
// has frames to draw: a level with more than one of anything (nodes, LLCs,
// SMT threads). A flat machine has none.
func (a *Arm) shape() (view.TopoShape, bool) {
	if a.topo == nil {
		return view.TopoShape{}, false
	}
	t := a.topo.Shape()
	s := view.TopoShape{Nodes: t.Nodes, LLCsPerNode: t.LLCsPerNode(), CoresPerLLC: t.CoresPerLLC, ThreadsPerCore: t.ThreadsPerCore}
	return s, t.Nodes > 1 || t.LLCs > 1 || t.ThreadsPerCore > 1
}

// crossing is the level a move from CPU from to CPU to crosses.
func (a *Arm) crossing(from, to int) view.Crossing {
	if a.topo == nil || from >= a.topo.NumCPUs() || to >= a.topo.NumCPUs() {
		return view.CrossCore
	}
	return view.CrossingOf(a.topo.CPU(from), a.topo.CPU(to))
}

// FrameUI is one frame of the machine's topology on the canvas, in CSS
// pixels: a node's or an LLC's with its label (the page writes it over the
// canvas, in the panes section), or an SMT core's (in State only).
type FrameUI struct {
	Arm   int     `json:"arm"`
	Level string  `json:"level"` // "node", "llc" or "core"
	Text  string  `json:"text,omitzero"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	W     float64 `json:"w"`
	H     float64 `json:"h"`
	// LabelX, LabelY and LabelH place the label's text (0 height: the
	// frame is too small for one, as on a phone's 64 CPUs).
	LabelX float64 `json:"label_x,omitzero"`
	LabelY float64 `json:"label_y,omitzero"`
	LabelH float64 `json:"label_h,omitzero"`
}

// frames lists the laid-out frames of every pane: nodes and LLCs, labelled
// where a label fits, and with cores the SMT cores' plates too.
func (l *layout) frames(cores bool) []FrameUI {
	if l.scale <= 0 {
		return nil
	}
	k := l.scale
	box := func(arm int, level string, r view.Rect) FrameUI {
		return FrameUI{Arm: arm, Level: level, X: float64(r.X) / k, Y: float64(r.Y) / k, W: float64(r.W) / k, H: float64(r.H) / k}
	}
	var out []FrameUI
	for ai, tg := range l.topos {
		labelled := map[view.Rect]view.TopoLabel{}
		if ai < len(l.labels) {
			for _, lb := range l.labels[ai] {
				labelled[lb.Frame] = lb
			}
		}
		add := func(level string, rs []view.Rect) {
			for _, r := range rs {
				f := box(ai, level, r)
				if lb, ok := labelled[r]; ok {
					f.Text, f.LabelX, f.LabelY, f.LabelH = lb.Text, float64(lb.At.X)/k, float64(lb.At.Y)/k, float64(lb.H)/k
				}
				out = append(out, f)
			}
		}
		add("node", tg.Nodes)
		add("llc", tg.LLCs)
		if cores {
			add("core", tg.Cores)
		}
	}
	return out
}
