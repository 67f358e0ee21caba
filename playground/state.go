package playground

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
)

// State is what window.schedplay.state() returns: enough for tests and embedding
// pages to check what the page shows and that a reload reproduces it. It is
// built from the snapshot's own sections (fresh on every call, not as last
// sent to the page), so its fields and the page's are computed once: Clock
// (now_ns, sim_time, end_ns, playing, done, jump, refused...), Settings
// (fragment, preset, compare, speed, theme, embed, chart...) and Notices
// (problems, message) appear as their fields, flat.
type State struct {
	Clock
	Settings
	Notices
	// Scenario is the base scenario's canonical JSON (before arm overrides).
	Scenario jsontext.Value `json:"scenario"`
	// Metrics and CPUs describe the first arm; Arms lists every arm.
	Metrics Metrics    `json:"metrics"`
	CPUs    []CPUState `json:"cpus"`
	Arms    []ArmState `json:"arms"`
	// Runner says where the simulations run: "2 workers", "1 worker", or "none"
	// when the browser would not start one.
	Runner string `json:"runner"`
	// Pending counts the targets asked of the runner and not yet shown: 0
	// once a pause has settled.
	Pending int `json:"pending"`
	Tiles   int `json:"tiles"`
	// Boxes are the drawn tiles in CSS pixels relative to the canvas, for tests
	// and embedding pages that point at a vCPU.
	Boxes []Box `json:"boxes"`
	// Frames are the drawn frames of the machine's topology (nodes, LLCs,
	// SMT cores), in CSS pixels like Boxes; none on a flat machine.
	Frames   []FrameUI `json:"frames"`
	Selected Selection `json:"selected"`
	Explain  string    `json:"explain"`
	// Lesson is the lesson panel (open false when no lesson is open).
	Lesson LessonState `json:"lesson"`
	Perf   Perf        `json:"perf"`
}

// Box is one vCPU tile on the canvas.
type Box struct {
	Arm int     `json:"arm"`
	CPU int     `json:"cpu"`
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
	W   float64 `json:"w"`
}

// ArmState is one arm in State.
type ArmState struct {
	Name    string     `json:"name"`
	Set     []string   `json:"set"`
	Metrics Metrics    `json:"metrics"`
	CPUs    []CPUState `json:"cpus"`
	Anim    Anim       `json:"anim"`
	// Events is the engine's event count; RunnerMs the runner's time on the
	// targets shown (wall ms), so events/RunnerMs is the engine's pace.
	Events   int64   `json:"events"`
	RunnerMs float64 `json:"runner_ms"`
	// Replays counts the times a pause replayed this arm from where it started
	// to meet an arm behind it (lead.go).
	Replays int `json:"replays"`
}

// Anim counts what the arm is animating: IPIs in the air, fading trails, ghost
// arcs of IPIs not sent, and sliding migrations.
type Anim struct {
	InAir  int `json:"in_air"`
	Trails int `json:"trails"`
	Ghosts int `json:"ghosts"`
	Slides int `json:"slides"`
}

// Metrics are an arm's running totals since time zero and the engine's results
// over the measured window.
type Metrics struct {
	Completed     int64          `json:"completed"`
	IPIs          int64          `json:"ipis"`
	HaltExits     int64          `json:"halt_exits"`
	Migrations    int64          `json:"migrations"`
	BusyNs        int64          `json:"busy_ns"`
	IdleOverNs    int64          `json:"idle_while_overloaded_ns"`
	SuppressedIPI int64          `json:"suppressed_ipis"`
	Results       engine.Results `json:"results"`
}

// CPUState is one vCPU in State.
type CPUState struct {
	ID         int    `json:"id"`
	State      string `json:"state"`
	Running    int    `json:"running"`
	Runqueue   int    `json:"runqueue"`
	Incoming   int    `json:"incoming"`
	Load       int    `json:"load"`
	SpinWindow int64  `json:"spin_window"`
}

// State builds the state() document.
func (m *Model) State() State {
	st := State{Clock: m.clock(), Settings: m.settings(), Notices: m.notices(), Runner: m.runName, Pending: len(m.pipe.pending),
		Lesson: LessonState{m.lesson.view(m), m.lesson.captionUI()}, Perf: m.Perf()}
	if data, err := m.setup.base.Canonical(); err == nil {
		st.Scenario = data
	}
	for _, a := range m.arms {
		as := ArmState{Name: a.Name, Set: a.Set, Metrics: armMetrics(a), Anim: Anim{Slides: len(a.migrations)}, Events: a.events, RunnerMs: a.busyMs, Replays: a.replays}
		for _, f := range a.flights {
			switch {
			case f.ghost:
				as.Anim.Ghosts++
			case f.landedMs == 0:
				as.Anim.InAir++
			default:
				as.Anim.Trails++
			}
		}
		for _, c := range a.Snap.CPUs {
			as.CPUs = append(as.CPUs, CPUState{ID: c.ID, State: c.State.String(), Running: c.Running,
				Runqueue: len(c.Runqueue), Incoming: len(c.Incoming), Load: c.Load, SpinWindow: c.SpinWindow})
		}
		st.Arms = append(st.Arms, as)
	}
	st.Metrics, st.CPUs = st.Arms[0].Metrics, st.Arms[0].CPUs
	for ai, g := range m.lay.grids {
		st.Tiles += len(g.Tiles)
		for ci, r := range g.Tiles {
			s := m.lay.scale
			st.Boxes = append(st.Boxes, Box{Arm: ai, CPU: ci, X: float64(r.X) / s, Y: float64(r.Y) / s, W: float64(r.W) / s})
		}
	}
	st.Frames = m.lay.frames(true)
	st.Selected, st.Explain = m.sel, m.Explain()
	return st
}

func armMetrics(a *Arm) Metrics {
	l := &a.Snap.Live
	return Metrics{Completed: l.Completed, IPIs: l.IPIs[0] + l.IPIs[1] + l.IPIs[2], HaltExits: l.HaltExits,
		Migrations: l.Migrations, BusyNs: l.BusyNs, IdleOverNs: l.IdleOverNs, SuppressedIPI: l.SuppressedIPI,
		Results: a.Results()}
}

// StateJSON encodes State for the JavaScript bridge.
func (m *Model) StateJSON() ([]byte, error) { return json.Marshal(m.State()) }
