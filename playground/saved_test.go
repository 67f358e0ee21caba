package playground_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/playground"
	"schedplay/playground/lesson"
	"schedplay/playground/runner"
)

// countingRunner is an in-process runner that counts the arms started from a
// checkpoint.
type countingRunner struct {
	*runner.Local
	startedFrom int
}

func (c *countingRunner) StartFrom(id runner.ArmID, sc engine.Scenario, ck []byte) {
	c.startedFrom++
	c.Local.StartFrom(id, sc, ck)
}

// bundledStore saves, as the page's bundle does, the states of every scenario
// BundledStates lists for the test presets, with one more moment each (at).
func bundledStore(t *testing.T, presets []playground.Preset, at ...int64) (*playground.SavedStates, *[]engine.ScenarioKey) {
	t.Helper()
	var asked []engine.ScenarioKey
	st := playground.NewSavedStates(func(k engine.ScenarioKey) { asked = append(asked, k) })
	bs, err := playground.BundledStates(presets, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		moments := slices.Sorted(slices.Values(append(slices.Clone(b.AtNs), at...)))
		pack, err := runner.SaveStates(b.Scenario, slices.Compact(moments))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Add(pack, playground.SavedWithPage); err != nil {
			t.Fatal(err)
		}
	}
	return st, &asked
}

// savedModel is newModel with saved states and a counting runner.
func savedModel(t *testing.T, frag string, saved *playground.SavedStates) (*playground.Model, *countingRunner) {
	t.Helper()
	c := &fakeClock{step: 0.01}
	r := &countingRunner{Local: runner.NewLocal(c.read)}
	m := playground.New(playground.Options{Presets: testPresets(t), Clock: c.read, BudgetMs: 5, Runner: r, Saved: saved})
	m.Load(frag, nil)
	return m, r
}

// settle runs frames until no jump is under way and nothing is pending.
func settle(t *testing.T, m *playground.Model) playground.State {
	t.Helper()
	for i := 1; ; i++ {
		m.Update(float64(i) * 16)
		if st := m.State(); st.Jump == nil && st.Pending == 0 && !st.Playing {
			return st
		}
		if i > 100_000 {
			t.Fatal("the jump never settled")
		}
	}
}

// sameRun fails unless two models show the same moment: time, every arm's
// events, vCPUs and results.
func sameRun(t *testing.T, got, want playground.State) {
	t.Helper()
	if got.NowNs != want.NowNs || len(got.Arms) != len(want.Arms) {
		t.Fatalf("at %d ns with %d arms, want %d ns with %d", got.NowNs, len(got.Arms), want.NowNs, len(want.Arms))
	}
	for i := range got.Arms {
		g, w := got.Arms[i], want.Arms[i]
		gj, _ := json.Marshal(g.Metrics)
		wj, _ := json.Marshal(w.Metrics)
		if g.Events != w.Events || string(gj) != string(wj) || !slices.Equal(g.CPUs, w.CPUs) {
			t.Errorf("arm %d: %d events, metrics\n%s\nwant %d events,\n%s", i, g.Events, gj, w.Events, wj)
		}
	}
}

// A jump starts from the latest saved state at or before its target when that
// is ahead of the arms, and shows exactly what the run from zero shows there;
// the page says where it started. Without a state at or before the target, or
// for a scenario whose state is not saved, it runs as before.
func TestJumpStartsFromSavedState(t *testing.T) {
	saved, _ := bundledStore(t, testPresets(t), 100e6)
	for _, tc := range []struct {
		desc     string
		frag     string
		toNs     int64
		started  int    // arms started from a saved state
		notice   string // in the notice
		jumpFrom int64  // where the jump's progress starts
	}{
		{"skip the warm-up", "#v=1&preset=small", 50e6, 2, "saved with the page at 50 ms", 50e6},
		{"past the warm-up", "#v=1&preset=small", 150e6, 2, "at 100 ms", 100e6},
		{"before any saved state", "#v=1&preset=small", 30e6, 0, "", 0},
		{"one run", "#v=1&preset=small&compare=off", 50e6, 1, "at 50 ms", 50e6},
		{"a changed knob has none", "#v=1&preset=small&workload.clients=12", 50e6, 0, "", 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			m, r := savedModel(t, tc.frag, saved)
			ref, _ := newModel(t, tc.frag)
			if msg := m.JumpTo(tc.toNs); msg != "" {
				t.Fatal(msg)
			}
			if j := m.State().Jump; tc.started > 0 && tc.toNs > tc.jumpFrom && (j == nil || j.Done != 0) {
				t.Errorf("the jump's progress starts at %+v, want 0 from the saved state", j)
			}
			ref.JumpTo(tc.toNs)
			got, want := settle(t, m), settle(t, ref)
			sameRun(t, got, want)
			if r.startedFrom != tc.started {
				t.Errorf("%d arms started from a saved state, want %d", r.startedFrom, tc.started)
			}
			if tc.notice == "" && got.Resumed != "" || !strings.Contains(got.Resumed, tc.notice) {
				t.Errorf("notice %q, want one with %q", got.Resumed, tc.notice)
			}
			// Going back to zero forgets it.
			m.Reset()
			if st := m.State(); st.Resumed != "" {
				t.Errorf("after a reset the notice still says %q", st.Resumed)
			}
		})
	}
	// The shell is asked for a scenario's states when the page first jumps in
	// it, and only then.
	fresh, asked := bundledStore(t, testPresets(t))
	m, _ := savedModel(t, "#v=1&preset=small&workload.clients=12", fresh)
	m.Update(16)
	if len(*asked) > 0 {
		t.Errorf("the model asked for saved states before any jump: %v", *asked)
	}
	m.JumpTo(20e6)
	if k := m.Arms()[0].Key(); !slices.Contains(*asked, k) {
		t.Errorf("the model did not ask for the states of a scenario it jumps in (%s)", k)
	}
}

// States that arrive while a jump runs (a t= link opened before they are
// fetched) take the jump over; one the engine refuses leaves the arms running
// from zero, and the page says so. Either way the page shows what the run from
// zero shows.
func TestLateAndRefusedSavedStates(t *testing.T) {
	ref, _ := newModel(t, "#v=1&preset=small")
	ref.JumpTo(50e6)
	want := settle(t, ref)
	packOf := func(t *testing.T, damage bool) []byte {
		t.Helper()
		bs, _ := playground.BundledStates(testPresets(t), nil)
		var cks [][]byte
		for _, b := range bs {
			pack, err := runner.SaveStates(b.Scenario, b.AtNs)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := engine.ReadCheckpointPack(pack)
			for _, ck := range got {
				d := ck.Data
				if damage {
					d = d[:len(d)-8]
				}
				cks = append(cks, d)
			}
		}
		pack, err := engine.AppendCheckpointPack(nil, cks...)
		if err != nil {
			t.Fatal(err)
		}
		return pack
	}
	for _, tc := range []struct {
		desc   string
		damage bool
		notice string
	}{
		{"late", false, "Started from a state saved with the page at 50 ms"},
		{"refused", true, "could not be used"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			saved := playground.NewSavedStates(nil)
			m, r := savedModel(t, "#v=1&preset=small", saved)
			m.JumpTo(50e6)
			if err := saved.Add(packOf(t, tc.damage), playground.SavedWithPage); err != nil {
				t.Fatal(err)
			}
			got := settle(t, m)
			sameRun(t, got, want)
			if r.startedFrom != 2 || !strings.Contains(got.Resumed, tc.notice) {
				t.Errorf("%d arms started from the late states; notice %q, want %q", r.startedFrom, got.Resumed, tc.notice)
			}
		})
	}
}

// The bundle saves what the page runs: every preset's arms at the end of their
// warm-up, and every lesson step that starts past the first second (but for
// one with its own policy, which needs the Starlark binding), are
// scenarios BundledStates lists at that moment (same keys).
func TestBundledStatesAreThePagesArms(t *testing.T) {
	ps, probs := playground.BuiltinPresets()
	ls, errs := lesson.Builtin()
	if len(probs) > 0 || len(errs) > 0 {
		t.Fatalf("presets %v, lessons %v", probs, errs)
	}
	bs, err := playground.BundledStates(ps, ls)
	if err != nil {
		t.Fatal(err)
	}
	at := map[engine.ScenarioKey]playground.BundledState{}
	for _, b := range bs {
		at[b.Scenario.Key()] = b
		t.Logf("%s at %v ns", strings.Join(b.Labels, "; "), b.AtNs)
	}
	c := &fakeClock{step: 0.01}
	open := func(frag string) *playground.Model {
		return playground.New(playground.Options{Presets: ps, Lessons: ls, Clock: c.read, BudgetMs: 5, Runner: runner.NewLocal(c.read), Fragment: frag})
	}
	check := func(what string, m *playground.Model, atNs int64) {
		t.Helper()
		for i, a := range m.Arms() {
			b, ok := at[a.Key()]
			if !ok || !slices.Contains(b.AtNs, atNs) {
				t.Errorf("%s, arm %d: saved %v at %v; want it at %d ns", what, i, ok, b.AtNs, atNs)
			}
		}
	}
	n := 0
	for _, p := range ps {
		m := open("#v=1&preset=" + p.Name)
		if w := m.Arms()[0].Sc.WarmupMs; w > 0 {
			check(p.Name, m, w*1e6)
			n++
		}
	}
	check("a bare URL", open(""), 12e9)
	for _, l := range ls {
		for i, st := range l.Steps {
			start := st.AtNs
			if st.Until != nil {
				start = st.Until.AfterNs
			}
			if start <= 1e9 || l.Setup(i).Policy != "" {
				continue // a step with its own policy runs from zero (BundledStates)
			}
			m := open("#v=1&lesson=" + l.Name + "&step=" + string(rune('1'+i)))
			check(l.Name+" step "+string(rune('1'+i)), m, start)
			n++
		}
	}
	if n < 6 {
		t.Fatalf("only %d presets and steps checked", n)
	}
}
