package e2e

import (
	"strconv"
	"strings"
	"sync"
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

// nativeAt is every arm's results at each of moments (ascending) as the
// engine computes them natively from time zero (with the warm-up window the
// page's runner measures, which changes none of them), as JSON, by moment. It
// runs beside the page, in the background, and the returned function waits for
// it (as often as asked: it keeps the answer): the native runs from zero take
// as long as the page's jump spares, so they overlap it instead of following
// it.
func nativeAt(st savedState, moments ...int64) func(t *testing.T) map[int64][]string {
	type result struct {
		byMoment map[int64][]string
		err      error
	}
	done := make(chan result, 1)
	go func() {
		out := map[int64][]string{}
		for _, a := range st.Arms {
			sc, err := engine.DecodeScenario(st.Scenario, a.Set...)
			if err != nil {
				done <- result{err: err}
				return
			}
			sim, err := engine.NewSim(sc)
			if err != nil {
				done <- result{err: err}
				return
			}
			sim.AddWindow(0, sc.WarmupMs)
			sim.SetVisual(false)
			for _, at := range moments {
				sim.RunUntil(at)
				b, _ := json.Marshal(sim.Results())
				out[at] = append(out[at], string(b))
			}
		}
		done <- result{byMoment: out}
	}()
	var once sync.Once
	var r result
	return func(t *testing.T) map[int64][]string {
		t.Helper()
		once.Do(func() { r = <-done })
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.byMoment
	}
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
	check := func(t *testing.T, atNs int64, notice string, native map[int64][]string) savedState {
		t.Helper()
		st := stateAs[savedState](t, ctx)
		if !strings.Contains(st.Resumed, notice) || notice == "" && st.Resumed != "" {
			t.Errorf("the notice says %q, want %q", st.Resumed, notice)
		}
		shown := eval[string](t, ctx, `(e => e.hidden ? '' : e.textContent)(document.getElementById('resumed'))`)
		if (notice == "") != (shown == "") || !strings.Contains(shown, notice) {
			t.Errorf("the stage's notice shows %q, want %q", shown, notice)
		}
		for i, want := range native[atNs] {
			got, _ := json.Marshal(st.Arms[i].Metrics.Results)
			if string(got) != want {
				t.Errorf("arm %d at %d ns:\n page   %s\n native %s", i, atNs, got, want)
			}
		}
		return st
	}

	// The default preset's native runs from zero serve the first and the
	// third subtests: they start as the first opens the page.
	var tpcb func(*testing.T) map[int64][]string
	t.Run("skip warm-up", func(t *testing.T) {
		open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu")
		tpcb = nativeAt(stateAs[savedState](t, ctx), 12e9, 12_500_000_000)
		waitFor(t, ctx, `window.schedplay.state().pending === 0`, 60*time.Second)
		start := time.Now()
		eval[bool](t, ctx, `document.getElementById('skip-warmup').click(), true`)
		waitRun(t, ctx, settled(12e9), time.Minute)
		t.Logf("skip warm-up reached 12 s in %v", time.Since(start).Round(time.Millisecond))
		check(t, 12e9, "Started from a state saved with the page at 12 s", tpcb(t))
		screenshot(t, ctx, "", "saved-state-skip-warmup")
	})
	t.Run("embed", func(t *testing.T) {
		ectx, _ := browser(t, 800, 450)
		open(t, ectx, base+"/#v=1&preset=tpcb-32vcpu&embed=1&t=12s")
		waitRun(t, ectx, `(s => s.now_ns >= 12e9 && !s.jump)(window.schedplay.state())`, time.Minute)
		eval[bool](t, ectx, `window.schedplay.pause(), true`)
		screenshot(t, ectx, viewport, "saved-state-embed")
	})
	t.Run("t= past the saved state", func(t *testing.T) {
		if tpcb == nil {
			t.Skip("the first subtest did not open the preset")
		}
		open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&t=12500ms&theme=light")
		waitRun(t, ctx, settled(12_500_000_000), time.Minute)
		check(t, 12_500_000_000, "at 12 s", tpcb(t))
		screenshot(t, ctx, viewport, "saved-state-t-link-light")
	})
	t.Run("lesson step", func(t *testing.T) {
		open(t, ctx, base+"/#v=1&lesson=fan-out&step=5")
		native := nativeAt(stateAs[savedState](t, ctx), 7e9)
		waitRun(t, ctx, `window.schedplay.state().lesson.state === 'reached'`, time.Minute)
		st := check(t, 7e9, "at 7 s", native(t))
		if st.NowNs != 7e9 {
			t.Errorf("the step stands at %d ns", st.NowNs)
		}
		screenshot(t, ctx, viewport, "saved-state-lesson-step")
	})
	t.Run("a changed knob runs from zero", func(t *testing.T) {
		open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&workload.clients=63")
		native := nativeAt(stateAs[savedState](t, ctx), 300e6)
		eval[bool](t, ctx, `window.schedplay.jumpTo(300e6), true`)
		waitRun(t, ctx, settled(300e6), time.Minute)
		check(t, 300e6, "", native(t))
	})
}
