package play

import (
	"errors"
	"fmt"
	"html"
	"slices"
	"strconv"

	"schedplay/engine"
	"schedplay/wasm/urlstate"
	"schedplay/wasm/view"
)

// Options configure a Model.
type Options struct {
	Presets []Preset
	// Clock returns a monotonic time in milliseconds (performance.now in the
	// browser). The per-frame budget is measured with it.
	Clock func() float64
	// BudgetMs is the engine time allowed per frame while playing (default 4 ms):
	// the rest of a 16 ms frame is left for drawing and the browser.
	BudgetMs float64
	// Fragment and Shared are the first Load's arguments (the page's URL).
	Fragment string
	Shared   []byte
}

// Model is the playground's state; see the package doc.
type Model struct {
	presets  []Preset
	preset   Preset          // the base scenario's source (a shared scenario poses as one)
	presetSc engine.Scenario // preset decoded
	shared   bool
	url      urlstate.State // the state the fragment shows (normalised)
	problems []string       // from loading a fragment or share, shown until the next load
	message  string         // the last Set error or notice
	base     engine.Scenario
	baseVals map[string]string // base's knob values
	presetV  map[string]string // the preset's knob values (to keep the fragment minimal)
	controls []Control
	metaVer  int

	arms     []*Arm
	armTitle []string
	cmpLabel string

	playing  bool
	speedNs  int64
	speedMax bool
	carryNs  float64
	sliceNs  int64
	runToNs  int64
	lastMs   float64
	effSpeed float64 // measured simulated ns per wall second (smoothed)

	sel      Selection
	chart    view.Metric
	pal      view.Palette
	clock    func() float64
	budgetMs float64
	drawMs   float64 // smoothed Draw time (RecordDraw)
	settleMs float64 // smoothed time of taking snapshots after stepping
	sweep    *Sweep

	lay    layout
	mesh   view.Mesh
	hits   []view.Hit
	frames frameStats
}

// Selection is the clicked vCPU or thread (Thread -1 for a vCPU; CPU -1 for none).
type Selection struct {
	Arm    int `json:"arm"`
	CPU    int `json:"cpu"`
	Thread int `json:"thread"`
}

// New returns a model showing the default preset; call Load to apply a URL.
func New(o Options) *Model {
	if o.Clock == nil {
		o.Clock = func() float64 { return 0 }
	}
	if o.BudgetMs <= 0 {
		o.BudgetMs = 4
	}
	m := &Model{presets: o.Presets, clock: o.Clock, budgetMs: o.BudgetMs, runToNs: -1, sliceNs: 20_000,
		sel: Selection{CPU: -1, Thread: -1}, pal: view.Dark()}
	m.Load(o.Fragment, o.Shared)
	return m
}

// Load replaces the whole state from a URL fragment and, for a /s/{id} page, the
// shared scenario it names. Anything rejected is reported by name in Problems and
// replaced by its default; Load always leaves a runnable model.
func (m *Model) Load(fragment string, shared []byte) {
	st, probs := urlstate.Parse(fragment)
	m.problems = m.problems[:0]
	for _, p := range probs {
		m.problems = append(m.problems, p.String())
	}
	m.message = ""
	m.shared = false
	if shared != nil {
		sc, err := engine.DecodeScenario(shared)
		if err == nil {
			m.preset, m.presetSc = Preset{Data: shared}, sc
			m.shared = true
			st.Preset = ""
		} else {
			m.problems = append(m.problems, "shared scenario: "+err.Error()+"; showing the default preset")
		}
	}
	if !m.shared {
		// The requested preset, else the default one, else the engine's default.
		p, sc, ok := m.usePreset(st.Preset)
		if !ok && st.Preset != "" {
			p, sc, ok = m.usePreset("")
		}
		if !ok {
			sc = engine.DefaultScenario()
			p = Preset{}
			p.Data, _ = sc.Canonical()
		}
		m.preset, m.presetSc = p, sc
		st.Preset = p.Name
	}
	m.presetV = knobValues(m.presetSc)
	// Apply the knobs, dropping any the engine rejects (naming them).
	knobs := st.Knobs
	for {
		knobs = clampPinned(knobs, m.presetV, false)
		sc, err := decodeWith(m.preset.Data, knobs)
		if err == nil {
			m.setBase(sc, knobs)
			break
		}
		var fe *engine.FieldError
		bad := -1
		if errors.As(err, &fe) {
			bad = slices.IndexFunc(knobs, func(k urlstate.Knob) bool { return k.Path == fe.Path })
		}
		if bad < 0 {
			// A cross-field rule names a field no knob set: find the one knob
			// without which the scenario is valid.
			for i := len(knobs) - 1; i >= 0; i-- {
				if _, err2 := decodeWith(m.preset.Data, slices.Delete(slices.Clone(knobs), i, i+1)); err2 == nil {
					bad = i
					break
				}
			}
		}
		if bad < 0 {
			m.problems = append(m.problems, err.Error()+"; using the preset's values for every knob")
			sc, _ := decodeWith(m.preset.Data, nil)
			m.setBase(sc, nil)
			break
		}
		if fe == nil || fe.Path != knobs[bad].Path {
			m.problems = append(m.problems, knobs[bad].Path+": conflicts with the scenario ("+err.Error()+"); using the default")
			knobs = slices.Delete(slices.Clone(knobs), bad, bad+1)
			continue
		}
		m.problems = append(m.problems, knobs[bad].Path+": "+fe.Msg+"; using the default")
		knobs = slices.Delete(slices.Clone(knobs), bad, bad+1)
	}
	m.url = urlstate.State{Preset: st.Preset, Knobs: m.url.Knobs}
	// A finite run (hackbench) completes nothing until the end: chart busy vCPUs.
	m.chart = view.Throughput
	if m.base.Workload.Kind == engine.WorkloadHackbench {
		m.chart = view.BusyVCPUs
	}
	m.url.View = st.View
	m.pal = view.PaletteNamed(st.View.Theme)
	m.speedNs, m.speedMax = speedOf(st.View.Speed)
	m.sel = Selection{CPU: -1, Thread: -1}
	m.sweep = nil
	m.rebuild()
	m.playing = st.View.Embed // embeds autoplay
	m.metaVer++
}

// usePreset finds and decodes a preset ("" for the default), reporting why not.
func (m *Model) usePreset(name string) (Preset, engine.Scenario, bool) {
	p, ok := findPreset(m.presets, name)
	if !ok {
		if name != "" {
			m.problems = append(m.problems, fmt.Sprintf("preset: there is no preset %q; showing the default", name))
		}
		return p, engine.Scenario{}, false
	}
	sc, err := p.Decode()
	if err != nil {
		m.problems = append(m.problems, "preset "+p.Name+": "+err.Error()+"; showing the default")
		return p, sc, false
	}
	return p, sc, true
}

func decodeWith(data []byte, knobs []urlstate.Knob) (engine.Scenario, error) {
	sets := make([]string, len(knobs))
	for i, k := range knobs {
		sets[i] = k.Path + "=" + k.Value
	}
	return engine.DecodeScenario(data, sets...)
}

// setBase installs a decoded scenario and the knobs that produced it, dropping
// knobs that only repeat the preset (the fragment stays minimal) and ordering them
// by KnobPaths (the fragment is canonical).
func (m *Model) setBase(sc engine.Scenario, knobs []urlstate.Knob) {
	m.base = sc
	m.baseVals = knobValues(sc)
	if m.controls == nil {
		// What the engine accepts does not depend on the scenario; probe once.
		m.controls = Controls(engine.DefaultScenario())
	}
	var keep []urlstate.Knob
	for _, path := range engine.KnobPaths() {
		i := slices.IndexFunc(knobs, func(k urlstate.Knob) bool { return k.Path == path })
		if i < 0 {
			continue
		}
		if m.baseVals[path] == m.presetV[path] {
			continue
		}
		keep = append(keep, urlstate.Knob{Path: path, Value: urlValue(m.baseVals[path])})
	}
	m.url.Knobs = keep
}

// urlValue writes booleans as 1/0, the form the fragment uses.
func urlValue(v string) string {
	switch v {
	case "true":
		return "1"
	case "false":
		return "0"
	}
	return v
}

// armSpec is an arm before it is built.
type armSpec struct {
	name string
	set  []string
}

// compareMode resolves the default compare mode: the preset's arms when it has two
// or more, otherwise off.
func (m *Model) compareMode() string {
	c := m.url.View.Compare
	if c == urlstate.CompareDefault {
		if len(m.base.Arms) >= 2 {
			return urlstate.CompareArms
		}
		return urlstate.CompareOff
	}
	return c
}

// specs lists the arms the current compare mode asks for.
func (m *Model) specs() ([]armSpec, string, error) {
	v := m.url.View
	switch mode := m.compareMode(); mode {
	case urlstate.CompareOff:
		return []armSpec{{}}, "", nil
	case urlstate.CompareArms:
		if len(m.base.Arms) < 2 {
			return nil, "", errors.New("compare: this scenario has no arms to compare; showing one run")
		}
		var out []armSpec
		for _, a := range m.base.Arms[:2] {
			var set []string
			for _, k := range sortedKeys(a.Set) {
				set = append(set, k+"="+a.Set[k])
			}
			out = append(out, armSpec{a.Name, set})
		}
		return out, out[0].name + " ↔ " + out[1].name, nil
	default:
		label := mode
		ctl := m.control(mode)
		if ctl != nil {
			label = ctl.Label
		}
		name := func(val string) string {
			if ctl != nil && ctl.format != nil {
				return label + " " + ctl.format(canonicalKnob(mode, val))
			}
			return mode + "=" + val
		}
		return []armSpec{{name(v.CompareA), []string{mode + "=" + v.CompareA}},
			{name(v.CompareB), []string{mode + "=" + v.CompareB}}}, label + " " + shortVal(ctl, mode, v.CompareA) + " ↔ " + shortVal(ctl, mode, v.CompareB), nil
	}
}

func shortVal(ctl *Control, path, v string) string {
	if ctl != nil && ctl.format != nil {
		return ctl.format(canonicalKnob(path, v))
	}
	return v
}

// canonicalKnob writes a knob value the way knobValues reads it (booleans as
// true/false), for formatting.
func canonicalKnob(path, v string) string {
	x, err := engine.KnobValue(path, v)
	if err != nil {
		return v
	}
	switch x := x.(type) {
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64) // as knobValues writes floats
	}
	return fmt.Sprint(x)
}

// rebuild makes fresh simulations for the current scenario and compare mode, at
// simulated time zero.
func (m *Model) rebuild() {
	specs, label, err := m.specs()
	if err != nil {
		m.problems = append(m.problems, err.Error())
		specs, label = []armSpec{{}}, ""
		m.url.View.Compare, m.url.View.CompareA, m.url.View.CompareB = "", "", ""
	}
	m.arms = m.arms[:0]
	m.armTitle = m.armTitle[:0]
	for i, s := range specs {
		sc, err := m.base.WithKnobs(s.set...)
		if err == nil {
			var a *Arm
			a, err = newArm(s.name, s.set, sc)
			if err == nil {
				m.arms = append(m.arms, a)
				m.armTitle = append(m.armTitle, armTitle(i, len(specs), s.name, sc))
				continue
			}
		}
		// A comparison the engine cannot run (say compare=machine.vcpus:4,1000):
		// report it and fall back to the base scenario alone.
		m.problems = append(m.problems, "compare: "+err.Error()+"; showing one run")
		m.arms, m.armTitle, label = m.arms[:0], m.armTitle[:0], ""
		m.url.View.Compare, m.url.View.CompareA, m.url.View.CompareB = urlstate.CompareOff, "", ""
		a, err := newArm("", nil, m.base)
		if err != nil {
			// The base decoded and validated, so only an engine without an
			// implementation (say a new policy value) can land here.
			m.problems = append(m.problems, err.Error())
			sc := engine.DefaultScenario()
			a, _ = newArm("", nil, sc)
		}
		m.arms = append(m.arms, a)
		m.armTitle = append(m.armTitle, armTitle(0, 1, "", a.Sc))
		break
	}
	m.cmpLabel = label
	m.carryNs = 0
	m.runToNs = -1
	m.lay = layout{}
}

// workloadLabel says how big the workload is, in its own terms.
func workloadLabel(sc engine.Scenario) string {
	w := sc.Workload
	switch w.Kind {
	case engine.WorkloadHackbench:
		return fmt.Sprintf("%d tasks", 2*w.Hackbench.Groups*w.Hackbench.FDs)
	case engine.WorkloadIdle:
		return "idle"
	case engine.WorkloadCommit:
		return fmt.Sprintf("%d writers", w.Clients)
	}
	return fmt.Sprintf("%d clients", w.Clients)
}

// usesClients reports whether workload.clients means anything for the workload.
func usesClients(sc engine.Scenario) bool {
	k := sc.Workload.Kind
	return k == engine.WorkloadRequestServer || k == engine.WorkloadCommit
}

func armTitle(i, n int, name string, sc engine.Scenario) string {
	tail := fmt.Sprintf("%d vCPUs · %s", sc.Machine.VCPUs, workloadLabel(sc))
	if n <= 1 {
		return tail
	}
	return fmt.Sprintf("%c · %s · %s", 'A'+i, name, tail)
}

func (m *Model) control(path string) *Control {
	for i := range m.controls {
		if m.controls[i].Path == path {
			return &m.controls[i]
		}
	}
	return nil
}

// Fragment is the URL fragment (without '#') that reproduces the current state.
func (m *Model) Fragment() string { return urlstate.Encode(m.url) }

// Set changes one knob (an engine path) or view key (speed, compare, theme, preset,
// hide, embed) and returns "" or a message naming what was rejected; a rejected
// change leaves everything as it was. Knob changes restart the run from time zero
// with the same seed; view changes keep it.
func (m *Model) Set(path, value string) string {
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
		view := m.url.View
		view.Compare, view.CompareA, view.CompareB = urlstate.CompareDefault, "", ""
		m.Load(urlstate.Encode(urlstate.State{Preset: value, View: view}), nil)
		return ""
	case "speed":
		if _, _, err := urlstate.ParseSpeed(value); err != nil {
			return "speed: " + err.Error()
		}
		m.url.View.Speed = value
		m.speedNs, m.speedMax = speedOf(value)
		return ""
	case "compare":
		mode, a, b, err := urlstate.ParseCompare(value)
		if err != nil {
			return "compare: " + err.Error()
		}
		old := m.url.View
		m.url.View.Compare, m.url.View.CompareA, m.url.View.CompareB = mode, a, b
		if _, _, err := m.specs(); err != nil {
			m.url.View = old
			return err.Error()
		}
		playing := m.playing
		m.rebuild()
		m.playing = playing
		m.sweep = nil
		m.sel = Selection{CPU: -1, Thread: -1}
		return ""
	case "theme":
		if value != urlstate.ThemeDark && value != urlstate.ThemeLight {
			return fmt.Sprintf("theme: %q is not dark or light", value)
		}
		m.url.View.Theme = value
		if value == urlstate.ThemeDark {
			m.url.View.Theme = ""
		}
		m.pal = view.PaletteNamed(value)
		m.metaVer++
		return ""
	case "chart":
		i := slices.IndexFunc(chartMetrics(), func(o Option) bool { return o.Value == value })
		if i < 0 {
			return fmt.Sprintf("chart: %q is not one of throughput, busy, ipis, halts", value)
		}
		m.chart = view.Metric(i)
		return ""
	case "ghosts":
		switch value {
		case "0", "1":
			m.url.View.NoGhosts = value == "0"
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
			m.url.View.Hide = st.View.Hide
		} else {
			m.url.View.Embed = st.View.Embed
		}
		return ""
	}
	return m.setKnob(path, value)
}

// setKnob applies a knob override on top of the current ones.
func (m *Model) setKnob(path, value string) string {
	if _, err := engine.KnobValue(path, value); err != nil {
		return err.Error()
	}
	knobs := slices.Clone(m.url.Knobs)
	put := func(p, v string) {
		if i := slices.IndexFunc(knobs, func(k urlstate.Knob) bool { return k.Path == p }); i >= 0 {
			knobs[i].Value = v
		} else {
			knobs = append(knobs, urlstate.Knob{Path: p, Value: v})
		}
	}
	put(path, value)
	knobs = clampPinned(knobs, m.baseVals, true)
	sc, err := decodeWith(m.preset.Data, knobs)
	if err != nil {
		return err.Error()
	}
	m.setBase(sc, knobs)
	playing := m.playing
	m.rebuild()
	m.playing = playing
	m.sweep = nil
	return ""
}

// pinnedKnobs are the knobs that name a CPU a thread is pinned to.
func pinnedKnobs() []string {
	return []string{"workload.waker_cpu", "workload.spawn_cpu", "workload.commit_cpu", "workload.hackbench.parent_cpu"}
}

// clampPinned moves pinned threads onto the machine when the knobs give it fewer
// vCPUs than the CPU a thread is pinned to in cur (the values the knobs apply to):
// it adds knobs pinning them to the last vCPU, so a vCPU slider at 1 or a
// hand-written machine.vcpus=1 works instead of failing on workload.waker_cpu.
// With fixExplicit (the slider), pins among the knobs move too; without it (a
// link), an out-of-range pin the link gives is left to fail by name.
func clampPinned(knobs []urlstate.Knob, cur map[string]string, fixExplicit bool) []urlstate.Knob {
	i := slices.IndexFunc(knobs, func(k urlstate.Knob) bool { return k.Path == "machine.vcpus" })
	if i < 0 {
		return knobs
	}
	n, err := strconv.Atoi(knobs[i].Value)
	if err != nil || n < 1 {
		return knobs
	}
	out := slices.Clone(knobs)
	for _, p := range pinnedKnobs() {
		j := slices.IndexFunc(out, func(k urlstate.Knob) bool { return k.Path == p })
		if j >= 0 {
			if c, err := strconv.Atoi(out[j].Value); err == nil && c >= n && fixExplicit {
				out[j].Value = strconv.Itoa(n - 1)
			}
			continue
		}
		if c, err := strconv.Atoi(cur[p]); err == nil && c >= n {
			out = append(out, urlstate.Knob{Path: p, Value: strconv.Itoa(n - 1)})
		}
	}
	return out
}

// Play starts or resumes the run; at the horizon it starts over.
func (m *Model) Play() {
	if m.done() {
		m.Reset()
	}
	m.playing = true
}

// Pause stops the clock.
func (m *Model) Pause() { m.playing = false }

// Playing reports whether the clock runs.
func (m *Model) Playing() bool { return m.playing }

// Reset restarts the run at time zero (same scenario, same seed).
func (m *Model) Reset() {
	playing := m.playing
	m.rebuild()
	m.playing = playing && !m.done()
}

// Step pauses and processes one event of the first arm, bringing the other arm to
// the same simulated time.
func (m *Model) Step() {
	m.playing = false
	if m.done() {
		return
	}
	a0 := m.arms[0]
	ghosts := !m.url.View.NoGhosts
	a0.step(m.lastMs, ghosts)
	for _, a := range m.arms[1:] {
		a.runUntil(a0.Sim.NowNs(), m.lastMs, true, ghosts)
	}
	for _, a := range m.arms {
		a.settle(m.lastMs)
	}
}

// RunTo plays until simulated time t (ns) and pauses there exactly: the page's
// tests and embedders use it to compare runs at the same instant.
func (m *Model) RunTo(t int64) {
	m.runToNs = t
	m.playing = true
}

// done reports whether every arm reached its horizon.
func (m *Model) done() bool {
	for _, a := range m.arms {
		if !a.Sim.Done() {
			return false
		}
	}
	return true
}

// Select marks a vCPU or thread for the explanation line (cpu -1 clears).
func (m *Model) Select(arm, cpu, thread int) {
	m.sel = Selection{Arm: arm, CPU: cpu, Thread: thread}
}

// MoveSelection moves the selected vCPU by dx columns and dy rows of its grid
// (keyboard navigation of the canvas); with nothing selected it selects arm A's
// CPU 0. Moving past the last column of arm A continues into arm B's first.
func (m *Model) MoveSelection(dx, dy int) {
	if m.sel.CPU < 0 || m.sel.Arm >= len(m.arms) {
		m.sel = Selection{CPU: 0, Thread: -1}
		return
	}
	n := len(m.arms[m.sel.Arm].Snap.CPUs)
	cols := 1
	if m.sel.Arm < len(m.lay.grids) && m.lay.grids[m.sel.Arm].Cols > 0 {
		cols = m.lay.grids[m.sel.Arm].Cols
	}
	col, row := m.sel.CPU%cols, m.sel.CPU/cols
	col += dx
	row += dy
	arm := m.sel.Arm
	switch {
	case col >= cols && arm+1 < len(m.arms):
		arm, col = arm+1, 0
	case col < 0 && arm > 0:
		arm, col = arm-1, cols-1
	}
	col = min(max(col, 0), cols-1)
	cpu := min(max(row*cols+col, 0), n-1)
	m.sel = Selection{Arm: arm, CPU: cpu, Thread: -1}
}

// Click selects what is under a point given in CSS pixels on the canvas.
func (m *Model) Click(x, y float64) {
	p := view.Point{X: float32(x * m.lay.scale), Y: float32(y * m.lay.scale)}
	for _, h := range m.hits {
		if h.Rect.Contains(p) {
			m.Select(h.Arm, h.CPU, h.Thread)
			return
		}
	}
	m.sel = Selection{CPU: -1, Thread: -1}
}

// Arms exposes the arms (read-only use).
func (m *Model) Arms() []*Arm { return m.arms }

// Problems lists what Load rejected.
func (m *Model) Problems() []string { return m.problems }

func sortedKeys(mp map[string]string) []string {
	keys := make([]string, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// speedOf resolves a speed token, "" meaning the default.
func speedOf(tok string) (int64, bool) {
	if tok == "" {
		tok = DefaultSpeed
	}
	ns, max, err := urlstate.ParseSpeed(tok)
	if err != nil {
		ns, max, _ = urlstate.ParseSpeed(DefaultSpeed)
	}
	return ns, max
}

// DefaultSpeed is the speed a page opens with.
const DefaultSpeed = "20ms"

// Speeds are the speed picker's choices, slowest first.
func Speeds() []Option {
	return []Option{
		{"1us", "1 µs/s · follow each IPI"}, {"5us", "5 µs/s"}, {"20us", "20 µs/s"}, {"100us", "100 µs/s"},
		{"500us", "0.5 ms/s"}, {"2ms", "2 ms/s"}, {"5ms", "5 ms/s"}, {"20ms", "20 ms/s"}, {"50ms", "50 ms/s"},
		{"200ms", "0.2 s/s"}, {"1s", "1 s/s · real time"}, {"max", "max · as fast as the budget allows"},
	}
}

// EmbedCode is the <iframe> snippet for the current state, for a page at pageURL
// (origin and path, no fragment). The URL is escaped for an HTML attribute.
func (m *Model) EmbedCode(pageURL string) string {
	st := m.url
	st.View.Embed = true
	src := pageURL + "#" + urlstate.Encode(st)
	title := "schedplay"
	if m.cmpLabel != "" {
		title += ": " + m.cmpLabel
	}
	return `<iframe src="` + html.EscapeString(src) + `" title="` + html.EscapeString(title) +
		`" width="960" height="540" style="border:0;max-width:100%" loading="lazy"></iframe>`
}
