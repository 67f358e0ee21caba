package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"schedplay/engine"
)

// policyPanel is what the page's policy section says (state-independent:
// read from the model's snapshot through the page's DOM and editor).
type policyPanel struct {
	Runs   bool   `json:"runs"`
	Source string `json:"source"`
	Origin string `json:"origin"`
	InLink bool   `json:"in_link"`
	Errors []struct {
		Arm     string `json:"arm"`
		Ejected bool   `json:"ejected"`
		Line    int    `json:"line"`
		Message string `json:"message"`
	} `json:"errors"`
}

const readPolicy = `JSON.parse(window.schedplayCore.snapshot(0)).policy`

// TestPolicyEditor: a reviewer picks "your own policy" beside scx_simple on
// hackbench, sees it run in the editor, breaks it (a syntax error: the line
// is marked, the built-in arm plays on), lets it run away (its step budget
// ejects it, and the pane says so), fixes it, shares it, and the shared link
// and its embed run the same policy.
func TestPolicyEditor(t *testing.T) {
	if os.Getenv("SCHEDPLAY_E2E_URL") != "" {
		t.Skip("needs the test's own share stand-in")
	}
	ctx, base := browser(t, 1280, 900)
	open(t, ctx, base+"/#v=1&preset=hackbench&compare=sched.policy:scx_simple,scx&speed=max")

	// The editor opens by itself: an arm runs the scenario's own policy,
	// which starts as the example scx_simple, on the policy workers.
	waitFor(t, ctx, `!!window.schedplayEditorView && !document.getElementById('policy-panel').hidden`, time.Minute)
	p := evalJSON[policyPanel](t, ctx, readPolicy)
	example, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "policies", "scx_simple.star"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Runs || p.Source != string(example) || !p.InLink {
		t.Fatalf("policy section %+v: want the example scx_simple running, in the link", p)
	}
	if got := eval[string](t, ctx, `window.schedplayEditorView.get()`); got != string(example) {
		t.Fatalf("the editor shows %.80q, want the example", got)
	}
	if r := eval[string](t, ctx, `window.schedplay.state().runner`); !strings.Contains(r, "(policy)") {
		t.Errorf("runner %q: the arms should run on the policy workers", r)
	}
	eval[any](t, ctx, `window.schedplay.runTo(150e6)`)
	waitRun(t, ctx, `(s => s.now_ns === 150e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	screenshot(t, ctx, "", "policy-compare")

	// A syntax error: Run marks its line, arm B says it does not compile, arm
	// A (scx_simple) plays on.
	broken := strings.Replace(string(example), "def init():", "def init(:", 1)
	line := strings.Count(broken[:strings.Index(broken, "def init(:")], "\n") + 1
	eval[any](t, ctx, `window.schedplayEditorView.set(`+jsString(broken)+`), document.getElementById('policy-run').click()`)
	waitFor(t, ctx, `document.querySelector('#policy-editor .cm-lintRange-error') !== null`, time.Minute)
	p = evalJSON[policyPanel](t, ctx, readPolicy)
	if len(p.Errors) != 1 || p.Errors[0].Line != line || p.Errors[0].Ejected || !strings.HasPrefix(p.Errors[0].Arm, "B") {
		t.Fatalf("errors %+v: want arm B refused at line %d", p.Errors, line)
	}
	eval[any](t, ctx, `window.schedplay.runTo(100e6)`)
	waitRun(t, ctx, `(s => s.now_ns === 100e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	if r := eval[string](t, ctx, `window.schedplay.state().refused || ''`); r != "" {
		t.Errorf("the page is refused (%q): the built-in arm should play on", r)
	}
	if got := eval[string](t, ctx, `(document.querySelector('.pane-problem') || {}).textContent || ''`); !strings.Contains(got, "does not compile") {
		t.Errorf("arm B's pane says %q", got)
	}
	eval[any](t, ctx, `document.getElementById('policy-panel').scrollIntoView()`)
	screenshot(t, ctx, "#policy-panel", "policy-error")

	// A runaway loop: its step budget ejects it at its first enqueue, the
	// pane and the editor say so, and the run goes on on the fair class.
	runaway := strings.Replace(string(example), "def enqueue(p, enq_flags):", "def enqueue(p, enq_flags):\n    for i in range(1000000000):\n        pass", 1)
	eval[any](t, ctx, `window.schedplayEditorView.set(`+jsString(runaway)+`), document.getElementById('policy-run').click()`)
	eval[any](t, ctx, `window.schedplay.runTo(100e6)`)
	waitRun(t, ctx, `(s => s.now_ns === 100e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	waitFor(t, ctx, readPolicy+`.errors?.some(e => e.ejected)`, 30*time.Second)
	if got := eval[string](t, ctx, `(document.querySelector('.pane-problem') || {}).textContent || ''`); !strings.Contains(got, "ejected") || !strings.Contains(got, "step budget") {
		t.Errorf("arm B's pane says %q, want the ejection and its reason", got)
	}

	// Fixed (the example again): shared, the link runs the same policy to
	// the same numbers, and its embed plays it.
	fixed := "# my FIFO\n" + strings.Replace(string(example), "FIFO = False", "FIFO = True", 1)
	eval[any](t, ctx, `window.schedplayEditorView.set(`+jsString(fixed)+`), document.getElementById('policy-run').click()`)
	waitFor(t, ctx, readPolicy+`.source.startsWith('# my FIFO') && !`+readPolicy+`.errors`, 30*time.Second)
	id, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch('/api/share', {method: 'POST', body: window.schedplayCore.scenario()}).then(r => r.json()).then(j => j.id)`, chromedp.EvalAwaitPromise))
	if err != nil || id == "" {
		t.Fatalf("sharing: %q, %v", id, err)
	}
	frag := eval[string](t, ctx, `window.schedplayCore.shareFragment()`)
	open(t, ctx, base+"/s/"+id+"#"+frag)
	waitFor(t, ctx, `!!window.schedplayEditorView`, time.Minute)
	p = evalJSON[policyPanel](t, ctx, readPolicy)
	if p.Source != fixed || p.Origin != "shared" || !p.Runs {
		t.Fatalf("the shared page's policy: origin %q, runs %v, source %.40q", p.Origin, p.Runs, p.Source)
	}
	eval[any](t, ctx, `window.schedplay.runTo(100e6)`)
	waitRun(t, ctx, `(s => s.now_ns === 100e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	st := stateAs[struct {
		Arms []struct {
			Set     []string `json:"set"`
			Metrics struct {
				Results engine.Results `json:"results"`
			} `json:"metrics"`
		} `json:"arms"`
	}](t, ctx)
	if len(st.Arms) != 2 || st.Arms[1].Metrics.Results.ScxExit.Ejected() {
		t.Fatalf("the shared page runs %d arms (B ejected: %v)", len(st.Arms), len(st.Arms) > 1 && st.Arms[1].Metrics.Results.ScxExit.Ejected())
	}

	// An edit not run survives a reload as a draft, offered beside the
	// shared policy, never put in its place.
	eval[any](t, ctx, `window.schedplayEditorView.view.dispatch({changes: {from: 0, insert: '# draft\n'}})`)
	time.Sleep(400 * time.Millisecond) // the draft is written 250 ms after the last key
	open(t, ctx, "")
	waitFor(t, ctx, `!!window.schedplayEditorView && !document.getElementById('policy-draft').hidden`, time.Minute)
	if got := eval[string](t, ctx, `window.schedplayEditorView.get()`); got != fixed {
		t.Errorf("after a reload the editor shows %.40q, want the shared policy (the draft only offered)", got)
	}
	eval[any](t, ctx, `document.getElementById('policy-draft-open').click()`)
	if got := eval[string](t, ctx, `window.schedplayEditorView.get()`); !strings.HasPrefix(got, "# draft\n# my FIFO") {
		t.Errorf("Open my draft shows %.40q", got)
	}
	eval[any](t, ctx, `document.getElementById('policy-draft-drop').click(), localStorage.removeItem('schedplay.policy.draft')`)

	open(t, ctx, base+"/s/"+id+"#"+frag+"&embed=1")
	waitRun(t, ctx, `(s => s.now_ns > 20e6)(window.schedplay.state())`, time.Minute)
	if hidden := eval[bool](t, ctx, `getComputedStyle(document.getElementById('policy-panel')).display === 'none'`); !hidden {
		t.Error("the embed shows the editor")
	}
	if r := eval[string](t, ctx, `(s => (s.refused || '') + '|' + s.runner)(window.schedplay.state())`); !strings.HasPrefix(r, "|") || !strings.Contains(r, "(policy)") {
		t.Errorf("the embed: refused|runner = %q", r)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`)
	return "'" + r.Replace(s) + "'"
}

// TestPolicyEditorOnAPhone: on a phone's width, in the light theme, the
// editor fits the column under the stage (no sideways scrolling) and keeps
// its Run button in reach.
func TestPolicyEditorOnAPhone(t *testing.T) {
	ctx, base := browser(t, 390, 844)
	open(t, ctx, base+"/#v=1&preset=hackbench&sched.policy=scx&compare=off&theme=light")
	waitFor(t, ctx, `!!window.schedplayEditorView && !document.getElementById('policy-panel').hidden`, time.Minute)
	if w := eval[float64](t, ctx, `document.documentElement.scrollWidth`); w > 392 {
		t.Errorf("the page is %v px wide on a 390 px phone", w)
	}
	r := evalJSON[struct{ Left, Right float64 }](t, ctx, `(r => ({left: r.left, right: r.right}))(document.getElementById('policy-run').getBoundingClientRect())`)
	if r.Left < 0 || r.Right > 390 {
		t.Errorf("Run is at %v-%v px, outside the 390 px screen", r.Left, r.Right)
	}
	eval[any](t, ctx, `document.getElementById('policy-panel').scrollIntoView()`)
	screenshot(t, ctx, viewport, "policy-phone")
}

// TestPolicyParksTasks: a policy that puts tasks in a DSQ nothing reads
// plays on with no work done for those tasks; the panel says which tasks
// wait, since when and where, long before the watchdog ejects the policy.
func TestPolicyParksTasks(t *testing.T) {
	ctx, base := browser(t, 1280, 900)
	open(t, ctx, base+"/#v=1&preset=hackbench&compare=sched.policy:scx_simple,scx")
	waitFor(t, ctx, `!!window.schedplayEditorView && !document.getElementById('policy-panel').hidden`, time.Minute)
	parked, err := os.ReadFile(filepath.Join(repoRoot(t), "scxstar", "testdata", "parked.star"))
	if err != nil {
		t.Fatal(err)
	}
	eval[any](t, ctx, `window.schedplayEditorView.set(`+jsString(string(parked))+`), document.getElementById('policy-run').click()`)
	eval[any](t, ctx, `window.schedplay.runTo(1500e6)`)
	waitRun(t, ctx, `(s => s.now_ns === 1500e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, 2*time.Minute)
	waitFor(t, ctx, `document.getElementById('policy-status').textContent.includes('tasks wait and do not run')`, 10*time.Second)
	got := eval[string](t, ctx, `document.getElementById('policy-status').textContent`)
	for _, want := range []string{"Arm B", "DSQ 5"} {
		if !strings.Contains(got, want) {
			t.Errorf("the panel says %q; want %q in it", got, want)
		}
	}
	eval[any](t, ctx, `document.getElementById('policy-panel').scrollIntoView()`)
	screenshot(t, ctx, "#policy-panel", "policy-parked")
	eval[any](t, ctx, `localStorage.removeItem('schedplay.policy.draft')`)
}
