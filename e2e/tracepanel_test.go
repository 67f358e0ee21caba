package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"schedplay/engine"
	"schedplay/trace"
)

// readReplay is the page's replay section (playground.ReplayUI).
const readReplay = `JSON.parse(window.schedplayCore.snapshot(0)).replay`

// replaySection is the part of the replay section the tests read.
type replaySection struct {
	Runs      bool     `json:"runs"`
	Name      string   `json:"name"`
	CPUs      int      `json:"cpus"`
	Threads   int      `json:"threads"`
	WindowMs  float64  `json:"window_ms"`
	Columns   []string `json:"columns"`
	Processes []struct {
		Name  string    `json:"name"`
		Pid   int32     `json:"pid"`
		CPUMs []float64 `json:"cpu_ms"`
	} `json:"processes"`
}

// upload gives the panel's file input a file, as a person choosing it in
// the file dialog does.
func upload(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#trace-file"), []string{path})); err != nil {
		t.Fatal(err)
	}
}

// TestTracePanel: a person opens "Your own → Trace" on `schedplay serve`'s
// page, uploads a corrupt file (the panel says why it is not a trace), then
// LISA's recorded trace (kerneltrace/testdata): the panel lists its 6 CPUs,
// processes and threads with their recorded CPU time. They narrow the
// window to 300 ms, leave one process out and Run: the arms replay it on 6
// CPUs under linux, and the results set each process's CPU time as recorded
// beside the replay's. Share stores it (the whole trace's replay too, larger
// than a scenario document may be), and the share link replays it.
func TestTracePanel(t *testing.T) {
	base := serve(t)
	ctx, _ := browser(t, 1366, 900)
	open(t, ctx, base+"/#v=1&preset=idle-guest&speed=max")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#trace-open"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!document.getElementById('trace-panel').hidden`, 10*time.Second)

	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.pftrace")
	if err := os.WriteFile(broken, []byte("\x0a\x05\x08garbage that is no trace at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	upload(t, ctx, broken)
	waitFor(t, ctx, `document.querySelector('#replay-status .err') !== null`, time.Minute)
	if msg := eval[string](t, ctx, `document.getElementById('replay-status').textContent`); !strings.Contains(msg, "Not opened: broken.pftrace") {
		t.Errorf("a corrupt file: the panel says %q", msg)
	}
	screenshot(t, ctx, "#trace-panel", "trace-panel-refused")

	data, err := os.ReadFile(filepath.Join(repoRoot(t), "kerneltrace", "testdata", "lisa-trace.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lisa := filepath.Join(dir, "lisa-trace.txt")
	if err := os.WriteFile(lisa, data, 0o644); err != nil {
		t.Fatal(err)
	}
	upload(t, ctx, lisa)
	waitFor(t, ctx, `!document.querySelector('.trace-chosen').hidden`, time.Minute)
	facts := eval[string](t, ctx, `document.getElementById('trace-facts').textContent`)
	if !strings.Contains(facts, "lisa-trace.txt") || !strings.Contains(facts, "ftrace-text") || !strings.Contains(facts, "6 CPUs") {
		t.Errorf("the panel says %q of the LISA trace", facts)
	}
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('#trace-procs tbody tr')].map(r => r.textContent)`)
	if len(rows) < 5 || !strings.Contains(rows[0], "ms") {
		t.Fatalf("process rows %q", rows)
	}
	// The first process's threads, with their tids and CPU time.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#trace-procs tbody tr:first-child summary"))); err != nil {
		t.Fatal(err)
	}
	if th := eval[string](t, ctx, `document.querySelector('#trace-procs tbody tr:first-child ul').textContent`); !strings.Contains(th, "tid ") {
		t.Errorf("the first process's threads: %q", th)
	}
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#trace-to"), "300"),
		chromedp.Click(chromedp.CSS("#trace-procs tbody tr:last-child input"))); err != nil {
		t.Fatal(err)
	}
	left := eval[string](t, ctx, `document.querySelector('#trace-procs tbody tr:last-child input').value`)
	eval[any](t, ctx, `document.getElementById('trace-panel').scrollIntoView()`)
	screenshot(t, ctx, "#trace-panel", "trace-panel-laptop")

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#trace-run"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `(r => r && r.runs)(`+readReplay+`)`, time.Minute)
	r := evalJSON[replaySection](t, ctx, readReplay)
	st := state(t, ctx)
	end := strconv.FormatInt(stateAs[struct {
		EndNs int64 `json:"end_ns"`
	}](t, ctx).EndNs, 10)
	if r.Name != "lisa-trace.txt" || r.CPUs != 6 || r.WindowMs < 299 || r.WindowMs > 301 || len(st.Arms) != 1 || st.Scenario.Machine.VCPUs != 6 {
		t.Fatalf("after Run: replay %+v, %d arms on %d vCPUs", r, len(st.Arms), st.Scenario.Machine.VCPUs)
	}
	waitFor(t, ctx, `(s => s.options[s.selectedIndex].text === 'trace: lisa-trace.txt')(document.getElementById('preset'))`, 10*time.Second)
	for _, p := range r.Processes {
		if strconv.Itoa(int(p.Pid)) == left {
			t.Errorf("process %d was left out, and replays", p.Pid)
		}
	}
	// Played to its end, the busiest processes replay their recorded CPU time.
	eval[any](t, ctx, `window.schedplay.runTo(`+end+`)`)
	waitRun(t, ctx, `(s => !s.playing && s.now_ns >= `+end+`)(window.schedplay.state())`, time.Minute)
	r = evalJSON[replaySection](t, ctx, readReplay)
	if len(r.Columns) != 2 || r.Columns[0] != "as recorded" || len(r.Processes) < 3 {
		t.Fatalf("results: %+v", r)
	}
	for _, p := range r.Processes[:2] {
		if p.CPUMs[1] < 0.99*p.CPUMs[0] || p.CPUMs[1] > 1.01*p.CPUMs[0] {
			t.Errorf("process %s: %.3f ms recorded, %.3f replayed", p.Name, p.CPUMs[0], p.CPUMs[1])
		}
	}
	waitFor(t, ctx, `document.querySelectorAll('#trace-results tbody tr').length >= 3`, 10*time.Second)
	head := eval[string](t, ctx, `document.querySelector('#trace-results thead').textContent`)
	if !strings.Contains(head, "CPU time") || !strings.Contains(head, "as recorded") || !strings.Contains(head, "replayed") {
		t.Errorf("the results table's head: %q", head)
	}
	screenshot(t, ctx, "", "trace-replayed-laptop")

	// Compared: the recording stays a column of its own beside both arms.
	eval[any](t, ctx, `(s => { s.value = 'machine.platform:native,kvm'; s.dispatchEvent(new Event('change')) })(document.getElementById('compare'))`)
	waitFor(t, ctx, `(r => r.columns.length === 3)(`+readReplay+`)`, 30*time.Second)
	eval[any](t, ctx, `window.schedplay.runTo(100e6)`)
	waitRun(t, ctx, `(s => !s.playing && s.now_ns >= 100e6)(window.schedplay.state())`, time.Minute)
	waitFor(t, ctx, `document.querySelectorAll('#trace-results thead tr:last-child th').length === 6`, 10*time.Second)
	heads := eval[[]string](t, ctx, `[...document.querySelectorAll('#trace-results thead tr:last-child th')].map(h => h.textContent)`)
	if strings.Join(heads, ",") != "as recorded,A,B,as recorded,A,B" {
		t.Errorf("the compared results table's heads: %q", heads)
	}
	if c := eval[string](t, ctx, `document.querySelector('#trace-results caption').textContent`); !strings.Contains(c, "A: Platform bare metal") {
		t.Errorf("the compared results' caption %q does not say what A is", c)
	}
	eval[any](t, ctx, `document.getElementById('trace-results').scrollIntoView()`)
	screenshot(t, ctx, viewport, "trace-compare-laptop")
	eval[any](t, ctx, `(s => { s.value = 'off'; s.dispatchEvent(new Event('change')) })(document.getElementById('compare'))`)

	// Copy link cannot carry the trace: it says to Share.
	eval[bool](t, ctx, `window.__copied = [], Object.defineProperty(navigator, 'clipboard', {value: {writeText: async (s) => { window.__copied.push(s) }}}), true`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#copy-link"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.getElementById('toast').textContent.includes('This trace replay is too long for a link: use Share')`, 10*time.Second)

	// Share: the link replays the same trace.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#share"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `window.__copied.length === 1`, 30*time.Second)
	link := eval[string](t, ctx, `window.__copied[0]`)
	if !strings.HasPrefix(link, base+"/s/") {
		t.Fatalf("share link %q (toast %q)", link, eval[string](t, ctx, `document.getElementById('toast').textContent`))
	}

	// The whole trace: its replay is larger than a scenario document may be.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#trace-to"), ""), chromedp.Click(chromedp.CSS("#trace-run"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `(r => r && r.runs && r.window_ms > 6000)(`+readReplay+`)`, time.Minute)
	if n := eval[int](t, ctx, `window.schedplayCore.scenario().length`); n <= 80<<10 {
		t.Errorf("the whole trace's scenario is %d bytes: the test meant one over a document's limit", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#share"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `window.__copied.length === 2`, 30*time.Second)
	whole := eval[string](t, ctx, `window.__copied[1]`)

	for _, c := range []struct {
		link     string
		windowMs float64
	}{{link, 300}, {whole, 6000}} {
		open(t, ctx, c.link)
		waitFor(t, ctx, `(r => r && r.runs)(`+readReplay+`)`, time.Minute)
		r := evalJSON[replaySection](t, ctx, readReplay)
		if st := state(t, ctx); r.Name != "lisa-trace.txt" || r.WindowMs < c.windowMs || len(st.Problems) > 0 || st.Scenario.Machine.VCPUs != 6 {
			t.Errorf("the share %s: replay %+v, problems %v", c.link, r, st.Problems)
		}
		waitFor(t, ctx, `!document.getElementById('trace-panel').hidden && document.getElementById('replay-status').textContent.includes('This link replays a trace')`, 10*time.Second)
		// The share page's own link carries it.
		eval[bool](t, ctx, `window.__copied = [], Object.defineProperty(navigator, 'clipboard', {value: {writeText: async (s) => { window.__copied.push(s) }}}), true`)
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#copy-link"))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `window.__copied.length === 1 && window.__copied[0].startsWith(location.origin + location.pathname + '#')`, 10*time.Second)
	}
}

// TestTracePanelPhone: the panel on a phone's width, with a trace open: it
// fits the width (nothing scrolls sideways but the tables' own boxes); every
// wakeup timed says so; a file dropped on the panel, and a Perfetto
// protobuf, open and run; a file over the page's limit is refused at once,
// by name and limit.
func TestTracePanelPhone(t *testing.T) {
	ctx, base := browser(t, 390, 844)
	open(t, ctx, base+"/#v=1&preset=idle-guest")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#trace-open"))); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "kerneltrace", "testdata", "lisa-trace.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lisa := filepath.Join(dir, "lisa-trace.txt")
	if err := os.WriteFile(lisa, data, 0o644); err != nil {
		t.Fatal(err)
	}
	upload(t, ctx, lisa)
	waitFor(t, ctx, `!document.querySelector('.trace-chosen').hidden`, time.Minute)
	if w := eval[float64](t, ctx, `document.getElementById('trace-panel').getBoundingClientRect().right`); w > 390 {
		t.Errorf("the panel's right edge is at %.0f px on a 390 px screen", w)
	}
	if sw := eval[float64](t, ctx, `document.documentElement.scrollWidth`); sw > 390 {
		t.Errorf("the page scrolls sideways: %.0f px wide on a 390 px screen", sw)
	}
	eval[any](t, ctx, `document.getElementById('trace-panel').scrollIntoView()`)
	screenshot(t, ctx, "#trace-panel", "trace-panel-phone")

	// Every wakeup timed: the replay says so.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#trace-timed")), chromedp.Click(chromedp.CSS("#trace-run"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.getElementById('replay-status').textContent.includes('every wakeup timed.')`, time.Minute)

	// Dropped on the panel, as from a file manager: another trace replaces it.
	eval[any](t, ctx, `(() => { const dt = new DataTransfer(); dt.items.add(new File([`+jsString(smallTrace)+`], 'dropped.txt'));
		document.getElementById('trace-panel').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true})) })()`)
	waitFor(t, ctx, `document.getElementById('trace-facts').textContent.includes('dropped.txt')`, 30*time.Second)
	if facts := eval[string](t, ctx, `document.getElementById('trace-facts').textContent`); !strings.Contains(facts, "2 CPUs") {
		t.Errorf("the dropped trace: %q", facts)
	}

	// A Perfetto protobuf (a simulated hackbench under linux, as `schedplay
	// run --trace out.pftrace` writes it) opens and runs too.
	hb, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "hackbench.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.DecodeScenario(hb, "duration_ms=30", "warmup_ms=0", "sched.policy=linux")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	var pf bytes.Buffer
	if _, err := trace.WritePerfetto(&pf, sim, trace.Options{NoDecisions: true}); err != nil {
		t.Fatal(err)
	}
	pfPath := filepath.Join(dir, "hackbench.pftrace")
	if err := os.WriteFile(pfPath, pf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	upload(t, ctx, pfPath)
	waitFor(t, ctx, `document.getElementById('trace-facts').textContent.includes('hackbench.pftrace · perfetto')`, time.Minute)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#trace-run"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `(r => r && r.runs && r.name === 'hackbench.pftrace')(`+readReplay+`)`, time.Minute)

	big := filepath.Join(dir, "huge.pftrace")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(65<<20 + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	upload(t, ctx, big)
	waitFor(t, ctx, `document.getElementById('replay-status').textContent.includes('huge.pftrace is 65 MiB, above the page\'s limit of 64 MiB')`, 10*time.Second)
}

// TestTraceShareTooLarge: a trace whose replay is over the share limit runs
// in the page, and Share says it is not shared, naming the limit, on
// `schedplay serve`.
func TestTraceShareTooLarge(t *testing.T) {
	base := serve(t)
	ctx, _ := browser(t, 1280, 900)
	open(t, ctx, base+"/#v=1&preset=idle-guest")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#trace-open"))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "busy.txt")
	if err := os.WriteFile(path, pingPong(24000), 0o644); err != nil {
		t.Fatal(err)
	}
	upload(t, ctx, path)
	waitFor(t, ctx, `!document.querySelector('.trace-chosen').hidden`, time.Minute)
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#trace-run"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `(r => r && r.runs)(`+readReplay+`)`, 2*time.Minute)
	t.Logf("from Run to the replay running: %v (%s)", time.Since(start).Round(10*time.Millisecond), eval[string](t, ctx, `document.getElementById('trace-facts').textContent`))
	if n := eval[int](t, ctx, `window.schedplayCore.scenario().length`); n <= 4<<20 {
		t.Fatalf("the scenario is %d bytes: the test meant one over the share limit", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#share"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.getElementById('toast').textContent.includes('Not shared')`, time.Minute)
	if msg := eval[string](t, ctx, `document.getElementById('toast').textContent`); !strings.Contains(msg, "4194304, 4 MiB, for one that replays a trace") {
		t.Errorf("the toast says %q", msg)
	}
}

// pingPong is ftrace text of 8 pairs of threads on 4 CPUs, n rounds of one
// waking the other: 3n events.
func pingPong(n int) []byte {
	var b strings.Builder
	b.WriteString("# tracer: nop\n")
	us := int64(1_000_000)
	line := func(pid, cpu int, at int64, ev string) {
		fmt.Fprintf(&b, "%16s-%-5d [%03d] d..2. %d.%06d: %s\n", "t", pid, cpu, at/1e6, at%1e6, ev)
	}
	for i := range n {
		p, q, cpu := 100+i%8, 200+i%8, i%4
		line(p, cpu, us, fmt.Sprintf("sched_switch: prev_comm=a%d prev_pid=%d prev_prio=120 prev_state=S ==> next_comm=b%d next_pid=%d next_prio=120", p, p, q, q))
		line(q, cpu, us+5, fmt.Sprintf("sched_waking: comm=a%d pid=%d prio=120 target_cpu=%03d", p, p, cpu))
		line(q, cpu, us+10, fmt.Sprintf("sched_switch: prev_comm=b%d prev_pid=%d prev_prio=120 prev_state=S ==> next_comm=a%d next_pid=%d next_prio=120", q, q, p, p))
		us += 25
	}
	return []byte(b.String())
}

// smallTrace is ftrace text of two threads on 2 CPUs waking each other.
const smallTrace = `# tracer: nop
          server-100   [000] d..2. 1.000000: sched_switch: prev_comm=server prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          client-200   [001] d..2. 1.000050: sched_waking: comm=server pid=100 prio=120 target_cpu=000
          <idle>-0     [000] d..2. 1.000060: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=server next_pid=100 next_prio=120
          client-200   [001] d..2. 1.000100: sched_switch: prev_comm=client prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          server-100   [000] d..2. 1.000300: sched_switch: prev_comm=server prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`
