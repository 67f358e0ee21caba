package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestMeasure reports the playground's budgets measured in the page: first frame
// time, and Update+Draw per frame (median, p95) at 64 vCPUs with 256 clients. It
// asserts nothing about speed (targets belong in measurements, not tests) and runs
// only with SCHEDPLAY_MEASURE=1:
//
//	SCHEDPLAY_MEASURE=1 go test ./e2e -run TestMeasure -v
func TestMeasure(t *testing.T) {
	if os.Getenv("SCHEDPLAY_MEASURE") != "1" {
		t.Skip("set SCHEDPLAY_MEASURE=1 to measure frame times")
	}
	cases := []struct{ desc, frag string }{
		{"default", ""},
		{"64vcpu-256clients-single", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256&compare=off"},
		{"64vcpu-256clients-compare", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256"},
		{"64vcpu-256clients-compare-max", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256&speed=max"},
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
			eval[bool](t, ctx, `window.schedplay.play(), true`)
			time.Sleep(2 * time.Second) // reach the steady state (clients connected, arcs in flight)
			eval[bool](t, ctx, `window.schedplay.perfReset(), true`)
			waitFor(t, ctx, `window.schedplay.state().perf.samples >= 120`, 120*time.Second)
			st = state(t, ctx)
			t.Logf("%s: Update+Draw median %.2f ms, p95 %.2f ms, max %.2f ms over %d frames; %d vertices; %d CPUs x %d arms; sim t=%d ns",
				tc.desc, st.Perf.MedianMs, st.Perf.P95Ms, st.Perf.MaxMs, st.Perf.Samples, st.Perf.Vertices, len(st.CPUs), len(st.Arms), st.NowNs)
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
