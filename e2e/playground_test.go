package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestPageDraws: the page loads, draws vCPU tiles (the canvas is not blank) and
// fills the HTML around it, in both themes and on a HiDPI screen.
func TestPageDraws(t *testing.T) {
	tests := []struct {
		desc, frag string
		dpr        float64
	}{
		{desc: "default", frag: ""},
		{desc: "light-hidpi", frag: "#v=1&theme=light", dpr: 2},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			ctx, base := browser(t, 1400, 900)
			if tc.dpr > 0 {
				setDPR(t, ctx, 1400, 900, tc.dpr)
			}
			open(t, ctx, base+"/"+tc.frag)
			eval[bool](t, ctx, `window.schedplay.play(), true`)
			waitFor(t, ctx, `window.schedplay.state().now_ns > 2e6`, 30*time.Second)
			img := screenshot(t, ctx, "#stage", "stage-"+tc.desc)
			distinct, nonBG := colourStats(img)
			t.Logf("stage: %d colours, %.0f%% not background", distinct, nonBG*100)
			if distinct < 6 || nonBG < 0.10 {
				t.Errorf("the stage looks blank: %d colours, %.1f%% of pixels differ from the background", distinct, nonBG*100)
			}
			if tc.dpr > 0 {
				w := eval[float64](t, ctx, `document.querySelector('#stage canvas').width / document.querySelector('#stage canvas').clientWidth`)
				if w < tc.dpr-0.01 {
					t.Errorf("canvas has %.2f device pixels per CSS pixel, want %.1f (HiDPI)", w, tc.dpr)
				}
			}
			screenshot(t, ctx, "", "page-"+tc.desc)
			st := state(t, ctx)
			if len(st.CPUs) != st.Scenario.Machine.VCPUs || st.Tiles != st.Scenario.Machine.VCPUs*len(st.Arms) {
				t.Errorf("state has %d CPUs and %d tiles for %d vCPUs x %d arms", len(st.CPUs), st.Tiles, st.Scenario.Machine.VCPUs, len(st.Arms))
			}
			cards := eval[int](t, ctx, `document.querySelectorAll('#cards .card').length`)
			if cards < 4 {
				t.Errorf("%d metric cards, want at least 4", cards)
			}
		})
	}
}

// TestTilesFollowVCPUs moves the vCPU slider like a keyboard user and checks the
// tile count, the URL and state() follow.
func TestTilesFollowVCPUs(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&compare=off")
	for _, n := range []int{1, 7, 64} {
		eval[bool](t, ctx, `(() => { const s = document.getElementById('vcpus');
			s.value = String(s._ladder.indexOf(`+itoa(n)+`)); s.dispatchEvent(new Event('input', {bubbles: true})); return true })()`)
		waitFor(t, ctx, `window.schedplay.state().tiles === `+itoa(n), 20*time.Second)
		st := state(t, ctx)
		if st.Scenario.Machine.VCPUs != n || len(st.CPUs) != n {
			t.Errorf("vcpus=%d: scenario has %d vCPUs, state %d CPUs", n, st.Scenario.Machine.VCPUs, len(st.CPUs))
		}
		if hash := eval[string](t, ctx, `location.hash`); !strings.Contains(hash, "machine.vcpus="+itoa(n)) {
			t.Errorf("vcpus=%d: URL fragment %q does not carry it", n, hash)
		}
		if out := eval[string](t, ctx, `document.getElementById('vcpus-val').textContent`); out != itoa(n) {
			t.Errorf("vcpus=%d: the control shows %q", n, out)
		}
		screenshot(t, ctx, "#stage", "vcpus-"+itoa(n))
	}
}

// TestControlsUpdateURLAndState flips controls and checks the fragment and state().
func TestControlsUpdateURLAndState(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&compare=off")
	eval[bool](t, ctx, `document.getElementById('wake-pull').click(), true`)
	waitFor(t, ctx, `location.hash.includes('sched.wake_pull=1')`, 10*time.Second)
	if st := state(t, ctx); !st.Scenario.Sched.WakePull {
		t.Errorf("after turning idle pull on, state().scenario.sched.wake_pull is false")
	}
	// A ladder slider: spin cap to 100 000 iterations.
	eval[bool](t, ctx, `(() => { const s = document.getElementById('spin-cap');
		s.value = String(s._ladder.indexOf(100000)); s.dispatchEvent(new Event('input', {bubbles: true})); return true })()`)
	waitFor(t, ctx, `location.hash.includes('sched.idle_spin.cap=100000')`, 10*time.Second)
	if st := state(t, ctx); st.Scenario.Sched.IdleSpin.Cap != 100000 {
		t.Errorf("spin cap in state() = %d, want 100000", st.Scenario.Sched.IdleSpin.Cap)
	}
	if got := eval[string](t, ctx, `document.getElementById('spin-cap-val').textContent`); !strings.Contains(got, "iter") {
		t.Errorf("spin cap shows %q, want a value with its unit", got)
	}
	// View keys: speed and compare.
	eval[bool](t, ctx, `(() => { const s = document.getElementById('speed'); s.value = '20us'; s.dispatchEvent(new Event('change')); return true })()`)
	waitFor(t, ctx, `location.hash.includes('speed=20us')`, 10*time.Second)
	// The chart picker offers the model's choices, and a choice reaches the model.
	charts := eval[string](t, ctx, `[...document.getElementById('chart-metric').options].map(o => o.value + '=' + o.text).join(',')`)
	if want := "throughput=throughput,busy=busy vCPUs,ipis=IPIs/s,halts=halt VM exits/s"; charts != want {
		t.Errorf("chart picker offers %q, want %q", charts, want)
	}
	eval[bool](t, ctx, `(() => { const s = document.getElementById('chart-metric'); s.value = 'ipis'; s.dispatchEvent(new Event('change')); return true })()`)
	waitFor(t, ctx, `window.schedplay.state().chart === 'ipis'`, 10*time.Second)
	if msg := eval[string](t, ctx, `window.schedplay.set('machine.vcpus', '100000') || ''`); !strings.Contains(msg, "machine.vcpus") {
		t.Errorf("an out-of-range set() returned %q, want a message naming machine.vcpus", msg)
	}
}

// TestPanelShowsWhatApplies: the panel shows only the controls whose knob changes
// something in the arms on the stage (hackbench on bare metal has no clients, no
// host halt polling, no idle pull), follows a change that makes a knob apply, and
// offers comparisons only of knobs that apply. The host's busy vCPUs show the
// published figures beside the model's.
func TestPanelShowsWhatApplies(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu")
	waitFor(t, ctx, `!!document.querySelector('#cards .card[data-id="busy-host"]')`, 10*time.Second)
	if sub := eval[string](t, ctx, `document.querySelector('#cards .card[data-id="busy-host"] .sub').textContent`); !strings.Contains(sub, "published 8.0 → 27.0") {
		t.Errorf("busy vCPUs (host) card: %q, want the published 8.0 → 27.0", sub)
	}

	open(t, ctx, base+"/#v=1&preset=hackbench&compare=off")
	waitFor(t, ctx, `window.schedplay.state().preset === 'hackbench'`, 10*time.Second)
	visible := func(id string) bool {
		t.Helper()
		return eval[bool](t, ctx, `(e => !!e && e.getClientRects().length > 0)(document.getElementById('`+id+`'))`)
	}
	for id, want := range map[string]bool{"vcpus": true, "platform": true, "policy": true, "wake-sync": true, "spin-cap": true,
		"clients": false, "host-halt-poll": false, "wake-pull": false, "balance": false, "adaptive-spin": false, "spin-floor": false} {
		if got := visible(id); got != want {
			t.Errorf("hackbench on bare metal: #%s visible = %v, want %v", id, got, want)
		}
	}
	if empty := eval[int](t, ctx, `[...document.querySelectorAll('#controls fieldset')].filter(f => f.getClientRects().length > 0 && !f.querySelector('.ctl:not([hidden])')).length`); empty != 0 {
		t.Errorf("%d groups are shown without a control", empty)
	}
	if opts := eval[string](t, ctx, `[...document.getElementById('compare').options].map(o => o.value).join(' ')`); strings.Contains(opts, "sched.wake_pull") {
		t.Errorf("hackbench under scx_simple is offered an idle-pull comparison: %s", opts)
	}
	// On KVM the host halt-polls: its control appears.
	eval[bool](t, ctx, `(() => { const s = document.getElementById('platform'); s.value = 'kvm'; s.dispatchEvent(new Event('change')); return true })()`)
	waitFor(t, ctx, `(e => e.getClientRects().length > 0)(document.getElementById('host-halt-poll'))`, 10*time.Second)

	// A thread per connection over one RX queue: its network knobs and the
	// balancer's pass, but RSS only once the device has queues to spread over.
	for _, tc := range []struct {
		frag string
		want map[string]bool
	}{
		{"#v=1&preset=thread-per-conn&compare=off", map[string]bool{"rx-queues": true, "rss": false, "requests-per-conn": true, "balancer": true, "clients": true}},
		{"#v=1&preset=thread-per-conn&compare=off&workload.rx_queues=16", map[string]bool{"rx-queues": true, "rss": true}},
		{"#v=1&preset=hackbench&compare=off", map[string]bool{"rx-queues": false, "rss": false, "requests-per-conn": false, "balancer": false}},
	} {
		open(t, ctx, base+"/"+tc.frag)
		waitFor(t, ctx, `document.getElementById('vcpus').getClientRects().length > 0 && window.schedplay.state().pending === 0`, 10*time.Second)
		for id, want := range tc.want {
			if got := visible(id); got != want {
				t.Errorf("%s: #%s visible = %v, want %v", tc.frag, id, got, want)
			}
		}
	}
}

// TestReloadReproduces opens a link, runs to a simulated instant, and checks that a
// reload of the same URL gives the same scenario and the same metrics there.
func TestReloadReproduces(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	url := base + "/#v=1&preset=tpcb-32vcpu&workload.clients=48&seed=7&compare=sched.wake_pull&speed=max"
	const at = "250000000" // 250 ms simulated: clients have connected and started
	run := func(url string) (pageState, string) {
		open(t, ctx, url)
		eval[bool](t, ctx, `window.schedplay.runTo(`+at+`), true`)
		waitRun(t, ctx, `(s => !s.playing && s.now_ns === `+at+`)(window.schedplay.state())`, time.Minute)
		return state(t, ctx), eval[string](t, ctx, `JSON.stringify(window.schedplay.state().arms.map(a => a.metrics))`)
	}
	s1, m1 := run(url)
	if s1.Scenario.Seed != 7 || s1.Scenario.Workload.Clients != 48 || len(s1.Arms) != 2 {
		t.Fatalf("the link did not load: seed %d, clients %d, %d arms", s1.Scenario.Seed, s1.Scenario.Workload.Clients, len(s1.Arms))
	}
	if strings.HasPrefix(m1, `[{"completed":0,`) {
		t.Errorf("no completions by 250 ms: %s", m1)
	}
	s2, m2 := run("") // reload
	if s2.Fragment != s1.Fragment {
		t.Errorf("fragment after reload %q, before %q", s2.Fragment, s1.Fragment)
	}
	if m1 != m2 {
		t.Errorf("metrics differ at the same simulated time:\nfirst  %s\nreload %s", m1, m2)
	}
}

// TestEmbedHidesChrome: embed=1 hides the controls and header and autoplays.
func TestEmbedHidesChrome(t *testing.T) {
	ctx, base := browser(t, 800, 450)
	open(t, ctx, base+"/#v=1&embed=1")
	for _, id := range []string{"panel", "top", "charts", "vcpus", "play"} {
		if vis := eval[bool](t, ctx, `(e => !!e && e.getClientRects().length > 0)(document.getElementById('`+id+`'))`); vis {
			t.Errorf("#%s is visible in embed mode", id)
		}
	}
	waitFor(t, ctx, `window.schedplay.state().playing && window.schedplay.state().now_ns > 0`, 20*time.Second)
	fits := eval[bool](t, ctx, `document.documentElement.scrollHeight <= window.innerHeight + 2`)
	if !fits {
		t.Errorf("embed does not fit the frame: page height %v, frame %v", eval[float64](t, ctx, `document.documentElement.scrollHeight`), eval[float64](t, ctx, `window.innerHeight`))
	}
	screenshot(t, ctx, "", "embed")

	// hide= drops parts of the full page. (Only the fragment changes, so this is a
	// same-document navigation: wait for the page to take it in.)
	open(t, ctx, base+"/#v=1&hide=controls,charts")
	waitFor(t, ctx, `!window.schedplay.state().embed && document.body.classList.contains('hide-charts')`, 10*time.Second)
	for id, want := range map[string]bool{"panel": false, "charts": false, "top": true, "stage": true} {
		if vis := eval[bool](t, ctx, `(e => !!e && e.getClientRects().length > 0)(document.getElementById('`+id+`'))`); vis != want {
			t.Errorf("hide=controls,charts: #%s visible = %v, want %v", id, vis, want)
		}
	}
}

// TestMalformedFragment: a hostile or broken link shows a message naming each bad
// key and the page still runs with defaults.
func TestMalformedFragment(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&machine.vcpus=9999&bogus=1&speed=warp&%3Cimg%20src=x%20onerror=alert(1)%3E=1")
	text := eval[string](t, ctx, `(e => e.hidden ? '' : e.innerText)(document.getElementById('problems'))`)
	for _, key := range []string{"machine.vcpus", "bogus", "speed", "<img"} {
		if !strings.Contains(text, key) {
			t.Errorf("the problem message does not name %q:\n%s", key, text)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#problems img').length`); n != 0 {
		t.Errorf("markup from the fragment was rendered as HTML")
	}
	st := state(t, ctx)
	if st.Scenario.Machine.VCPUs != 32 || st.Tiles == 0 {
		t.Errorf("defaults not used: %d vCPUs, %d tiles", st.Scenario.Machine.VCPUs, st.Tiles)
	}
	if strings.Contains(st.Fragment, "9999") || strings.Contains(st.Fragment, "bogus") {
		t.Errorf("bad keys kept in the fragment: %s", st.Fragment)
	}
	screenshot(t, ctx, "", "malformed")
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

// TestShareAndCopy: Share stores the scenario and copies a /s/{id} link that opens
// the same comparison; when the service fails it copies the full link instead;
// Copy embed code gives an iframe with embed=1.
func TestShareAndCopy(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&machine.vcpus=12&compare=sched.wake_pull&speed=5ms")
	// Capture the clipboard (headless Chromium has no clipboard permission).
	eval[bool](t, ctx, `window.__copied = [], Object.defineProperty(navigator, 'clipboard', {value: {writeText: async (s) => { window.__copied.push(s) }}}), true`)
	eval[bool](t, ctx, `document.getElementById('share').click(), true`)
	waitFor(t, ctx, `window.__copied.length === 1`, 10*time.Second)
	link := eval[string](t, ctx, `window.__copied[0]`)
	if !strings.HasPrefix(link, base+"/s/") || !strings.HasSuffix(link, "#v=1&compare=arms&speed=5ms") {
		t.Fatalf("share link %q", link)
	}
	embed := ""
	eval[bool](t, ctx, `document.getElementById('copy-embed').click(), true`)
	waitFor(t, ctx, `window.__copied.length === 2`, 10*time.Second)
	embed = eval[string](t, ctx, `window.__copied[1]`)
	if !strings.HasPrefix(embed, `<iframe src="`+base+`/#v=1&amp;preset=tpcb-32vcpu&amp;machine.vcpus=12`) || !strings.Contains(embed, "embed=1") {
		t.Errorf("embed code %s", embed)
	}

	if os.Getenv("SCHEDPLAY_E2E_URL") != "" {
		return // the failure case needs the test's own share stand-in
	}
	shared.share.mu.Lock()
	shared.share.fail = true
	shared.share.mu.Unlock()
	defer func() { shared.share.mu.Lock(); shared.share.fail = false; shared.share.mu.Unlock() }()
	eval[bool](t, ctx, `document.getElementById('share').click(), true`)
	waitFor(t, ctx, `window.__copied.length === 3`, 10*time.Second)
	if got, want := eval[string](t, ctx, `window.__copied[2]`), base+"/#"+state(t, ctx).Fragment; got != want {
		t.Errorf("fallback copied %q, want %q", got, want)
	}
	waitFor(t, ctx, `document.getElementById('toast').textContent.includes('not available')`, 5*time.Second)

	// The shared link opens the same scenario and comparison.
	open(t, ctx, link)
	st := state(t, ctx)
	if st.Scenario.Machine.VCPUs != 12 || len(st.Arms) != 2 || st.Compare != "arms" || len(st.Problems) > 0 {
		t.Errorf("shared page: %d vCPUs, %d arms, compare %q, problems %v", st.Scenario.Machine.VCPUs, len(st.Arms), st.Compare, st.Problems)
	}
	if !strings.HasPrefix(st.Arms[1].Name, "Idle pull on") { // named by the schema's label
		t.Errorf("arm B of the share is %q", st.Arms[1].Name)
	}
	// An unknown share id is reported and the default preset shown.
	open(t, ctx, base+"/s/nosuchid")
	text := eval[string](t, ctx, `document.getElementById('problems').innerText`)
	if !strings.Contains(text, "nosuchid") {
		t.Errorf("a missing share should be reported: %q", text)
	}
}

// TestExplainOnClick: clicking a vCPU tile, or moving to it with the arrow keys,
// explains the scheduler's last decision about it.
func TestExplainOnClick(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&compare=off&speed=max")
	eval[bool](t, ctx, `window.schedplay.runTo(150000000), true`)
	waitRun(t, ctx, `(s => !s.playing && s.now_ns === 150000000)(window.schedplay.state())`, time.Minute)
	st := state(t, ctx)
	var box struct{ X, Y, W float64 }
	for _, b := range st.Boxes {
		if b.CPU == 0 {
			box.X, box.Y, box.W = b.X, b.Y, b.W
		}
	}
	// Canvas coordinates to page coordinates.
	left := eval[float64](t, ctx, `document.querySelector('#stage canvas').getBoundingClientRect().left`)
	top := eval[float64](t, ctx, `document.querySelector('#stage canvas').getBoundingClientRect().top`)
	x, y := left+box.X+box.W/2, top+box.Y+box.W/2
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(x, y)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.getElementById('explain').textContent.startsWith('CPU 0 · t = ')`, 5*time.Second)
	if s := state(t, ctx); s.Selected.CPU != 0 || s.Selected.Thread != -1 {
		t.Errorf("selected %+v after clicking CPU 0", s.Selected)
	}
	// Arrow keys on the focused canvas move the selection.
	eval[bool](t, ctx, `document.querySelector('#stage canvas').focus(), true`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `window.schedplay.state().selected.cpu === 1`, 5*time.Second)
	if ex := eval[string](t, ctx, `document.getElementById('explain').textContent`); !strings.HasPrefix(ex, "CPU 1") {
		t.Errorf("after ArrowRight the explanation is %q", ex)
	}
	// Tab leaves the canvas (no keyboard trap).
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	if tag := eval[string](t, ctx, `document.activeElement.tagName`); tag == "CANVAS" {
		t.Error("Tab does not move the focus off the canvas")
	}
}

// TestSweep runs a (short) sweep from the button and checks both arms' lines and
// the published points are plotted.
func TestSweep(t *testing.T) {
	ctx, base := browser(t, 1280, 860)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&duration_ms=300&warmup_ms=100")
	if n := eval[int](t, ctx, `document.querySelectorAll('#chart-sweep circle').length`); n != 10 {
		t.Errorf("%d published points before the sweep, want the preset's 10", n)
	}
	eval[bool](t, ctx, `document.getElementById('sweep').click(), true`)
	waitFor(t, ctx, `document.getElementById('sweep-note').textContent.startsWith('sweeping')`, 10*time.Second)
	waitFor(t, ctx, `document.getElementById('sweep-note').textContent.startsWith('each point')`, 120*time.Second)
	paths := eval[[]string](t, ctx, `[...document.querySelectorAll('#chart-sweep path')].map(p => p.getAttribute('d'))`)
	if len(paths) != 2 {
		t.Fatalf("%d sweep lines, want one per arm", len(paths))
	}
	for i, d := range paths {
		if strings.Count(d, "L") < 4 {
			t.Errorf("sweep line %d has too few points: %q", i, d)
		}
	}
	screenshot(t, ctx, "#charts", "sweep")
}

// TestRelayoutOnResize: the tiles are laid out again when the window changes size.
func TestRelayoutOnResize(t *testing.T) {
	ctx, base := browser(t, 1400, 900)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu")
	before := state(t, ctx).Boxes[0].W
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(700, 900)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `window.schedplay.state().boxes[0].w < `+strconv.FormatFloat(before*0.9, 'f', 2, 64), 10*time.Second)
	st := state(t, ctx)
	cw := eval[float64](t, ctx, `document.querySelector('#stage canvas').clientWidth`)
	for _, b := range st.Boxes {
		if b.X < 0 || b.X+b.W > cw+0.5 {
			t.Fatalf("after resizing, tile %d of arm %d (x %.0f, w %.0f) is outside the %.0f px canvas", b.CPU, b.Arm, b.X, b.W, cw)
		}
	}
	screenshot(t, ctx, "#stage", "resized-700")
}
