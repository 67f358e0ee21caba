package playground

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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
	// Lessons are the lesson picker's choices.
	Lessons []LessonOption `json:"lessons"`
}

// meta returns the control descriptions.
func (m *Model) meta() Meta {
	mt := Meta{Controls: m.controls, Speeds: Speeds(), Charts: chartOptions(), CSS: m.pal.CSSVars(), Shared: m.setup.src.shared,
		Groups: []string{GroupMachine, GroupWorkload, GroupSched, GroupRun}, Lessons: m.lesson.options()}
	for _, p := range m.presets {
		mt.Presets = append(mt.Presets, Option{p.Name, p.Name})
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
}

func (m *Model) settings() Settings {
	s := Settings{Fragment: m.Fragment(), Preset: m.setup.src.preset.Name, Description: m.setup.src.sc.Description,
		Compare: compareValue(m.view, m.setup.base), Summary: m.cmpLabel, Seed: strconv.FormatUint(m.setup.base.Seed, 10),
		Speed: cmp.Or(m.view.Speed, DefaultSpeed), Theme: m.pal.Name, Hide: slices.Clone(m.view.Hide), Embed: m.view.Embed,
		Ghosts: !m.view.NoGhosts, Chart: chartOf(m.chart).Value}
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
}

func (m *Model) clock() Clock {
	a0 := m.arms[0]
	c := Clock{NowNs: m.pipe.shownNs, SimTime: view.SimTime(m.pipe.shownNs), EndNs: a0.endNs, Horizon: view.Duration(float64(a0.endNs)),
		WarmupNs: a0.Sc.WarmupMs * 1e6, Playing: m.time.playing, Done: m.done(), Jump: m.jump.view(m.pipe.shownNs), Refused: m.refused}
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
}

// PaneUI positions an arm's HTML title over the canvas, in CSS pixels.
type PaneUI struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	W     float64 `json:"w"`
	Title string  `json:"title"`
}

func (m *Model) panes() Panes {
	var u Panes
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

// Card is a headline metric: A's value, B's and the change in compare mode.
type Card struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	A      string `json:"a"`
	B      string `json:"b,omitzero"`
	Change string `json:"change,omitzero"`
	// Verdict is "better", "worse" or "" for the change.
	Verdict string `json:"verdict,omitzero"`
	Note    string `json:"note,omitzero"`
	// Published is the source's measured figure(s) for the same settings.
	Published string `json:"published,omitzero"`
}

// metric describes a headline card.
type metric struct {
	id, label string
	// higher is +1 when more is better, -1 when less is, 0 when neither.
	higher int
	value  func(r engine.Results, a *Arm) float64
	format func(v float64, a *Arm) string
	note   func(arms []*Arm) string
	// published is the key of the metric in a scenario's published values.
	published string
	// kvmOnly marks a view from the KVM host, shown when an arm runs on KVM.
	kvmOnly bool
}

// metrics are the headline cards for a workload: a finite run (hackbench) is
// judged by how long it took, a server by its throughput.
func metrics(kind string) []metric {
	vcpus := func(v float64, _ *Arm) string { return view.VCPUs(v) }
	compact := func(v float64, _ *Arm) string { return view.Compact(v) }
	first := metric{id: "throughput", label: "throughput /s", higher: +1,
		value: func(r engine.Results, _ *Arm) float64 { return r.ThroughputPerS }, format: compact, published: "throughput_per_s"}
	p99Label := "p99 latency"
	if kind == engine.WorkloadHackbench {
		// A hackbench run's "latency" is when each task finished, from the start.
		p99Label = "p99 task finish"
		first = metric{id: "elapsed", label: "run time", higher: -1,
			value: func(r engine.Results, _ *Arm) float64 {
				if r.ElapsedS == 0 {
					return math.NaN()
				}
				return r.ElapsedS
			},
			format: func(v float64, _ *Arm) string { return view.Duration(v * 1e9) },
			note: func(arms []*Arm) string {
				for _, a := range arms {
					if a.Results().ElapsedS == 0 {
						return "running"
					}
				}
				return ""
			}, published: "elapsed_s"}
	}
	return []metric{
		first,
		{id: "busy", label: "busy vCPUs", value: func(r engine.Results, _ *Arm) float64 { return r.BusyVCPUsMean }, format: vcpus,
			note: func(arms []*Arm) string { return fmt.Sprintf("of %d", arms[0].Sc.Machine.VCPUs) }, published: "busy_vcpus_mean"},
		// What the host sees of the vCPU threads: one that spins in the guest's
		// idle loop or that the host halt-polls is busy too, as the published
		// busy-vCPU figures were measured.
		{id: "busy-host", label: "busy vCPUs (host)", value: func(r engine.Results, _ *Arm) float64 { return r.BusyVCPUsHostMean }, format: vcpus,
			note: func(arms []*Arm) string {
				return fmt.Sprintf("of %d · incl. spin and host polling", arms[0].Sc.Machine.VCPUs)
			},
			published: "busy_vcpus_host_mean", kvmOnly: true},
		{id: "p99", label: p99Label, higher: -1,
			value: func(r engine.Results, _ *Arm) float64 {
				if r.LatencyUs.P99 == 0 {
					return math.NaN() // nothing completed yet
				}
				return r.LatencyUs.P99
			},
			format: func(v float64, _ *Arm) string { return view.Duration(v * 1e3) }, published: "latency_us.p99"},
		{id: "idle-over", label: "idle while overloaded", higher: -1,
			value:  func(r engine.Results, _ *Arm) float64 { return r.IdleWhileOverloadedFrac },
			format: func(v float64, _ *Arm) string { return view.Percent(v) },
			note: func(arms []*Arm) string {
				// The running counter: vCPU time spent idle while a runqueue waited.
				var parts []string
				for i, a := range arms {
					d := view.Duration(float64(a.Snap.Live.IdleOverNs))
					if len(arms) > 1 {
						d = string(rune('A'+i)) + " " + d
					}
					parts = append(parts, d)
				}
				return "of vCPU time · " + strings.Join(parts, " · ") + " so far"
			}, published: "idle_while_overloaded_frac"},
		{id: "ipis", label: "IPIs /s", value: func(r engine.Results, _ *Arm) float64 { return r.IPIsPerS.Total }, format: compact,
			published: "ipis_per_s.total"},
		// A halt is a VM exit only under a hypervisor; on bare metal it costs no
		// exit, and the card would name something that does not happen.
		{id: "halts", label: "halt VM exits /s", higher: -1, value: func(r engine.Results, _ *Arm) float64 { return r.HaltExitsPerS },
			format: compact, published: "halt_exits_per_s", kvmOnly: true},
	}
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
	onKVM := slices.ContainsFunc(m.arms, func(a *Arm) bool { return a.Sc.Machine.Platform == "kvm" })
	for _, mt := range metrics(m.setup.base.Workload.Kind) {
		if mt.kvmOnly && !onKVM {
			continue
		}
		c := Card{ID: mt.id, Label: mt.label}
		va := mt.value(rs[0], m.arms[0])
		c.A = fmtMetric(mt, va, m.arms[0])
		if mt.note != nil {
			c.Note = mt.note(m.arms)
		}
		// The published figures for the same settings, beside the model's.
		var pubs []string
		for _, a := range m.arms {
			if v, ok := a.published[mt.published]; ok {
				pubs = append(pubs, fmtMetric(mt, v, a))
			} else {
				pubs = append(pubs, "")
			}
		}
		switch {
		case len(pubs) == 2 && pubs[0] != "" && pubs[1] != "":
			c.Published = pubs[0] + " → " + pubs[1]
		case len(pubs) == 2 && (pubs[0] != "" || pubs[1] != ""):
			c.Published = "A " + cmp.Or(pubs[0], "–") + " · B " + cmp.Or(pubs[1], "–")
		case len(pubs) == 1 && pubs[0] != "":
			c.Published = pubs[0]
		}
		if len(m.arms) > 1 {
			vb := mt.value(rs[1], m.arms[1])
			c.B = fmtMetric(mt, vb, m.arms[1])
			// A change between values the card shows alike (an idle guest's
			// "<0.1% -> <0.1%") is below what the card can show, and would read
			// as a contradiction.
			if c.A != c.B {
				c.Change = view.Change(va, vb)
			}
			if c.Change != "" && mt.higher != 0 && math.Abs(vb-va) > 0.02*math.Abs(va) {
				if (vb > va) == (mt.higher > 0) {
					c.Verdict = "better"
				} else {
					c.Verdict = "worse"
				}
			}
		}
		u.Cards = append(u.Cards, c)
	}
	return u
}

func fmtMetric(mt metric, v float64, a *Arm) string {
	if math.IsNaN(v) {
		return "–"
	}
	return mt.format(v, a)
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
