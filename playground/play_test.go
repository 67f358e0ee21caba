package playground_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"schedplay/engine"
	"schedplay/playground"
	"schedplay/playground/runner"
	"schedplay/view"
)

// fakeClock advances by step milliseconds every time it is read, so budget checks
// are deterministic.
type fakeClock struct{ now, step float64 }

func (c *fakeClock) read() float64 { c.now += c.step; return c.now }

// testPresets are two small scenarios: one with arms and published points, one
// without arms.
func testPresets(t *testing.T) []playground.Preset {
	t.Helper()
	fsys := fstest.MapFS{
		"small.json": {Data: []byte(`{"version":1,"name":"small","description":"a small pull A/B","seed":3,
			"duration_ms":200,"warmup_ms":50,"series_interval_ms":50,
			"machine":{"vcpus":8,"platform":"kvm"},
			"workload":{"kind":"request_server","clients":16,"waker_cpu":0,"spawn_cpu":0,"commit_cpu":1},
			"arms":[{"name":"pull off","set":{"sched.wake_pull":"false"}},{"name":"pull on","set":{"sched.wake_pull":"true"}}],
			"published":[{"arm":"pull off","set":{"workload.clients":"16"},"values":{"throughput_per_s":1000}},
			             {"arm":"pull on","set":{"workload.clients":"16"},"values":{"throughput_per_s":3000}}]}`)},
		"plain.json": {Data: []byte(`{"version":1,"name":"plain","seed":1,"duration_ms":100,"warmup_ms":10,
			"machine":{"vcpus":4,"platform":"native"},"workload":{"kind":"request_server","clients":4}}`)},
		"zbroken.json": {Data: []byte(`{"version":1,"machine":{"vcpus":0}}`)},
	}
	ps, probs := playground.LoadPresets(fsys)
	if len(ps) != 3 || len(probs) != 0 {
		t.Fatalf("LoadPresets: %d presets, problems %v", len(ps), probs)
	}
	return ps
}

func newModel(t *testing.T, frag string) (*playground.Model, *fakeClock) {
	t.Helper()
	c := &fakeClock{step: 0.01}
	m := playground.New(playground.Options{Presets: testPresets(t), Clock: c.read, BudgetMs: 5, Runner: runner.NewLocal(c.read)})
	m.Load(frag, nil)
	return m, c
}

func TestLoad(t *testing.T) {
	tests := []struct {
		desc      string
		frag      string
		preset    string
		arms      int
		vcpus     int
		probKeys  []string
		fragHas   []string
		fragLacks []string
	}{
		{desc: "empty: first preset", frag: "", preset: "plain", arms: 1, vcpus: 4, fragHas: []string{"preset=plain"}},
		{desc: "a broken preset is reported by field", frag: "#v=1&preset=zbroken", preset: "plain", arms: 1, vcpus: 4,
			probKeys: []string{"preset zbroken: machine.vcpus"}},
		{desc: "preset with arms compares them by default", frag: "#v=1&preset=small", preset: "small", arms: 2, vcpus: 8},
		{desc: "compare off", frag: "#v=1&preset=small&compare=off", preset: "small", arms: 1, vcpus: 8, fragHas: []string{"compare=off"}},
		{desc: "knob compare", frag: "#v=1&preset=plain&compare=sched.idle_spin.adaptive", preset: "plain", arms: 2, vcpus: 4},
		{desc: "knobs apply", frag: "#v=1&preset=small&machine.vcpus=16&seed=9", preset: "small", arms: 2, vcpus: 16,
			fragHas: []string{"machine.vcpus=16", "seed=9"}},
		{desc: "a knob equal to the preset is dropped", frag: "#v=1&preset=small&machine.vcpus=8", preset: "small", arms: 2, vcpus: 8,
			fragLacks: []string{"machine.vcpus"}},
		{desc: "out of range names the key", frag: "#v=1&preset=small&machine.vcpus=999&workload.clients=20", preset: "small", arms: 2, vcpus: 8,
			probKeys: []string{"machine.vcpus"}, fragHas: []string{"workload.clients=20"}, fragLacks: []string{"999"}},
		{desc: "unknown preset", frag: "#v=1&preset=nope", preset: "plain", arms: 1, vcpus: 4, probKeys: []string{"preset"}},
		{desc: "cross-field error names the field", frag: "#v=1&preset=small&workload.waker_cpu=12", preset: "small", arms: 2, vcpus: 8,
			probKeys: []string{"workload.waker_cpu"}},
		{desc: "compare arms without arms", frag: "#v=1&preset=plain&compare=arms", preset: "plain", arms: 1, vcpus: 4, probKeys: []string{"compare"}},
		{desc: "compare a knob the engine rejects", frag: "#v=1&preset=plain&compare=machine.vcpus:4,999", preset: "plain", arms: 1, vcpus: 4, probKeys: []string{"compare"}},
		{desc: "garbage", frag: "#%%%&&=&v=1&<b>=1", preset: "plain", arms: 1, vcpus: 4, probKeys: []string{`"%%%"`, `""`, `"<b>"`}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m, _ := newModel(t, tc.frag)
			st := m.State()
			if st.Preset != tc.preset || len(st.Arms) != tc.arms || len(st.CPUs) != tc.vcpus {
				t.Errorf("preset %q arms %d cpus %d, want %q %d %d", st.Preset, len(st.Arms), len(st.CPUs), tc.preset, tc.arms, tc.vcpus)
			}
			if len(st.Problems) != len(tc.probKeys) {
				t.Errorf("problems %q, want %d naming %v", st.Problems, len(tc.probKeys), tc.probKeys)
			}
			for i, k := range tc.probKeys {
				if i < len(st.Problems) && !strings.HasPrefix(st.Problems[i], k) {
					t.Errorf("problem %d = %q, want it to name %s", i, st.Problems[i], k)
				}
			}
			for _, s := range tc.fragHas {
				if !strings.Contains(st.Fragment, s) {
					t.Errorf("fragment %q lacks %q", st.Fragment, s)
				}
			}
			for _, s := range tc.fragLacks {
				if strings.Contains(st.Fragment, s) {
					t.Errorf("fragment %q has %q", st.Fragment, s)
				}
			}
			// Whatever came in, the fragment written back loads without problems.
			m2, _ := newModel(t, st.Fragment)
			if p := m2.Problems(); len(p) > 0 {
				t.Errorf("reloading %q: %v", st.Fragment, p)
			}
		})
	}
}

func TestSet(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small&compare=off")
	if msg := m.Set("machine.vcpus", "16"); msg != "" {
		t.Fatalf("Set vcpus: %s", msg)
	}
	if !strings.Contains(m.Fragment(), "machine.vcpus=16") || len(m.State().CPUs) != 16 {
		t.Errorf("after Set: fragment %q, %d CPUs", m.Fragment(), len(m.State().CPUs))
	}
	before := m.Fragment()
	for _, bad := range [][2]string{{"machine.vcpus", "1000"}, {"machine.vcpus", "x"}, {"nope.knob", "1"},
		{"speed", "warp"}, {"compare", "nope.nope"}, {"theme", "neon"}, {"preset", "nope"}, {"sched.idle_spin.floor", "999999999"}} {
		msg := m.Set(bad[0], bad[1])
		if msg == "" {
			t.Errorf("Set(%q, %q) accepted", bad[0], bad[1])
		}
		if m.Fragment() != before {
			t.Errorf("a rejected Set(%q) changed the fragment to %q", bad[0], m.Fragment())
		}
	}
	// Back to the preset's value: the knob leaves the fragment.
	m.Set("machine.vcpus", "8")
	if strings.Contains(m.Fragment(), "machine.vcpus") {
		t.Errorf("fragment %q keeps a knob equal to the preset", m.Fragment())
	}
	// Fewer vCPUs than the pinned threads' CPUs moves them rather than failing.
	if msg := m.Set("machine.vcpus", "1"); msg != "" {
		t.Fatalf("Set vcpus=1: %s", msg)
	}
	if f := m.Fragment(); !strings.Contains(f, "workload.commit_cpu=0") {
		t.Errorf("fragment %q: the commit thread should move to CPU 0", f)
	}
	m.Set("speed", "20us")
	m.Set("theme", "light")
	m.Set("hide", "charts")
	if f := m.Fragment(); !strings.Contains(f, "speed=20us") || !strings.Contains(f, "theme=light") || !strings.Contains(f, "hide=charts") {
		t.Errorf("view keys missing from %q", f)
	}
}

// Opening the fragment a model writes reproduces it exactly: same scenario, and the
// same numbers at the same simulated time.
func TestFragmentReproducesRun(t *testing.T) {
	m1, _ := newModel(t, "#v=1&preset=small")
	m1.Set("workload.clients", "24")
	m1.Set("seed", "11")
	m1.Set("compare", "sched.idle_spin.adaptive")
	m2, _ := newModel(t, m1.Fragment())
	if m2.Fragment() != m1.Fragment() {
		t.Fatalf("fragment %q reloads as %q", m1.Fragment(), m2.Fragment())
	}
	run := func(m *playground.Model) string {
		m.RunTo(40_000_000)
		m.Set("speed", "max")
		for i := 0; m.Playing() && i < 10000; i++ {
			m.Update(float64(i) * 16)
		}
		st := m.State()
		if st.NowNs != 40_000_000 {
			t.Fatalf("RunTo stopped at %d", st.NowNs)
		}
		for _, a := range st.Arms {
			if a.Metrics.Completed == 0 {
				t.Errorf("arm %s completed nothing by 40 ms", a.Name)
			}
		}
		// The runner's wall time is not part of the run (armsJSON).
		return armsJSON(t, m)
	}
	a, b := run(m1), run(m2)
	if a != b {
		t.Errorf("same fragment, different runs:\n%s\n%s", a, b)
	}
}

// Update never runs the engine much past its budget, whatever the speed.
func TestBudget(t *testing.T) {
	m, c := newModel(t, "#v=1&preset=small&speed=max")
	c.step = 0.2 // every clock read costs 0.2 ms of "wall time"
	m.Play()
	start := c.now
	m.Update(16)
	spent := c.now - start
	if spent > 5+2 { // the budget plus one slice's reads
		t.Errorf("Update used %.1f ms of a 5 ms budget", spent)
	}
	if m.State().NowNs == 0 {
		t.Error("no progress within the budget")
	}
	// Slow motion: 1 µs of simulated time per wall second, 100 ms of wall time.
	m2, _ := newModel(t, "#v=1&preset=small&speed=1us")
	m2.Play()
	m2.Update(1000)
	m2.Update(1100)
	if now := m2.State().NowNs; now != 100 {
		t.Errorf("100 ms at 1 µs/s reached %d ns, want 100", now)
	}
}

func TestStepAndReset(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small")
	m.Play()
	m.Step()
	if m.Playing() {
		t.Error("Step should pause")
	}
	for range 200 {
		m.Step()
	}
	st := m.State()
	if st.NowNs <= 0 {
		t.Fatalf("200 steps left the clock at %d", st.NowNs)
	}
	if st.Arms[0].Metrics.Completed+st.Arms[1].Metrics.Completed == 0 && st.CPUs[0].State == "halted" {
		t.Error("200 steps changed nothing")
	}
	m.Reset()
	if m.State().NowNs != 0 {
		t.Errorf("Reset left t=%d", m.State().NowNs)
	}
}

func TestRenderAndClick(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small")
	m.Set("speed", "max")
	m.RunTo(20_000_000)
	for i := 0; m.Playing() && i < 1000; i++ {
		m.Update(float64(i) * 16)
	}
	mesh := m.Render(1200, 600, 2, 0)
	if mesh.Vertices() == 0 {
		t.Fatal("empty frame")
	}
	tiles := 0
	var first view.Hit
	for _, h := range m.Hits() {
		if h.Thread < 0 {
			if tiles == 0 {
				first = h
			}
			tiles++
		}
	}
	if tiles != 16 || m.State().Tiles != 16 {
		t.Errorf("%d tile hits, state says %d, want 2 arms x 8", tiles, m.State().Tiles)
	}
	// Click the middle of the first tile, given in CSS pixels (scale 2).
	c := first.Rect.Center()
	m.Click(float64(c.X)/2, float64(c.Y)/2)
	if ex := m.State().Explain; !strings.HasPrefix(ex, "A · CPU 0") {
		t.Errorf("explanation after clicking CPU 0: %q", ex)
	}
	m.Click(-5, -5)
	if ex := m.State().Explain; ex != "" {
		t.Errorf("clicking nothing should clear the selection: %q", ex)
	}
}

func TestUI(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small&speed=max")
	m.RunTo(120_000_000)
	for i := 0; m.Playing() && i < 5000; i++ {
		m.Update(float64(i) * 16)
	}
	m.Render(1200, 600, 1, 0)
	u := m.Snapshot(0)
	cards := u.Cards.Cards
	if len(cards) != 8 || cards[0].B == "" || cards[0].Change == "" {
		t.Errorf("cards %+v", cards)
	}
	if u.Cards.Warmup != "" {
		t.Errorf("past the warm-up, still %q", u.Cards.Warmup)
	}
	// The preset publishes throughput at 16 clients for both arms.
	if got := cards[0].Published; got != "1.00k → 3.00k" {
		t.Errorf("published throughput %q, want the preset's 1.00k → 3.00k", got)
	}
	if got := cards[3].Published; cards[3].ID != "busy" || got != "" {
		t.Errorf("busy vCPUs has no published figure, got card %s with %q", cards[3].ID, got)
	}
	if p := u.Panes.Panes; len(p) != 2 || !strings.HasPrefix(p[0].Title, "A · pull off") {
		t.Errorf("panes %+v", p)
	}
	if len(u.TimeChart.Lines) != 2 || u.TimeChart.Lines[0].D == "" {
		t.Errorf("time chart %+v", u.TimeChart)
	}
	if len(u.Hist.Bars) == 0 && len(u.Hist.Lines) == 0 {
		t.Errorf("latency chart empty: %+v", u.Hist)
	}
	var locked []string
	for _, c := range u.Controls.Values {
		if c.Locked {
			locked = append(locked, c.ID+": "+c.Note)
		}
	}
	if !slices.Equal(locked, []string{"wake-pull: A off · B on"}) {
		t.Errorf("locked controls %v", locked)
	}
	// The sweep plots the published points at once and measured lines as it runs.
	if dots := len(u.Sweep.Lines[0].Dots) + len(u.Sweep.Lines[1].Dots); dots != 2 {
		t.Errorf("%d published dots, want 2", dots)
	}
	var opts []string
	for _, o := range u.Controls.CompareOptions {
		opts = append(opts, o.Value)
	}
	for _, want := range []string{"off", "arms", "sched.wake_pull", "machine.platform:native,kvm"} {
		if !slices.Contains(opts, want) {
			t.Errorf("compare options %v lack %s", opts, want)
		}
	}
}

func TestSweep(t *testing.T) {
	m, c := newModel(t, "#v=1&preset=small")
	m.StartSweep()
	sw := m.SweepState()
	if !slices.Contains(sw.Clients, 16) || !slices.Contains(sw.Clients, 8) {
		t.Errorf("sweep clients %v should include the published 16 and the vCPU count 8", sw.Clients)
	}
	for i := 0; !sw.Done() && i < 100000; i++ {
		c.step = 0.05
		m.Update(float64(i) * 16)
	}
	if !sw.Done() || sw.Err != "" {
		t.Fatalf("sweep not done: %v", sw.Err)
	}
	for ai, row := range sw.Tput {
		for i, v := range row {
			if math.IsNaN(v) || v <= 0 {
				t.Errorf("arm %d at %d clients: throughput %v", ai, sw.Clients[i], v)
			}
		}
	}
	if ch := m.Snapshot(0).Sweep; ch.Lines[0].D == "" || ch.Lines[1].D == "" {
		t.Errorf("sweep lines missing: %+v", ch)
	}
	// A knob change measures another scenario: the sweep is forgotten.
	m.Set("workload.clients", "24")
	if m.SweepState() != nil {
		t.Error("the sweep of the previous scenario is still shown")
	}
}

func TestShare(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=plain&compare=sched.wake_pull&machine.vcpus=6&speed=5ms")
	data, err := m.ScenarioJSON()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.DecodeScenario(data)
	if err != nil {
		t.Fatalf("the shared scenario does not decode: %v", err)
	}
	if sc.Machine.VCPUs != 6 || len(sc.Arms) != 2 || sc.Arms[1].Set["sched.wake_pull"] != "1" {
		t.Errorf("shared scenario: %d vCPUs, arms %+v", sc.Machine.VCPUs, sc.Arms)
	}
	if f := m.ShareFragment(); f != "v=1&compare=arms&speed=5ms" {
		t.Errorf("share fragment %q", f)
	}
	// Opening the share shows the same comparison and scenario.
	m2, _ := newModel(t, "")
	m2.Load(m.ShareFragment(), data)
	st := m2.State()
	if len(st.Arms) != 2 || len(st.CPUs) != 6 || len(m2.Problems()) > 0 {
		t.Errorf("opened share: %d arms, %d CPUs, problems %v", len(st.Arms), len(st.CPUs), m2.Problems())
	}
	m2.Load("", []byte(`{"version":1,"machine":{"vcpus":-3}}`))
	if p := m2.Problems(); len(p) != 1 || !strings.Contains(p[0], "machine.vcpus") {
		t.Errorf("a bad share should be reported by field: %v", p)
	}
	code := m.EmbedCode(`https://example.com/"x`)
	if !strings.Contains(code, "embed=1") || strings.Contains(code, `/"x`) || !strings.HasPrefix(code, "<iframe") {
		t.Errorf("embed code %s", code)
	}
}

func TestPublishedBesideModel(t *testing.T) {
	tests := []struct{ frag, want string }{
		{"#v=1&preset=small", "1.00k → 3.00k"},
		{"#v=1&preset=small&workload.clients=24", ""},
		{"#v=1&preset=small&compare=off", "1.00k"},
		{"#v=1&preset=small&compare=off&sched.wake_pull=1", "3.00k"},
		{"#v=1&preset=small&compare=sched.wake_pull", "1.00k → 3.00k"},
		{"#v=1&preset=plain", ""},
	}
	for _, tc := range tests {
		m, _ := newModel(t, tc.frag)
		if got := m.Snapshot(0).Cards.Cards[0].Published; got != tc.want {
			t.Errorf("%s: published %q, want %q", tc.frag, got, tc.want)
		}
	}
}

func TestPinnedThreadsFollowVCPUs(t *testing.T) {
	tests := []struct {
		desc, frag string
		vcpus      int
		probs      int
		fragHas    string
	}{
		{desc: "one vCPU by link", frag: "#v=1&preset=small&machine.vcpus=1", vcpus: 1, fragHas: "workload.commit_cpu=0"},
		{desc: "an explicit bad pin is named", frag: "#v=1&preset=small&machine.vcpus=2&workload.waker_cpu=5", vcpus: 2, probs: 1},
		{desc: "a conflict no knob names drops one knob", frag: "#v=1&preset=small&machine.vcpus=4&workload.commit_cpu=3&seed=5", vcpus: 4, fragHas: "seed=5"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m, _ := newModel(t, tc.frag)
			st := m.State()
			if len(st.CPUs) != tc.vcpus || len(st.Problems) != tc.probs {
				t.Errorf("%d CPUs, problems %v; want %d CPUs, %d problems", len(st.CPUs), st.Problems, tc.vcpus, tc.probs)
			}
			if !strings.Contains(st.Fragment, tc.fragHas) {
				t.Errorf("fragment %q lacks %q", st.Fragment, tc.fragHas)
			}
		})
	}
}
