package playground

import (
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
)

// In slow motion the wakeups the scheduler chose not to signal become ghost arcs;
// with ghosts=0 they do not.
func TestGhostArcs(t *testing.T) {
	ps, _ := BuiltinPresets()
	count := func(frag string) (ghosts, real int) {
		m := New(Options{Presets: ps, Fragment: frag, Runner: runner.NewLocal(func() float64 { return 0 })})
		for range 20000 {
			m.Step()
			for _, a := range m.arms {
				for _, f := range a.flights {
					if f.ghost {
						ghosts++
					} else {
						real++
					}
				}
			}
			if ghosts > 0 && real > 0 {
				break
			}
		}
		return ghosts, real
	}
	if g, r := count("#v=1&preset=tpcb-32vcpu&compare=off"); g == 0 || r == 0 {
		t.Errorf("stepping the collapse shows %d ghost and %d real IPIs; want both", g, r)
	}
	if g, _ := count("#v=1&preset=tpcb-32vcpu&compare=off&ghosts=0"); g != 0 {
		t.Errorf("ghosts=0 still draws %d ghost arcs", g)
	}
}

// FuzzLoad: no fragment or shared scenario makes Load panic, and what it leaves
// in the URL loads again without problems.
func FuzzLoad(f *testing.F) {
	ps, _ := BuiltinPresets()
	for _, s := range []string{"", "#v=1&preset=tpcb-32vcpu&machine.vcpus=4", "#v=1&compare=machine.vcpus:1,2&speed=1us",
		"#v=1&preset=hackbench&compare=sched.wake_sync:old,new", "#v=1&workload.clients=0&machine.platform=native"} {
		f.Add(s, "")
	}
	f.Add("#v=1&compare=arms", `{"version":1,"machine":{"vcpus":2},"arms":[{"name":"a","set":{"seed":"2"}},{"name":"b","set":{"seed":"3"}}]}`)
	f.Fuzz(func(t *testing.T, frag, shared string) {
		var sh []byte
		if shared != "" {
			sh = []byte(shared)
		}
		m := New(Options{Presets: ps, Fragment: frag, Shared: sh, Runner: runner.NewLocal(func() float64 { return 0 })})
		m.Update(16)
		m.Render(300, 200, 1, 16)
		out := m.Fragment()
		if !m.setup.src.shared {
			sh = nil // a rejected share is reported on every load; the page fell back
		}
		m2 := New(Options{Presets: ps, Fragment: out, Shared: sh, Runner: runner.NewLocal(func() float64 { return 0 })})
		if len(m2.problems) > 0 {
			t.Fatalf("Load(%q) wrote %q, which reloads with problems %v", frag, out, m2.problems)
		}
		if got := m2.Fragment(); got != out {
			t.Fatalf("fragment %q reloads as %q", out, got)
		}
	})
}

// scx_simple's shared queue has no tile; its length goes in the pane title.
func TestSharedQueue(t *testing.T) {
	ps, _ := BuiltinPresets()
	m := New(Options{Presets: ps, Fragment: "#v=1&preset=hackbench&speed=max", Runner: runner.NewLocal(func() float64 { return 0 })})
	m.RunTo(40_000_000)
	for i := 0; m.Playing() && i < 100000; i++ {
		m.Update(float64(i) * 16)
	}
	a, b := m.arms[0].sharedQueue(), m.arms[1].sharedQueue()
	if b == 0 {
		t.Errorf("new rule: nothing in the shared queue of 400 tasks on 8 CPUs (old rule: %d)", a)
	}
	m.Render(1400, 600, 1, 0)
	if ti := m.panes().Panes[1].Title; !strings.Contains(ti, "in the shared queue") {
		t.Errorf("pane title %q lacks the shared queue", ti)
	}
}

// A knob reader must give every knob a value that, set back, changes nothing:
// the fragment and the published-point matching depend on it.
func TestKnobReaderRoundTrip(t *testing.T) {
	ps, _ := BuiltinPresets()
	for _, p := range ps {
		sc, err := p.Decode()
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		want, err := sc.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		vals := newKnobReader(sc)
		for _, path := range engine.KnobPaths() {
			v := vals.get(path)
			sc2, err := sc.WithKnobs(path + "=" + v)
			if err != nil {
				t.Errorf("%s: %s=%s does not apply: %v", p.Name, path, v, err)
				continue
			}
			if got, _ := sc2.Canonical(); string(got) != string(want) {
				t.Errorf("%s: setting %s=%s changes the scenario", p.Name, path, v)
			}
		}
	}
}
