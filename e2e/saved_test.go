package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
)

// savedState is what the saved-state tests read of state().
type savedState struct {
	NowNs    int64          `json:"now_ns"`
	Resumed  string         `json:"resumed"`
	Scenario jsontext.Value `json:"scenario"`
	Arms     []struct {
		Set     []string `json:"set"`
		Events  int64    `json:"events"`
		Metrics struct {
			Results engine.Results `json:"results"`
		} `json:"metrics"`
	} `json:"arms"`
	Lesson struct {
		State string `json:"state"`
	} `json:"lesson"`
}

// nativeAt is every arm's results at atNs as the engine computes them natively
// from time zero (with the warm-up window the page's runner measures, which
// changes none of them), as JSON.
func nativeAt(t *testing.T, st savedState, atNs int64) []string {
	t.Helper()
	var out []string
	for _, a := range st.Arms {
		sc, err := engine.DecodeScenario(st.Scenario, a.Set...)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := engine.NewSim(sc)
		if err != nil {
			t.Fatal(err)
		}
		sim.AddWindow(0, sc.WarmupMs)
		sim.SetVisual(false)
		sim.RunUntil(atNs)
		b, _ := json.Marshal(sim.Results())
		out = append(out, string(b))
	}
	return out
}

// TestSavedStates: Skip warm-up, a t= link and a lesson step past the first
// second start from the states the bundle saved, in the engine worker: the
// page says so, and shows exactly the results the native engine computes
// from time zero; a scenario whose knobs were changed has none and runs from
// zero, as it always did.
func TestSavedStates(t *testing.T) {
	ctx, base := browser(t, 1440, 900)
	settled := func(atNs int64) string {
		return `(s => s.now_ns === ` + strconv.FormatInt(atNs, 10) + ` && !s.jump && s.pending === 0 && !s.playing)(window.schedplay.state())`
	}
	check := func(t *testing.T, atNs int64, notice string) savedState {
		t.Helper()
		st := stateAs[savedState](t, ctx)
		if !strings.Contains(st.Resumed, notice) || notice == "" && st.Resumed != "" {
			t.Errorf("the notice says %q, want %q", st.Resumed, notice)
		}
		shown := eval[string](t, ctx, `(e => e.hidden ? '' : e.textContent)(document.getElementById('resumed'))`)
		if (notice == "") != (shown == "") || !strings.Contains(shown, notice) {
			t.Errorf("the stage's notice shows %q, want %q", shown, notice)
		}
		for i, want := range nativeAt(t, st, atNs) {
			got, _ := json.Marshal(st.Arms[i].Metrics.Results)
			if string(got) != want {
				t.Errorf("arm %d at %d ns:\n page   %s\n native %s", i, atNs, got, want)
			}
		}
		return st
	}

	t.Run("skip warm-up", func(t *testing.T) {
		open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu")
		waitFor(t, ctx, `window.schedplay.state().pending === 0`, 60*time.Second)
		start := time.Now()
		eval[bool](t, ctx, `document.getElementById('skip-warmup').click(), true`)
		waitFor(t, ctx, settled(12e9), 120*time.Second)
		t.Logf("skip warm-up reached 12 s in %v", time.Since(start).Round(time.Millisecond))
		check(t, 12e9, "Started from a state saved with the page at 12 s")
		screenshot(t, ctx, "", "saved-state-skip-warmup")
	})
	t.Run("embed", func(t *testing.T) {
		ectx, _ := browser(t, 800, 450)
		open(t, ectx, base+"/#v=1&preset=tpcb-32vcpu&embed=1&t=12s")
		waitFor(t, ectx, `(s => s.now_ns >= 12e9 && !s.jump)(window.schedplay.state())`, 120*time.Second)
		eval[bool](t, ectx, `window.schedplay.pause(), true`)
		screenshot(t, ectx, viewport, "saved-state-embed")
	})
	t.Run("t= past the saved state", func(t *testing.T) {
		open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&t=12500ms&theme=light")
		waitFor(t, ctx, settled(12_500_000_000), 120*time.Second)
		check(t, 12_500_000_000, "at 12 s")
		screenshot(t, ctx, viewport, "saved-state-t-link-light")
	})
	t.Run("lesson step", func(t *testing.T) {
		open(t, ctx, base+"/#v=1&lesson=fan-out&step=5")
		waitFor(t, ctx, `window.schedplay.state().lesson.state === 'reached'`, 180*time.Second)
		st := check(t, 7e9, "at 7 s")
		if st.NowNs != 7e9 {
			t.Errorf("the step stands at %d ns", st.NowNs)
		}
		screenshot(t, ctx, viewport, "saved-state-lesson-step")
	})
	t.Run("a changed knob runs from zero", func(t *testing.T) {
		open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&workload.clients=63")
		eval[bool](t, ctx, `window.schedplay.jumpTo(300e6), true`)
		waitFor(t, ctx, settled(300e6), 120*time.Second)
		check(t, 300e6, "")
	})
}
