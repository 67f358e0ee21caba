package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"schedplay/engine"
	"schedplay/internal/wasmbuild"
)

// TestMeasure reports the playground's budgets measured in the page: the bundle's
// gzip size, first frame time, Update+Draw per frame (median, p95), what the page
// script spends mirroring the model into the HTML, and the main thread's work per
// frame as Chromium counts it (script, style, layout), at 64 vCPUs with 256
// clients. It
// asserts nothing about speed (targets belong in measurements, not tests) and runs
// only with SCHEDPLAY_MEASURE=1:
//
//	SCHEDPLAY_MEASURE=1 go test ./e2e -run TestMeasure -v
func TestMeasure(t *testing.T) {
	if os.Getenv("SCHEDPLAY_MEASURE") != "1" {
		t.Skip("set SCHEDPLAY_MEASURE=1 to measure frame times")
	}
	ensureWasm(t)
	logBundleSize(t, repoRoot(t))
	cases := []struct {
		desc, frag string
		paused     bool // measure the page as it opens, paused: what an idle tab costs
	}{
		{"default", "", false},
		{"default-paused", "", true},
		{"64vcpu-256clients-single", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256&compare=off", false},
		{"64vcpu-256clients-compare", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256", false},
		{"2n8l4c2t-256clients-compare", "#v=1&preset=tpcb-32vcpu&machine.topology=2n8l4c2t&workload.clients=256", false},
		{"64vcpu-256clients-compare-max", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256&speed=max", false},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			ctx, base := browser(t, 1400, 900)
			start := time.Now()
			open(t, ctx, base+"/"+tc.frag)
			t.Logf("page drawing after %v (wall, from navigation)", time.Since(start).Round(time.Millisecond))
			st := state(t, ctx)
			t.Logf("first frame at %.0f ms after navigation start (performance.now); marks: %s", st.Perf.FirstFrameMs,
				eval[string](t, ctx, `performance.getEntriesByType('mark').map(m => m.name.replace('schedplay:', '') + ' ' + m.startTime.toFixed(0)).join(', ') + ', responseEnd ' + performance.getEntriesByType('navigation')[0].responseEnd.toFixed(0) + '; go: ' + window.schedplay.state().perf.startup.join(', ')`))
			if !tc.paused {
				eval[bool](t, ctx, `window.schedplay.play(), true`)
			}
			time.Sleep(2 * time.Second) // reach the steady state (clients connected, arcs in flight)
			if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
				t.Fatal(err)
			}
			eval[bool](t, ctx, `window.schedplay.perfReset(), true`)
			before := mainThread(t, ctx)
			// Sample for at least 4 s and 120 frames, reading state() once a second
			// (it is not free, and the probe should not load the page it measures).
			for wait := 0; ; wait++ {
				time.Sleep(time.Second)
				// At max speed the page paints once a second here (a
				// software-drawn canvas: playground/racing.go).
				if wait >= 3 && eval[int](t, ctx, `window.schedplay.state().perf.samples`) >= 120 || wait > 20 {
					break
				}
			}
			after := mainThread(t, ctx)
			cost := evalJSON[struct {
				Ms    float64 `json:"ms"`
				Calls float64 `json:"calls"`
			}](t, ctx, `window.schedplay.pageCost()`)
			st = state(t, ctx)
			t.Logf("%s: Update+Draw median %.2f ms, p95 %.2f ms, max %.2f ms over %d frames; %d vertices; %d CPUs x %d arms; sim t=%d ns",
				tc.desc, st.Perf.MedianMs, st.Perf.P95Ms, st.Perf.MaxMs, st.Perf.Samples, st.Perf.Vertices, len(st.CPUs), len(st.Arms), st.NowNs)
			secs, frames := after["Timestamp"]-before["Timestamp"], float64(st.Perf.Frames)
			d := func(name string) float64 { return (after[name] - before[name]) * 1000 } // ms
			t.Logf("%s: page script mirroring the model: %.2f ms per frame, %.1f ms/s over %.0f calls (%.3f ms a call)",
				tc.desc, cost.Ms/frames, cost.Ms/secs, cost.Calls, cost.Ms/max(cost.Calls, 1))
			t.Logf("%s: main thread busy %.0f ms a second; per frame over %.1f s and %.0f frames: tasks %.2f ms, script %.2f ms, style %.3f ms (%.1f recalcs), layout %.3f ms (%.1f layouts)",
				tc.desc, d("TaskDuration")/secs, secs, frames, d("TaskDuration")/frames, d("ScriptDuration")/frames, d("RecalcStyleDuration")/frames,
				(after["RecalcStyleCount"]-before["RecalcStyleCount"])/frames, d("LayoutDuration")/frames, (after["LayoutCount"]-before["LayoutCount"])/frames)
			fps, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(r => { let n = 0; const t0 = performance.now(); const f = () => { if (++n === 60) r(60000 / (performance.now() - t0)); else requestAnimationFrame(f); }; requestAnimationFrame(f); })`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.1f frames per second", tc.desc, fps)
		})
	}
}

// TestGallery saves screenshots of the playground in the situations it is meant
// for (laptop, projector in the light theme, a docs iframe, a phone, slow motion
// with IPIs in the air, 1 and 64 vCPUs). It runs only when SCHEDPLAY_SCREENSHOTS
// names a directory:
//
//	SCHEDPLAY_SCREENSHOTS=e2e/testdata/screenshots go test ./e2e -run TestGallery -v
func TestGallery(t *testing.T) {
	if os.Getenv("SCHEDPLAY_SCREENSHOTS") == "" {
		t.Skip("set SCHEDPLAY_SCREENSHOTS to a directory to take the gallery")
	}
	shots := []struct {
		name   string
		w, h   int
		frag   string
		runTo  string // simulated ns to run to first
		slowMo bool   // then creep in slow motion so IPIs are in the air
		sel    string
	}{
		{"laptop-compare", 1440, 900, "#v=1&preset=tpcb-32vcpu", "400000000", false, ""},
		{"laptop-slowmo", 1440, 900, "#v=1&preset=tpcb-32vcpu", "300000000", true, "#stage"},
		{"projector-light", 1024, 768, "#v=1&preset=tpcb-32vcpu&theme=light", "400000000", false, ""},
		{"docs-iframe-embed", 800, 450, "#v=1&preset=tpcb-32vcpu&embed=1", "400000000", false, ""},
		{"phone", 390, 844, "#v=1&preset=tpcb-32vcpu", "300000000", false, ""},
		{"64vcpu-256clients", 1440, 900, "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256", "1200000000", false, "#stage"},
		{"1vcpu", 1000, 700, "#v=1&preset=tpcb-32vcpu&machine.vcpus=1&workload.clients=8&compare=off", "200000000", false, "#stage"},
		{"durable-write-adaptive", 1440, 900, "#v=1&preset=durable-write", "2500000000", false, ""},
		{"hackbench-wake-sync", 1440, 900, "#v=1&preset=hackbench", "20000000", false, ""},
		{"idle-guest-light", 1280, 800, "#v=1&preset=idle-guest&theme=light", "2500000000", false, "#stage"},
		{"saturated-sync-fairness", 1440, 900, "#v=1&preset=saturated-sync", "1500000000", false, ""},
		{"thread-per-conn-compare", 1440, 900, "#v=1&preset=thread-per-conn", "1000000000", false, ""},
		{"thread-per-conn-light", 1024, 768, "#v=1&preset=thread-per-conn&theme=light", "1000000000", false, ""},
		{"thread-per-conn-embed", 800, 450, "#v=1&preset=thread-per-conn&embed=1", "1000000000", false, ""},
		{"thread-per-conn-multiqueue", 1440, 900, "#v=1&preset=thread-per-conn&workload.rss=1&compare=workload.rx_queues:1,16", "1000000000", false, ""},
		{"thread-per-conn-controls", 1440, 2400, "#v=1&preset=thread-per-conn&workload.rss=1&compare=workload.rx_queues:1,16", "1000000000", false, "#panel"},
	}
	for _, s := range shots {
		t.Run(s.name, func(t *testing.T) {
			ctx, base := browser(t, s.w, s.h)
			open(t, ctx, base+"/"+s.frag)
			eval[bool](t, ctx, `window.schedplay.set('speed', 'max'), window.schedplay.runTo(`+s.runTo+`), true`)
			waitFor(t, ctx, `(s => !s.playing && s.now_ns >= `+s.runTo+`)(window.schedplay.state())`, 120*time.Second)
			if s.slowMo {
				// Creep until an IPI is in the air, so the picture shows one.
				eval[bool](t, ctx, `window.schedplay.set('speed', '1us'), window.schedplay.play(), true`)
				waitFor(t, ctx, `window.schedplay.state().arms.some(a => a.anim.in_air > 0)`, 60*time.Second)
			} else {
				eval[bool](t, ctx, `window.schedplay.set('speed', '20ms'), window.schedplay.play(), true`)
				time.Sleep(1200 * time.Millisecond)
			}
			eval[bool](t, ctx, `window.schedplay.select(0, 0, -1), true`)
			time.Sleep(300 * time.Millisecond)
			screenshot(t, ctx, s.sel, s.name)
		})
	}
}

// TestMeasureSpeed reports, side by side on this machine, how long the page takes
// at max speed against the native engine for the two cases: hackbench's
// default comparison to the end (against the CLI running the same two runs), and
// the default TPC-B comparison to the end of its 12 s warm-up (a jump). It also
// reports where the page's time goes (each worker's engine time, its wait for
// requests and its yields, against the wall time), what a pause costs, and the
// bundle's size. Hackbench runs twice: with the cores the browser reports, and
// as if it had four (two workers, the arms side by side). It asserts nothing
// about speed:
//
//	SCHEDPLAY_MEASURE=1 go test ./e2e -run TestMeasureSpeed -v
func TestMeasureSpeed(t *testing.T) {
	if os.Getenv("SCHEDPLAY_MEASURE") != "1" {
		t.Skip("set SCHEDPLAY_MEASURE=1 to measure")
	}
	ctx, base := browser(t, 1400, 900)
	root := repoRoot(t)
	logBundleSize(t, root)

	cli := filepath.Join(t.TempDir(), "schedplay")
	build := exec.Command("go", "build", "-o", cli, "./cmd/schedplay")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	hackbench := filepath.Join(root, "examples", "hackbench.json")
	runCLI := func(rule string) *exec.Cmd {
		return exec.Command(cli, "run", hackbench, "--set", "sched.wake_sync="+rule, "--format", "json")
	}
	start := time.Now()
	for _, rule := range []string{"old", "new"} {
		if out, err := runCLI(rule).CombinedOutput(); err != nil {
			t.Fatalf("schedplay run: %v\n%s", err, out)
		}
	}
	cliSeq := time.Since(start)
	start = time.Now()
	a, b := runCLI("old"), runCLI("new")
	if err := errors.Join(a.Start(), b.Start()); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(a.Wait(), b.Wait()); err != nil {
		t.Fatal(err)
	}
	cliPar := time.Since(start)

	// As the browser reports the machine's cores, then as if it had four (two
	// workers, the arms side by side, however many cores there really are).
	for _, cores := range []int64{0, 4} {
		tab, _ := browser(t, 1400, 900)
		if cores > 0 {
			if _, err := chromedp.Call(tab, emulation.SetHardwareConcurrencyOverride, emulation.SetHardwareConcurrencyOverrideParams{HardwareConcurrency: cores}); err != nil {
				t.Fatal(err)
			}
		}
		open(t, tab, base+"/#v=1&preset=hackbench&speed=max")
		waitFor(t, tab, `window.schedplay.state().pending === 0`, 30*time.Second)
		if _, err := chromedp.Call(tab, performance.Enable, performance.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		workers, main := workerTime(t, tab), mainThread(t, tab)
		cpu := chromiumCPU()
		start = time.Now()
		eval[bool](t, tab, `window.schedplay.play(), true`)
		waitFor(t, tab, `window.schedplay.state().done`, 600*time.Second)
		page := time.Since(start)
		cpu = chromiumCPU().since(cpu)
		mainAfter := mainThread(t, tab)
		st := readRun(t, tab)
		t.Logf("hackbench compare to the end (old vs new rule), runner %s:", st.Runner)
		t.Logf("  page %.2f s; native CLI, the two runs one after the other %.2f s (page/native %.1fx), side by side %.2f s (%.1fx)",
			page.Seconds(), cliSeq.Seconds(), page.Seconds()/cliSeq.Seconds(), cliPar.Seconds(), page.Seconds()/cliPar.Seconds())
		logArmPace(t, tab, page)
		logWorkerTime(t, tab, workers)
		t.Logf("  Chromium's processes on the CPU meanwhile: %s; the page's main thread: tasks %.2f s, script %.2f s, on the CPU %.2f s",
			cpu, mainAfter["TaskDuration"]-main["TaskDuration"], mainAfter["ScriptDuration"]-main["ScriptDuration"], mainAfter["ThreadTime"]-main["ThreadTime"])

		// What the run ahead costs a pause: the arms stop where they are and
		// meet at one time, the ones behind catching up or the ones ahead
		// replayed from their start (playground/lead.go), whichever the
		// arms' pace says is cheaper.
		for _, after := range []time.Duration{time.Second, 2 * time.Second} {
			open(t, tab, base+"/#v=1&preset=hackbench&speed=max")
			waitFor(t, tab, `window.schedplay.state().pending === 0`, 30*time.Second)
			eval[bool](t, tab, `window.schedplay.play(), true`)
			time.Sleep(after)
			start = time.Now()
			eval[bool](t, tab, `window.schedplay.pause(), true`)
			waitFor(t, tab, `(s => !s.playing && s.pending === 0)(window.schedplay.state())`, 30*time.Second)
			r := readRun(t, tab)
			t.Logf("  paused %v in: settled %v later, at %s (replays %d, %d)", after, time.Since(start).Round(time.Millisecond), r.SimTime, r.Arms[0].Replays, r.Arms[1].Replays)
		}
	}

	// TPC-B to the end of the warm-up: natively, the engine alone (what the CLI
	// runs), both arms one after the other; in the page, a jump.
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu")
	waitFor(t, ctx, `window.schedplay.state().pending === 0`, 30*time.Second)
	st := readRun(t, ctx)
	const warmNs = 12_000_000_000
	start = time.Now()
	for _, arm := range st.Arms {
		sc, err := engine.DecodeScenario(st.Scenario, arm.Set...)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := engine.NewSim(sc)
		if err != nil {
			t.Fatal(err)
		}
		sim.RunUntil(warmNs)
	}
	native := time.Since(start)
	start = time.Now()
	eval[bool](t, ctx, `window.schedplay.jumpTo(12e9), true`)
	waitFor(t, ctx, `(s => s.now_ns === 12e9 && !s.jump)(window.schedplay.state())`, 900*time.Second)
	page := time.Since(start)
	t.Logf("TPC-B compare to the end of the 12 s warm-up: page %.2f s, native engine (both arms, one after the other) %.2f s: %.1fx",
		page.Seconds(), native.Seconds(), page.Seconds()/native.Seconds())
	logArmPace(t, ctx, page)
}

// logBundleSize reports what a first visit downloads, gzip-compressed as served.
func logBundleSize(t *testing.T, root string) {
	t.Helper()
	parts, err := wasmbuild.Bundle(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bundle: %s", wasmbuild.Describe(parts))
}

// TestMeasureSavedStates reports, side by side in one run, how long a newcomer
// waits for the default preset's measured window (tpcb-32vcpu, both arms, 12 s
// of warm-up): the page from navigation to the window with the bundle's saved
// states (load, then Skip warm-up), the same page with the states blocked (it
// simulates the warm-up in its workers, as before), and the native CLI
// simulating the warm-up (schedplay run --checkpoint-at 12s, timed until its
// checkpoint is written; both arms one after the other and side by side); and
// the checkpoints' sizes, raw and gzip. It asserts nothing about speed:
//
//	SCHEDPLAY_MEASURE=1 go test ./e2e -run TestMeasureSavedStates -v -timeout 20m
func TestMeasureSavedStates(t *testing.T) {
	if os.Getenv("SCHEDPLAY_MEASURE") != "1" {
		t.Skip("set SCHEDPLAY_MEASURE=1 to measure")
	}
	ctx, base := browser(t, 1400, 900)
	root := repoRoot(t)
	logBundleSize(t, root)

	// The native CLI to the end of the warm-up.
	dir := t.TempDir()
	cli := filepath.Join(dir, "schedplay")
	build := exec.Command("go", "build", "-o", cli, "./cmd/schedplay")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	arms := []string{"sched.wake_pull=false", "sched.wake_pull=true"}
	scs := make([]engine.Scenario, len(arms))
	for i, set := range arms {
		data, err := os.ReadFile(filepath.Join(root, "examples", "tpcb-32vcpu.json"))
		if err != nil {
			t.Fatal(err)
		}
		if scs[i], err = engine.DecodeScenario(data, set); err != nil {
			t.Fatal(err)
		}
	}
	warm := func(i int, out string) *exec.Cmd {
		return exec.Command(cli, "run", "tpcb-32vcpu", "--set", arms[i], "--checkpoint-at", "12s", "--checkpoint-out", out)
	}
	// saved waits until out holds the whole checkpoint (the CLI goes on to the
	// horizon after writing it, so it is stopped there).
	saved := func(cmd *exec.Cmd, i int, out string) {
		for {
			if data, err := os.ReadFile(out); err == nil {
				if _, err := engine.Resume(scs[i], data); err == nil {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	start := time.Now()
	for i := range arms {
		out := filepath.Join(dir, fmt.Sprintf("seq%d.ckpt", i))
		cmd := warm(i, out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		saved(cmd, i, out)
	}
	cliSeq := time.Since(start)
	start = time.Now()
	var cmds []*exec.Cmd
	for i := range arms {
		cmd := warm(i, filepath.Join(dir, fmt.Sprintf("par%d.ckpt", i)))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		saved(cmd, i, filepath.Join(dir, fmt.Sprintf("par%d.ckpt", i)))
	}
	cliPar := time.Since(start)

	// The page, from navigation to the measured window. hoverMs, if not 0, is
	// how long the pointer rests on the button before the click (the page
	// fetches the saved states then).
	visit := 0
	toWindow := func(desc string, hoverMs int) (readyMs, windowMs float64) {
		// A new document each time (a query the page ignores): a reload, with
		// the browser's cache as a returning visitor has it.
		visit++
		open(t, ctx, fmt.Sprintf("%s/?visit=%d#v=1&preset=tpcb-32vcpu", base, visit))
		readyMs = eval[float64](t, ctx, `performance.now()`)
		if hoverMs > 0 {
			eval[bool](t, ctx, `document.getElementById('skip-warmup').dispatchEvent(new PointerEvent('pointerenter')), true`)
			time.Sleep(time.Duration(hoverMs) * time.Millisecond)
		}
		eval[bool](t, ctx, `document.getElementById('skip-warmup').click(), true`)
		waitFor(t, ctx, `(s => s.now_ns === 12e9 && !s.jump && s.pending === 0)(window.schedplay.state())`, 900*time.Second)
		windowMs = eval[float64](t, ctx, `performance.now()`)
		t.Logf("page, %s: drawing %.0f ms after navigation, at the measured window %.0f ms after it (Skip warm-up took %.0f ms); notice %q",
			desc, readyMs, windowMs, windowMs-readyMs, stateAs[savedState](t, ctx).Resumed)
		return readyMs, windowMs
	}
	_, with := toWindow("with saved states, clicked at once", 0)
	_, hovered := toWindow("with saved states, the pointer on the button 300 ms first", 300)
	// Without them: the page's fetch of a saved state fails, as on a server
	// that has none.
	script, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `{ const f = window.fetch; window.fetch = (u, o) => String(u).includes('/checkpoints/') ? Promise.reject(new Error('blocked')) : f(u, o); }`})
	if err != nil {
		t.Fatal(err)
	}
	_, without := toWindow("saved states blocked (simulates the warm-up)", 0)
	chromedp.Call(ctx, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: script.Identifier})
	t.Logf("tpcb-32vcpu to its measured window (12 s, two arms): page with saved states %.2f s from navigation (%.2f s with a 300 ms hover); page without %.2f s; native CLI %.2f s one arm after the other, %.2f s side by side",
		with/1000, hovered/1000, without/1000, cliSeq.Seconds(), cliPar.Seconds())

	// The sizes.
	packs, err := wasmbuild.Checkpoints(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		k := sc.Key().String()
		for _, p := range packs {
			if p.Key == k {
				info, _ := os.Stat(filepath.Join(root, "static", filepath.FromSlash(p.Name)))
				t.Logf("saved state of tpcb-32vcpu, wake_pull=%v, at 12 s: %d bytes, %d gzip, %d brotli", sc.Sched.WakePull, info.Size(), p.Gzip, p.Brotli)
			}
		}
	}
	var gz, sent int64
	for _, p := range packs {
		gz, sent = gz+p.Gzip, sent+p.Sent()
	}
	t.Logf("all %d packs of the bundle: %d bytes sent (brotli), %d gzip", len(packs), sent, gz)
}
