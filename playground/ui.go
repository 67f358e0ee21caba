package playground

import (
	"fmt"
	"strconv"

	"schedplay/engine"
	"schedplay/view"
)

// Meta is what the page needs to build its controls; it changes only when
// MetaVersion in UI changes (preset or theme switch).
type Meta struct {
	Version  int       `json:"version"`
	Presets  []Option  `json:"presets"`
	Controls []Control `json:"controls"`
	Groups   []string  `json:"groups"`
	Speeds   []Option  `json:"speeds"`
	// Charts are the over-time chart's choices (see chartMetrics).
	Charts []Option          `json:"charts"`
	CSS    map[string]string `json:"css"`
	Shared bool              `json:"shared"`
}

// Meta returns the control descriptions.
func (m *Model) Meta() Meta {
	mt := Meta{Version: m.metaVer, Controls: m.controls, Speeds: Speeds(), Charts: chartOptions(), CSS: m.pal.CSSVars(), Shared: m.setup.src.shared,
		Groups: []string{GroupMachine, GroupWorkload, GroupSched, GroupRun}}
	for _, p := range m.presets {
		mt.Presets = append(mt.Presets, Option{p.Name, p.Name})
	}
	return mt
}

// UI is everything the HTML around the canvas shows, refreshed a few times a second.
type UI struct {
	MetaVersion int    `json:"meta_version"`
	Time        string `json:"time"`
	NowNs       int64  `json:"now_ns"`
	EndNs       int64  `json:"end_ns"`
	Horizon     string `json:"horizon"`
	Playing     bool   `json:"playing"`
	Done        bool   `json:"done"`
	Speed       string `json:"speed"`
	EffSpeed    string `json:"eff_speed"`
	Fragment    string `json:"fragment"`
	Preset      string `json:"preset"`
	Description string `json:"description"`
	Compare     string `json:"compare"`
	// CompareOptions are the compare picker's choices: they follow the knobs,
	// as a comparison is offered only for a knob that applies.
	CompareOptions []Option `json:"compare_options"`
	Summary        string   `json:"summary"`
	Seed           string   `json:"seed"`
	Warmup         string   `json:"warmup"`
	// WarmupNs is where the measured window starts (the "skip warm-up" target).
	WarmupNs int64 `json:"warmup_ns"`
	// Jump is the run ahead in progress (a progress bar), if any.
	Jump *JumpUI `json:"jump,omitzero"`
	// Refused is the engine's refusal of the scenario, shown over the stage.
	Refused string `json:"refused,omitzero"`

	Controls []ControlValue `json:"controls"`
	Panes    []PaneUI       `json:"panes"`
	Cards    []Card         `json:"cards"`
	Explain  string         `json:"explain"`
	Problems []string       `json:"problems"`
	Message  string         `json:"message"`

	TimeChart Chart `json:"time_chart"`
	Sweep     Chart `json:"sweep"`
	Hist      Chart `json:"hist"`

	Theme  string   `json:"theme"`
	Hide   []string `json:"hide"`
	Embed  bool     `json:"embed"`
	Ghosts bool     `json:"ghosts"`
	// Chart is the over-time chart's metric (throughput, busy, ipis, halts).
	Chart string `json:"chart"`
	Perf  Perf   `json:"perf"`
}

// PaneUI positions an arm's HTML title over the canvas, in CSS pixels.
type PaneUI struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	W     float64 `json:"w"`
	Title string  `json:"title"`
}

// Chart is one SVG chart's content in the view.ChartW x view.ChartH viewBox.
type Chart struct {
	Title  string      `json:"title"`
	Lines  []Line      `json:"lines"`
	Bars   []Bar       `json:"bars,omitzero"`
	XTicks []view.Tick `json:"xticks"`
	YTicks []view.Tick `json:"yticks"`
	Empty  string      `json:"empty,omitzero"`
	Note   string      `json:"note,omitzero"`
	Button string      `json:"button,omitzero"`
}

// Line is one series; Dots are points drawn as rings (published numbers).
type Line struct {
	Name  string `json:"name"`
	D     string `json:"d"`
	Color string `json:"color"`
	Dots  []Dot  `json:"dots,omitzero"`
}

// Dot is a marker at a viewBox position.
type Dot struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Title string  `json:"title"`
}

// Bar is a histogram bar in viewBox units.
type Bar struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	W     float64 `json:"w"`
	H     float64 `json:"h"`
	Color string  `json:"color"`
	Title string  `json:"title"`
}

// UI builds the page update.
func (m *Model) UI() UI {
	a0 := m.arms[0]
	u := UI{
		MetaVersion: m.metaVer, NowNs: m.pipe.shownNs, EndNs: a0.endNs, WarmupNs: a0.Sc.WarmupMs * 1e6,
		Time: view.SimTime(m.pipe.shownNs), Horizon: view.Duration(float64(a0.endNs)), Jump: m.jumpUI(), Refused: m.refused,
		Playing: m.time.playing, Done: m.done(), Speed: m.view.Speed, Fragment: m.Fragment(),
		Preset: m.setup.src.preset.Name, Description: m.setup.src.sc.Description, Compare: compareValue(m.view, m.setup.base),
		CompareOptions: m.compareOpts, Summary: m.cmpLabel, Seed: strconv.FormatUint(m.setup.base.Seed, 10), Explain: m.Explain(),
		Problems: m.problems, Message: m.message, Theme: m.pal.Name, Hide: m.view.Hide,
		Embed: m.view.Embed, Ghosts: !m.view.NoGhosts, Chart: chartOf(m.chart).Value, Perf: m.Perf(),
	}
	if u.Speed == "" {
		u.Speed = DefaultSpeed
	}
	if m.time.playing {
		u.EffSpeed = view.Duration(m.time.effSpeed) + "/s"
	}
	if m.setup.src.shared {
		u.Preset = ""
	}
	shown := make([]engine.Scenario, len(m.arms))
	for i, a := range m.arms {
		shown[i] = a.Sc
	}
	for i := range m.controls {
		c := &m.controls[i]
		cv := c.valueOf(m.setup.vals.get(c.Path))
		if len(m.arms) > 1 {
			if vals := m.armValues(c); vals != "" {
				cv.Locked, cv.Note = true, vals
			}
		}
		// A compared knob stays in view even where it changes nothing: the arms
		// are named after it.
		cv.Hidden = !cv.Locked && !c.applies(shown)
		u.Controls = append(u.Controls, cv)
	}
	if l := &m.lay; l.scale > 0 {
		for i, p := range l.panes {
			if i < len(m.armTitle) {
				title := m.armTitle[i]
				if n := m.arms[i].sharedQueue(); n > 0 {
					title += fmt.Sprintf(" · %d in the shared queue", n)
				}
				u.Panes = append(u.Panes, PaneUI{X: float64(p.X) / l.scale, Y: float64(p.Y) / l.scale, W: float64(p.W) / l.scale, Title: title})
			}
		}
	}
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
	u.TimeChart = m.timeChart()
	u.Sweep = m.sweepChart()
	u.Hist = m.histChart()
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
