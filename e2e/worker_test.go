package e2e

import (
	"context"
	"io/fs"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
	"schedplay/examples"
)

// runState is what these tests read of state() besides pageState.
type runState struct {
	NowNs    int64          `json:"now_ns"`
	SimTime  string         `json:"sim_time"`
	Playing  bool           `json:"playing"`
	Fragment string         `json:"fragment"`
	Runner   string         `json:"runner"`
	Refused  string         `json:"refused"`
	Scenario jsontext.Value `json:"scenario"`
	Jump     *struct {
		To   string  `json:"to"`
		Done float64 `json:"done"`
	} `json:"jump"`
	Arms []struct {
		Name     string   `json:"name"`
		Set      []string `json:"set"`
		Events   int64    `json:"events"`
		RunnerMs float64  `json:"runner_ms"`
		Replays  int      `json:"replays"`
		Metrics  struct {
			Results jsontext.Value `json:"results"`
		} `json:"metrics"`
	} `json:"arms"`
	Perf struct {
		Frames int64 `json:"frames"`
	} `json:"perf"`
}

func readRun(t testing.TB, ctx context.Context) runState { return stateAs[runState](t, ctx) }

// nativeResults runs each arm of the page's scenario natively to atNs (the
// horizon when 0) and returns the engine's results.
func nativeResults(t testing.TB, st runState, atNs int64) []engine.Results {
	t.Helper()
	var out []engine.Results
	for _, a := range st.Arms {
		sc, err := engine.DecodeScenario(st.Scenario, a.Set...)
		if err != nil {
			t.Fatalf("arm %s: %v", a.Name, err)
		}
		sim, err := engine.NewSim(sc)
		if err != nil {
			t.Fatal(err)
		}
		if atNs == 0 {
			atNs = sim.EndNs()
		}
		sim.RunUntil(atNs)
		out = append(out, sim.Results())
	}
	return out
}

// TestWorkerMatchesNative: the engine workers give the native engine's numbers,
// value for value, for a finished hackbench comparison and for TPC-B stopped
// mid-run; and the page says it runs them in workers.
func TestWorkerMatchesNative(t *testing.T) {
	tests := []struct {
		desc, frag string
		atNs       int64 // 0: run to the end
	}{
		{"hackbench old vs new rule, to the end", "#v=1&preset=hackbench&workload.hackbench.loops=40&speed=max", 0},
		{"TPC-B pull off vs on, stopped at 300 ms", "#v=1&preset=tpcb-32vcpu&speed=max", 300_000_000},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			ctx, base := browser(t, 1280, 860)
			open(t, ctx, base+"/"+tc.frag)
			if tc.atNs > 0 {
				eval[bool](t, ctx, `window.schedplay.runTo(`+strconv.FormatInt(tc.atNs, 10)+`), true`)
				waitRun(t, ctx, `(s => !s.playing && s.now_ns === `+strconv.FormatInt(tc.atNs, 10)+`)(window.schedplay.state())`, time.Minute)
			} else {
				eval[bool](t, ctx, `window.schedplay.play(), true`)
				waitRun(t, ctx, `window.schedplay.state().done`, time.Minute)
			}
			st := readRun(t, ctx)
			if st.Runner != "2 workers" && st.Runner != "1 worker" {
				t.Errorf("the simulations run in %q, want workers", st.Runner)
			}
			want := nativeResults(t, st, tc.atNs)
			for i, a := range st.Arms {
				var got engine.Results
				if err := json.Unmarshal(a.Metrics.Results, &got); err != nil {
					t.Fatal(err)
				}
				if got.Events == 0 || !reflect.DeepEqual(got, want[i]) {
					t.Errorf("arm %s: the worker's results differ from the native engine's:\n page   %+v\n native %+v", a.Name, got, want[i])
				}
			}
		})
	}
}

// TestJumpToMoment: a link with t= opens at that moment, showing a progress bar
// over the stage while it runs ahead; the Jump control does the same and writes
// t= into the link; embeds and share links honour t= too.
func TestJumpToMoment(t *testing.T) {
	ctx, base := browser(t, 1440, 900)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&t=1500ms")
	waitFor(t, ctx, `!document.getElementById('jump-progress').hidden && window.schedplay.state().jump.done > 0.05`, 60*time.Second)
	label := eval[string](t, ctx, `document.getElementById('jump-label').textContent`)
	if !strings.HasPrefix(label, "Running ahead to 1.500") {
		t.Errorf("progress label %q", label)
	}
	screenshot(t, ctx, "", "laptop-jump-progress")
	waitRun(t, ctx, `window.schedplay.state().now_ns === 1500000000 && !window.schedplay.state().jump`, time.Minute)
	st := readRun(t, ctx)
	if st.Playing || !strings.Contains(st.Fragment, "&t=1500ms") {
		t.Errorf("after the jump: playing %v, fragment %q", st.Playing, st.Fragment)
	}
	// The page mirrors the model into its HTML on its next animation frame,
	// which may come after the state() read that saw the jump end.
	waitFor(t, ctx, `document.getElementById('jump-progress').hidden`, 30*time.Second)

	// The control: skip the warm-up would be 12 s; jump back to 200 ms instead.
	eval[bool](t, ctx, `(() => { const i = document.getElementById('jump-to'); i.value = '200ms'; document.getElementById('jump').click(); return true })()`)
	waitRun(t, ctx, `(s => s.now_ns === 200000000 && !s.jump && location.hash.includes('&t=200ms'))(window.schedplay.state())`, time.Minute)
	if msg := eval[string](t, ctx, `window.schedplay.set('t', 'soon') || ''`); !strings.HasPrefix(msg, "t: ") {
		t.Errorf("a bad moment gave %q, want a message naming t", msg)
	}

	// An embed opens at its moment and plays on from it.
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&embed=1&speed=20ms&t=400ms")
	waitRun(t, ctx, `(s => s.playing && !s.jump && s.now_ns > 400000000)(window.schedplay.state())`, time.Minute)

	// A share link with t= opens the shared scenario at that moment.
	data, err := fs.ReadFile(examples.FS, "tpcb-32vcpu.json")
	if err != nil {
		t.Fatal(err)
	}
	shared.share.mu.Lock()
	shared.share.data["jumpshare"] = data
	shared.share.mu.Unlock()
	open(t, ctx, base+"/s/jumpshare#v=1&compare=arms&t=300ms")
	waitRun(t, ctx, `(s => s.now_ns === 300000000 && !s.playing && !s.jump)(window.schedplay.state())`, time.Minute)
	if st := readRun(t, ctx); len(st.Arms) != 2 {
		t.Errorf("the share opened with %d arms", len(st.Arms))
	}
}

// TestRunAheadStaysResponsive: while the workers run ahead through a dense
// scenario the page keeps painting (a frame a second: racing on a software
// canvas) and answering, and Cancel stops the run ahead where it got to, with
// both arms at one time.
func TestRunAheadStaysResponsive(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256")
	eval[bool](t, ctx, `window.schedplay.jumpTo(20e9), true`)
	waitFor(t, ctx, `(s => s.jump && s.now_ns > 0)(window.schedplay.state())`, 60*time.Second)
	before := readRun(t, ctx)
	waitFor(t, ctx, `window.schedplay.state().perf.frames > `+strconv.FormatInt(before.Perf.Frames+3, 10), 30*time.Second)
	mid := readRun(t, ctx)
	if mid.Jump == nil || mid.NowNs <= before.NowNs {
		t.Fatalf("the run ahead did not move while the page painted 3 frames: %d -> %d ns", before.NowNs, mid.NowNs)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#jump-cancel"))); err != nil {
		t.Fatal(err)
	}
	// The arms stop where they were and meet at the furthest one's time.
	waitFor(t, ctx, `(s => !s.playing && !s.jump && s.pending === 0)(window.schedplay.state())`, 10*time.Second)
	st := readRun(t, ctx)
	if st.NowNs >= 20e9 || strings.Contains(st.Fragment, "&t=") {
		t.Errorf("after Cancel: at %d ns, fragment %q", st.NowNs, st.Fragment)
	}
	// Paused means paused: the clock stays where Cancel left it.
	time.Sleep(500 * time.Millisecond)
	if now := readRun(t, ctx).NowNs; now != st.NowNs {
		t.Errorf("the clock moved from %d to %d ns after Cancel", st.NowNs, now)
	}
}

// TestRacingPaintsSparsely: at max speed the page paints a few frames a
// second, on a canvas drawn in software (headless Chromium's SwiftShader)
// once a second, while the run goes on between them; paused, it paints every
// display frame again.
func TestRacingPaintsSparsely(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&speed=max")
	canvas := evalJSON[struct {
		Name     string `json:"canvas"`
		Software bool   `json:"software_canvas"`
	}](t, ctx, `window.schedplay.state().perf`)
	if !strings.Contains(canvas.Name, "SwiftShader") || !canvas.Software {
		t.Fatalf("the page says the canvas is drawn by %q (software %v), want SwiftShader (software)", canvas.Name, canvas.Software)
	}
	before := readRun(t, ctx)
	eval[bool](t, ctx, `window.schedplay.play(), true`)
	time.Sleep(3 * time.Second)
	mid := readRun(t, ctx)
	if !mid.Playing || mid.NowNs <= before.NowNs {
		t.Fatalf("3 s at max speed: playing %v, from %d to %d ns", mid.Playing, before.NowNs, mid.NowNs)
	}
	// One frame a second, and one when the run starts.
	if painted := mid.Perf.Frames - before.Perf.Frames; painted < 2 || painted > 6 {
		t.Errorf("3 s at max speed painted %d frames, want about 4 (one a second)", painted)
	}
	eval[bool](t, ctx, `window.schedplay.pause(), true`)
	waitFor(t, ctx, `(s => !s.playing && s.pending === 0)(window.schedplay.state())`, 10*time.Second)
	paused := readRun(t, ctx)
	waitFor(t, ctx, `window.schedplay.state().perf.frames > `+strconv.FormatInt(paused.Perf.Frames+30, 10), 5*time.Second)
}

// TestWorkersRefused: a browser that will not start workers gets the reason over
// the stage, not a page that waits forever.
func TestWorkersRefused(t *testing.T) {
	ctx, base := browser(t, 1024, 768)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument,
			page.AddScriptToEvaluateOnNewDocumentParams{Source: `delete window.Worker; window.Worker = undefined;`})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&theme=light")
	waitFor(t, ctx, `!document.getElementById('refused').hidden`, 20*time.Second)
	text := eval[string](t, ctx, `document.getElementById('refused').textContent`)
	if !strings.Contains(text, "Web Workers") {
		t.Errorf("the refusal says %q", text)
	}
	if st := readRun(t, ctx); st.Playing || st.Refused == "" {
		t.Errorf("playing %v, refused %q", st.Playing, st.Refused)
	}
	screenshot(t, ctx, "", "projector-refused")
}

// TestHeavyScenarioRefused: a link inside every knob's range that would still run
// for hours (hackbench with 4096 senders per group at the cheapest reads and
// writes) is refused by the worker's work estimate, naming the fields, and the
// page keeps drawing.
func TestHeavyScenarioRefused(t *testing.T) {
	ctx, base := browser(t, 1024, 768)
	open(t, ctx, base+"/#v=1&preset=hackbench&workload.hackbench.groups=1&workload.hackbench.fds=4096&workload.hackbench.write_ns=50&workload.hackbench.read_ns=50")
	start := time.Now()
	waitFor(t, ctx, `!document.getElementById('refused').hidden`, 30*time.Second)
	t.Logf("refused %.1f s after the page loaded", time.Since(start).Seconds())
	text := eval[string](t, ctx, `document.getElementById('refused').textContent`)
	for _, want := range []string{"workload.hackbench.fds", "the limit is 1e+09"} {
		if !strings.Contains(text, want) {
			t.Errorf("the refusal %q does not say %q", text, want)
		}
	}
	frames := readRun(t, ctx).Perf.Frames
	waitFor(t, ctx, `window.schedplay.state().perf.frames > `+strconv.FormatInt(frames+10, 10), 10*time.Second)
	if st := readRun(t, ctx); st.Playing || st.Refused == "" {
		t.Errorf("playing %v, refused %q", st.Playing, st.Refused)
	}
}
