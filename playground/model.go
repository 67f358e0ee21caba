package playground

import (
	"fmt"
	"slices"
	"strings"

	"schedplay/engine"
	"schedplay/playground/lesson"
	"schedplay/playground/runner"
	"schedplay/playground/urlstate"
	"schedplay/view"
)

// Options configure a Model.
type Options struct {
	Presets []Preset
	// Clock returns a monotonic time in milliseconds (performance.now in the
	// browser). The per-frame budget is measured with it.
	Clock func() float64
	// BudgetMs is the engine time an in-process runner gets per frame (default 4
	// ms): the rest of a 16 ms frame is left for drawing and the browser.
	BudgetMs float64
	// Runner runs the simulations (required): workers in the browser,
	// runner.NewLocal in native tests. The page's binary leaves the in-process
	// runner out: the engine's simulation code stays in the worker's binary.
	Runner runner.Runner
	// RunnerName says where the simulations run ("2 workers"), for state().
	RunnerName string
	// PolicyRunner starts the runner that can run a scenario's own sched_ext
	// policy (the policy workers), the first time an arm needs it; the model
	// then uses it for everything. Nil when Runner can already (RunsPolicy),
	// or nothing can.
	PolicyRunner func() (runner.Runner, string)
	// Fragment and Shared are the first Load's arguments (the page's URL).
	Fragment string
	Shared   []byte
	// Lessons are the lessons offered (lesson.Builtin in production).
	Lessons []lesson.Lesson
	// Saved holds the checkpoints jumps may start the arms from (saved.go);
	// nil for none.
	Saved *SavedStates
}

// Model is the playground's state; see the package doc. Each concern keeps its
// state in its own type: setup (reconcile.go) is the scenario and the knobs the
// URL gives it, view the URL's view keys, time (timecontrol.go) the clock, sel
// (selection.go) what the explanation is about.
type Model struct {
	presets  []Preset
	controls []Control // the panel's controls, from the engine's schema
	setup    setup
	view     urlstate.View // as the fragment writes it (normalised)
	problems []string      // from loading a fragment or share, shown until the next load
	message  string        // the last Set error or notice
	metaVer  int           // bumped whenever meta's content changes
	// edits counts the page's changes (Set, Load, commands, clicks): after one,
	// the read side looks at every section at once (snapshot.go).
	edits uint64
	read  readSide

	arms     []*Arm
	armTitle []string
	cmpLabel string // what the arms compare ("" for one run)
	// compareOpts are the comparisons offered for the current setup.
	compareOpts []Option

	run     runner.Runner
	runName string
	// newPolicyRun starts the policy workers (Options.PolicyRunner);
	// policyRun says run is them.
	newPolicyRun policyRunner
	policyRun    bool
	lastID       runner.ArmID
	inbox        []runner.Frame // scratch for Receive
	pipe         pipeline       // targets asked for (advance.go)
	jump         *jump          // a run ahead in progress (jump.go), or nil
	saved        *SavedStates   // checkpoints to start arms from (saved.go), or nil
	// savedSeen is the saved states' version a jump last looked at; resumed
	// is where the arms were last started from one (nil: from zero).
	savedSeen uint64
	resumed   *resumeNote
	// refused is the engine's refusal of the scenario, shown over the stage.
	refused string
	// workloadErr is the engine's refusal of the rt-app description last run
	// (SetWorkload), shown in the workload editor; nil when it ran.
	workloadErr *TextError

	time  timeControl
	sel   Selection
	chart view.Metric
	pal   view.Palette
	// sweep (sweep.go) and lesson (lesson.go) are sub-models: each keeps its
	// own state and shows in the page as its own sections.
	sweep  *Sweep // nil: none started since the scenario changed
	lesson lessonPlayer

	lay    layout
	mesh   view.Mesh
	hits   []view.Hit
	frames frameStats
}

// New returns a model showing the default preset; call Load to apply a URL.
func New(o Options) *Model {
	if o.Clock == nil {
		o.Clock = func() float64 { return 0 }
	}
	if o.BudgetMs <= 0 {
		o.BudgetMs = 4
	}
	if o.Runner == nil {
		panic("playground.New: Options.Runner is required")
	}
	m := &Model{presets: o.Presets, time: newTimeControl(o.Clock, o.BudgetMs), sel: noSelection(), pal: view.Dark(),
		run: o.Runner, runName: o.RunnerName, newPolicyRun: o.PolicyRunner, policyRun: o.PolicyRunner == nil, pipe: newPipeline(), controls: Controls(), saved: o.Saved,
		lesson: lessonPlayer{all: o.Lessons, cleanNs: -1}}
	m.Load(o.Fragment, o.Shared)
	return m
}

// Load replaces the whole state from a URL fragment and, for a /s/{id} page, the
// shared scenario it names. Anything rejected is reported by name in Problems and
// replaced by its default; Load always leaves a runnable model. A lesson step the
// fragment opens (lesson=NAME&step=N) gives the scenario when the fragment gives
// none, and runs to its moment (lesson.go).
func (m *Model) Load(fragment string, shared []byte) {
	st, probs := urlstate.Parse(fragment)
	m.loadState(st, probs, shared)
}

// loadState is Load of a parsed fragment.
func (m *Model) loadState(st urlstate.State, probs []urlstate.Problem, shared []byte) {
	m.edits++
	m.problems = m.problems[:0]
	for _, p := range probs {
		m.problems = append(m.problems, p.String())
	}
	m.message = ""
	st = m.lesson.openFromURL(m, st, shared != nil)
	m.apply(st, shared)
}

// apply shows st's scenario (or shared's) and view from time zero, adding to
// Problems what the engine rejects.
func (m *Model) apply(st urlstate.State, shared []byte) {
	var setupProbs []string
	m.setup, setupProbs = reconcileWith(m.presets, st.Preset, st.Knobs, st.Capacity, shared)
	m.problems = append(m.problems, setupProbs...)
	m.workloadErr = nil
	if st.Policy != "" || st.RTApp != "" {
		s, probs, err := m.setup.withOwn(st.Policy, st.RTApp)
		if err != nil {
			key := "policy"
			if strings.Contains(err.Error(), "workload.rtapp") {
				key = "rtapp"
			}
			m.problems = append(m.problems, key+": "+err.Error()+"; the scenario's own stands")
		} else {
			m.setup = s
			m.problems = append(m.problems, probs...)
		}
	}
	m.view = st.View
	// A finite run (hackbench) completes nothing until the end, nor does a
	// replayed trace complete requests: chart busy vCPUs.
	m.chart = view.Throughput
	if k := m.setup.base.Workload.Kind; k == engine.WorkloadHackbench || k == engine.WorkloadTrace {
		m.chart = view.BusyVCPUs
	}
	m.pal = view.PaletteNamed(st.View.Theme)
	m.time.setSpeed(st.View.Speed)
	m.sel = noSelection()
	m.dropSweep()
	m.rebuild()
	m.time.playing = st.View.Embed // embeds autoplay
	if at := st.View.AtNs; at > 0 {
		if msg := m.JumpTo(at); msg != "" {
			m.problems = append(m.problems, msg+"; starting at zero")
			m.view.AtNs = 0
		}
	}
	m.metaVer++
}

// urlState is the URL state that reproduces the model (on a lesson's script,
// the lesson and step: see scriptState).
func (m *Model) urlState() urlstate.State {
	if st, ok := m.lesson.scriptState(m); ok {
		return st
	}
	return urlstate.State{Preset: m.setup.src.preset.Name, Knobs: m.setup.knobs, Capacity: m.setup.src.capacity,
		Policy: m.setup.src.policy, RTApp: m.setup.src.rtapp, View: m.view}
}

// Fragment is the URL fragment (without '#') that reproduces the current state.
func (m *Model) Fragment() string { return urlstate.Encode(m.urlState()) }

// rebuild makes fresh simulations for the current scenario and compare mode, at
// simulated time zero, and asks for their first snapshot.
func (m *Model) rebuild() {
	for _, a := range m.arms {
		m.run.Stop(a.id)
	}
	m.pipe = newPipeline()
	m.jump, m.refused, m.resumed = nil, "", nil
	comp, err := compareOf(m.view, m.setup.base, m.controls)
	if err != nil {
		m.problems = append(m.problems, err.Error())
		comp = comparison{}
		m.view.Compare, m.view.CompareA, m.view.CompareB = "", "", ""
	}
	m.startFromExample(comp)
	arms, err := comp.resolve(m.setup.base)
	if err != nil {
		// A comparison the engine cannot run (say compare=workload.waker_cpu:0,40):
		// report it and fall back to the base scenario alone.
		m.problems = append(m.problems, err.Error())
		comp = comparison{}
		m.view.Compare, m.view.CompareA, m.view.CompareB = urlstate.CompareOff, "", ""
		arms = []engine.ArmScenario{{Scenario: m.setup.base}}
	}
	m.useRunnerFor(arms)
	m.arms = m.arms[:0]
	m.armTitle = m.armTitle[:0]
	for i, a := range arms {
		m.arms = append(m.arms, m.newArm(a.Name, a.Sets, a.Scenario))
		m.armTitle = append(m.armTitle, armTitle(i, len(arms), a.Name, a.Scenario))
	}
	m.cmpLabel = comp.label
	m.compareOpts = compareOptions(m.setup.base, m.controls, compareValue(m.view, m.setup.base))
	m.time.restart()
	m.lay = layout{}
	m.request(tgAdvance, 0, false, false)
	m.exchange(m.time.lastMs) // an in-process runner shows time zero at once
}

// newArm starts a simulation of sc in the runner, under a new ID.
func (m *Model) newArm(name string, set []string, sc engine.Scenario) *Arm {
	m.lastID++
	m.run.Start(m.lastID, sc, false)
	return newArm(m.lastID, name, set, sc, m.setup.src.published)
}

// usesClients reports whether workload.clients changes anything in sc, as the
// engine's schema says (a sweep varies it).
func (m *Model) usesClients(sc engine.Scenario) bool {
	c := findControl(m.controls, "workload.clients")
	return c != nil && c.knob.Applies(sc)
}

// findControl returns the control that sets path, or nil.
func findControl(controls []Control, path string) *Control {
	if i := slices.IndexFunc(controls, func(c Control) bool { return c.Path == path }); i >= 0 {
		return &controls[i]
	}
	return nil
}

// Set changes one knob (an engine path) or view key (speed, compare, theme, preset,
// hide, embed, chart, ghosts, t, lesson, step) and returns "" or a message naming what was
// rejected; a rejected change leaves everything as it was. Knob changes restart the
// run from time zero with the same seed; view changes keep it; t jumps to a moment
// (JumpTo).
func (m *Model) Set(path, value string) string {
	m.edits++
	m.message = ""
	msg := m.set(path, value)
	m.message = msg
	return msg
}

func (m *Model) set(path, value string) string {
	switch path {
	case "preset":
		if _, ok := findPreset(m.presets, value); !ok || value == "" {
			return fmt.Sprintf("preset: there is no preset %q", value)
		}
		v := m.view
		v.Compare, v.CompareA, v.CompareB = urlstate.CompareDefault, "", ""
		// The page's policy and workload stay: the editors' work is not lost
		// to a preset.
		m.loadState(urlstate.State{Preset: value, View: v, Policy: m.setup.src.policy, RTApp: m.setup.src.rtapp}, nil, nil)
		return ""
	case "speed":
		if _, _, err := urlstate.ParseSpeed(value); err != nil {
			return "speed: " + err.Error()
		}
		m.view.Speed = value
		m.time.setSpeed(value)
		return ""
	case "compare":
		mode, a, b, err := urlstate.ParseCompare(value)
		if err != nil {
			return "compare: " + err.Error()
		}
		old := m.view
		m.view.Compare, m.view.CompareA, m.view.CompareB = mode, a, b
		if _, err := compareOf(m.view, m.setup.base, m.controls); err != nil {
			m.view = old
			return err.Error()
		}
		m.view.AtNs = 0
		m.dropSweep()
		m.rebuild()
		m.sel = noSelection()
		return ""
	case "t":
		t, err := urlstate.ParseMoment(value) // as the URL writes it ("12s", "250ms")
		if err != nil {
			return "t: " + err.Error()
		}
		return m.JumpTo(t)
	case "lesson":
		return m.lesson.setLesson(m, value)
	case "step":
		return m.lesson.setStep(m, value)
	case "theme":
		if value != urlstate.ThemeDark && value != urlstate.ThemeLight {
			return fmt.Sprintf("theme: %q is not dark or light", value)
		}
		m.view.Theme = value
		if value == urlstate.ThemeDark {
			m.view.Theme = ""
		}
		m.pal = view.PaletteNamed(value)
		m.metaVer++
		return ""
	case "chart":
		return m.setChart(value)
	case "ghosts":
		switch value {
		case "0", "1":
			m.view.NoGhosts = value == "0"
		default:
			return fmt.Sprintf("ghosts: %q is not 0 or 1", value)
		}
		return ""
	case "hide", "embed":
		st, probs := urlstate.Parse("v=1&" + path + "=" + value)
		if len(probs) > 0 {
			return probs[0].String()
		}
		if path == "hide" {
			m.view.Hide = st.View.Hide
		} else {
			m.view.Embed = st.View.Embed
		}
		return ""
	}
	if path == "machine.topology" {
		return m.setMachine(value)
	}
	if path == "sched.policy" && value == "scx" && m.setup.base.Sched.Scx.Source == "" {
		return m.SetPolicy(policyExample()) // "your own policy" starts from the example
	}
	s, err := m.setup.withKnob(path, value)
	if err != nil {
		return err.Error()
	}
	m.setup = s
	m.view.AtNs = 0
	m.dropSweep()
	m.rebuild()
	return ""
}

// Arms exposes the arms (read-only use).
func (m *Model) Arms() []*Arm { return m.arms }

// Problems lists what Load rejected.
func (m *Model) Problems() []string { return m.problems }
