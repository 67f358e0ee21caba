package playground

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"schedplay/engine"
	"schedplay/view"
)

// The snapshot's sections for the HTML around the canvas (snapshot.go says
// when each is looked at): each type is one section, and its builder the one
// place its fields are computed; State embeds the same ones.

// Meta is what the page builds its controls and pickers from: it changes only
// when Model.metaVer does (a preset, shared scenario or theme switch).
type Meta struct {
	Presets  []Option  `json:"presets"`
	Controls []Control `json:"controls"`
	Groups   []string  `json:"groups"`
	Speeds   []Option  `json:"speeds"`
	// Charts are the over-time chart's choices (see chartMetrics).
	Charts []Option          `json:"charts"`
	CSS    map[string]string `json:"css"`
	Shared bool              `json:"shared"`
	// Trace names the recorded trace the scenario replays ("" for none):
	// the preset picker shows it in place of a preset.
	Trace string `json:"trace,omitzero"`
	// Lessons are the lesson picker's choices.
	Lessons []LessonOption `json:"lessons"`
	// Policies are the example policies the editor starts from, Workloads
	// the example rt-app descriptions.
	Policies  []PolicyExample   `json:"policies"`
	Workloads []WorkloadExample `json:"workloads"`
}

// meta returns the control descriptions.
func (m *Model) meta() Meta {
	mt := Meta{Controls: m.controls, Speeds: Speeds(), Charts: chartOptions(), CSS: m.pal.CSSVars(), Shared: m.setup.src.shared,
		Groups: []string{GroupMachine, GroupWorkload, GroupSched, GroupRun}, Lessons: m.lesson.options(), Policies: policyExamples(), Workloads: workloadExamples()}
	for _, p := range m.presets {
		mt.Presets = append(mt.Presets, Option{p.Name, p.Name})
	}
	if m.setup.src.dataTrace() != nil {
		mt.Trace = m.setup.base.Name
	}
	return mt
}

// Settings are what the URL says about the page, and what names the run: they
// change when the page (or a lesson step) changes something.
type Settings struct {
	Fragment    string `json:"fragment"`
	Preset      string `json:"preset"`
	Description string `json:"description"`
	Compare     string `json:"compare"`
	// Summary is what the arms compare ("" for one run).
	Summary string   `json:"summary"`
	Seed    string   `json:"seed"`
	Speed   string   `json:"speed"`
	Theme   string   `json:"theme"`
	Hide    []string `json:"hide"`
	Embed   bool     `json:"embed"`
	Ghosts  bool     `json:"ghosts"`
	// Chart is the over-time chart's metric, a value of Meta.Charts.
	Chart string `json:"chart"`
	// Classes: an arm runs the Linux policy, whose chips mark the real-time
	// and deadline classes (the legend explains the marks then).
	Classes bool `json:"classes"`
	// Frames: the machine is drawn in node and LLC frames or SMT pairs;
	// Levels: migrations' arcs show the level they cross (topology.go).
	// The legend explains each only when the stage shows it.
	Frames bool `json:"frames"`
	Levels bool `json:"levels"`
}

func (m *Model) settings() Settings {
	s := Settings{Fragment: m.Fragment(), Preset: m.setup.src.preset.Name, Description: m.setup.src.sc.Description,
		Compare: compareValue(m.view, m.setup.base), Summary: m.cmpLabel, Seed: strconv.FormatUint(m.setup.base.Seed, 10),
		Speed: cmp.Or(m.view.Speed, DefaultSpeed), Theme: m.pal.Name, Hide: slices.Clone(m.view.Hide), Embed: m.view.Embed,
		Ghosts: !m.view.NoGhosts, Chart: chartOf(m.chart).Value,
		Classes: slices.ContainsFunc(m.arms, func(a *Arm) bool { return a.Sc.Sched.Policy == "linux" })}
	if len(m.arms) > 0 {
		_, s.Frames = m.arms[0].shape()
		s.Levels = m.arms[0].levels
	}
	if m.setup.src.shared {
		s.Preset = ""
	}
	return s
}

// Notices are what loading the page's URL rejected and the last Set's message.
type Notices struct {
	Problems []string `json:"problems"`
	Message  string   `json:"message"`
}

func (m *Model) notices() Notices {
	// Load refills problems in place: the section keeps its own copy.
	return Notices{Problems: slices.Clone(m.problems), Message: m.message}
}

// Clock is where the run is: it changes every frame while the run plays.
type Clock struct {
	NowNs   int64  `json:"now_ns"`
	SimTime string `json:"sim_time"`
	EndNs   int64  `json:"end_ns"`
	Horizon string `json:"horizon"`
	// WarmupNs is where the measured window starts (the "skip warm-up" target).
	WarmupNs int64 `json:"warmup_ns"`
	Playing  bool  `json:"playing"`
	Done     bool  `json:"done"`
	// EffSpeed is the speed achieved while playing ("" when paused).
	EffSpeed string `json:"eff_speed"`
	// Jump is the run ahead in progress (a progress bar), if any.
	Jump *JumpUI `json:"jump"`
	// Refused is the engine's refusal of the scenario ("" when it runs), shown
	// over the stage.
	Refused string `json:"refused"`
	// Resumed says the arms were started from a saved state, and where (or
	// that the saved state could not be used): a short notice by the clock.
	Resumed string `json:"resumed,omitzero"`
}

func (m *Model) clock() Clock {
	a0 := m.arms[0]
	c := Clock{NowNs: m.pipe.shownNs, SimTime: view.SimTime(m.pipe.shownNs), EndNs: a0.endNs, Horizon: view.Duration(float64(a0.endNs)),
		WarmupNs: a0.Sc.WarmupMs * 1e6, Playing: m.time.playing, Done: m.done(), Jump: m.jump.view(m.pipe.shownNs), Refused: m.refused,
		Resumed: m.resumedText()}
	if m.time.playing {
		c.EffSpeed = view.Duration(m.time.effSpeed) + "/s"
	}
	return c
}

// ControlsUI are the panel's controls as they stand and the comparisons offered:
// both follow the knobs, so they change when the arms are rebuilt.
type ControlsUI struct {
	Values []ControlValue `json:"values"`
	// CompareOptions are the compare picker's choices: a comparison is offered
	// only for a knob that applies.
	CompareOptions []Option `json:"compare_options"`
}

func (m *Model) controlsUI() ControlsUI {
	u := ControlsUI{CompareOptions: m.compareOpts}
	shown := make([]engine.Scenario, len(m.arms))
	for i, a := range m.arms {
		shown[i] = a.Sc
	}
	for i := range m.controls {
		c := &m.controls[i]
		cv := c.valueOf(m.setup.vals.get(c.Path))
		switch c.Path {
		case "machine.topology":
			cv = c.valueOf(machineChoice(m.setup.base))
		case "machine.vcpus":
			if note := vcpusNote(m.setup.base); note != "" {
				cv.Disabled, cv.Note = true, note
			}
		}
		if len(m.arms) > 1 {
			if vals := m.armValues(c); vals != "" {
				cv.Locked, cv.Note = true, vals
			}
		}
		// A compared knob stays in view even where it changes nothing: the arms
		// are named after it.
		cv.Hidden = !cv.Locked && !c.applies(shown)
		u.Values = append(u.Values, cv)
	}
	return u
}

// Panes are the arms' HTML titles over the canvas.
type Panes struct {
	Panes []PaneUI `json:"panes"`
	// Frames are the machine's node and LLC frames, whose labels the page
	// writes over the canvas (none on a flat machine).
	Frames []FrameUI `json:"frames,omitzero"`
}

// PaneUI positions an arm's HTML title over the canvas, in CSS pixels.
type PaneUI struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	W     float64 `json:"w"`
	Title string  `json:"title"`
	// Problem is the arm's refusal by the engine, or its policy's
	// ejection, when another arm plays on (shown over the pane).
	Problem string `json:"problem,omitzero"`
}

func (m *Model) panes() Panes {
	u := Panes{Frames: m.lay.frames(false)}
	if l := &m.lay; l.scale > 0 {
		for i, p := range l.panes {
			if i < len(m.armTitle) {
				title := m.armTitle[i]
				if n := m.arms[i].sharedQueue(); n > 0 {
					title += fmt.Sprintf(" · %d in the shared queue", n)
				}
				u.Panes = append(u.Panes, PaneUI{X: float64(p.X) / l.scale, Y: float64(p.Y) / l.scale, W: float64(p.W) / l.scale, Title: title,
					Problem: m.arms[i].problem(len(m.arms))})
			}
		}
	}
	return u
}

// Explanation is the sentence about the selection (Explain).
type Explanation struct {
	Text string `json:"text"`
}

func (m *Model) explain() Explanation { return Explanation{Text: m.Explain()} }

// CardsUI are the headline metric cards and the warm-up note over them.
type CardsUI struct {
	Cards  []Card `json:"cards"`
	Warmup string `json:"warmup"`
}

// cardsUI builds the headline cards.
func (m *Model) cardsUI() CardsUI {
	a0 := m.arms[0]
	var u CardsUI
	measured := true
	var rs []engine.Results
	for _, a := range m.arms {
		r, ok := a.shownResults()
		rs = append(rs, r)
		measured = measured && ok
	}
	if !measured && a0.Sc.WarmupMs > 0 {
		u.Warmup = "warming up: numbers are since the start until " + view.Duration(float64(a0.Sc.WarmupMs)*1e6) + ", then over the measured window"
	}
	u.Cards = m.cards(rs)
	return u
}

// armValues describes a compared control's value in each arm ("A off · B on"),
// or "" when the arms agree on it.
func (m *Model) armValues(c *Control) string {
	var vals []string
	differ := false
	for _, a := range m.arms {
		v := a.vals.get(c.Path)
		vals = append(vals, v)
		differ = differ || v != vals[0]
	}
	if !differ {
		return ""
	}
	out := ""
	for i, v := range vals {
		if i > 0 {
			out += " · "
		}
		out += string(rune('A'+i)) + " " + c.format(v)
	}
	return out
}

func (m *Model) armColor(i int) string {
	if len(m.arms) == 1 {
		return m.pal.Running.CSS()
	}
	if i == 0 {
		return m.pal.ArmA.CSS()
	}
	return m.pal.ArmB.CSS()
}
