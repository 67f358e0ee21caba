package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// workloadPanel is the page's workload section.
type workloadPanel struct {
	Runs   bool   `json:"runs"`
	Source string `json:"source"`
	Origin string `json:"origin"`
	InLink bool   `json:"in_link"`
	Error  *struct {
		Path    string `json:"path"`
		Line    int    `json:"line"`
		Message string `json:"message"`
	} `json:"error"`
	Groups []struct {
		Name  string `json:"name"`
		Color string `json:"color"`
	} `json:"groups"`
	Arms []struct {
		Arm   string `json:"arm"`
		Tasks []struct {
			Name  string `json:"name"`
			Loops int64  `json:"loops"`
		} `json:"tasks"`
		Deadlock string `json:"deadlock"`
	} `json:"arms"`
}

const readWorkload = `JSON.parse(window.schedplayCore.snapshot(0)).workload`

// TestWorkloadEditor: a user opens "Your own: Workload (rt-app)" on the
// idle-guest preset (fixed against adaptive idle spin), picks the periodic
// example, runs it (both arms run it; the panel lists rt-app's figures per
// task, each task in its chips' colour), breaks it (the engine's refusal
// names the key and marks its line; the run before goes on), and deadlocks
// it (the panel says which threads wait on what). A reload of the link runs
// the same description.
func TestWorkloadEditor(t *testing.T) {
	ctx, base := browser(t, 1280, 900)
	open(t, ctx, base+"/#v=1&preset=idle-guest&speed=2ms")
	eval[any](t, ctx, `[...document.querySelectorAll('.own-open')].find(b => b.textContent.includes('rt-app')).click()`)
	waitFor(t, ctx, `!!window.schedplayWorkloadView && !document.getElementById('workload-panel').hidden`, time.Minute)

	periodic, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "rtapp", "periodic.json"))
	if err != nil {
		t.Fatal(err)
	}
	eval[any](t, ctx, `(s => { s.value = 'periodic'; s.dispatchEvent(new Event('change')) })(document.getElementById('workload-example'))`)
	waitFor(t, ctx, `window.schedplayWorkloadView.get().includes('"background"')`, 10*time.Second)
	eval[any](t, ctx, `document.getElementById('workload-run').click()`)
	w := evalJSON[workloadPanel](t, ctx, readWorkload)
	if !w.Runs || w.Source != string(periodic) || w.Origin != "page" || len(w.Groups) != 4 {
		t.Fatalf("after Run: %+v", w)
	}
	eval[any](t, ctx, `window.schedplay.jumpTo(1e9)`)
	waitRun(t, ctx, `(s => s.now_ns === 1e9 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	waitFor(t, ctx, `document.querySelectorAll('#workload-results tbody tr').length === 8`, 10*time.Second)
	w = evalJSON[workloadPanel](t, ctx, readWorkload)
	for _, a := range w.Arms {
		for _, tk := range a.Tasks {
			if tk.Loops == 0 {
				t.Errorf("arm %s task %s: no loop passes in 1 s", a.Arm, tk.Name)
			}
		}
	}
	eval[any](t, ctx, `document.getElementById('workload-panel').scrollIntoView()`)
	screenshot(t, ctx, "", "workload-periodic")

	// A link reopens the same description.
	frag := eval[string](t, ctx, `window.schedplay.fragment()`)
	if !strings.Contains(frag, "&rtapp=") {
		t.Fatalf("fragment %q carries no description", frag)
	}

	// A broken description: refused by key and line, marked; the periodic
	// run stays.
	broken := strings.Replace(string(periodic), `"run" : 1000,`, `"run" : "fast",`, 1)
	eval[any](t, ctx, `window.schedplayWorkloadView.set(`+jsString(broken)+`), document.getElementById('workload-run').click()`)
	waitFor(t, ctx, `document.querySelector('#workload-editor .cm-lintRange-error') !== null`, 10*time.Second)
	w = evalJSON[workloadPanel](t, ctx, readWorkload)
	if w.Error == nil || w.Error.Path != "tasks.fast.run" || w.Error.Line == 0 || w.Source != string(periodic) {
		t.Fatalf("after a broken Run: error %+v, still running the periodic set %v", w.Error, w.Source == string(periodic))
	}
	if got := eval[string](t, ctx, `window.schedplayWorkloadView.get()`); got != broken {
		t.Errorf("after a refused Run the editor shows %.80q, want the text that was refused", got)
	}
	screenshot(t, ctx, "#workload-panel", "workload-error")

	// A deadlock: two tasks take two locks in opposite orders.
	deadlock := `{"global": {"duration": 1}, "tasks": {
  "ab": {"lock": "a", "run": 1000, "lock1": "b", "unlock": "b", "unlock1": "a"},
  "ba": {"lock": "b", "run": 1000, "lock1": "a", "unlock": "a", "unlock1": "b"}}}`
	eval[any](t, ctx, `window.schedplayWorkloadView.set(`+jsString(deadlock)+`), document.getElementById('workload-run').click()`)
	eval[any](t, ctx, `window.schedplay.jumpTo(100e6)`)
	waitFor(t, ctx, readWorkload+`.arms?.some(a => a.deadlock)`, time.Minute)
	if got := eval[string](t, ctx, `document.getElementById('workload-status').textContent`); !strings.Contains(got, "deadlock") || !strings.Contains(got, `lock "b"`) {
		t.Errorf("the panel says %q, want the deadlock with its locks", got)
	}

	open(t, ctx, base+"/#"+frag)
	waitFor(t, ctx, `!!window.schedplayWorkloadView`, time.Minute)
	if w := evalJSON[workloadPanel](t, ctx, readWorkload); !w.Runs || w.Source != string(periodic) {
		t.Errorf("the link runs %.60q", w.Source)
	}
	eval[any](t, ctx, `localStorage.removeItem('schedplay.rtapp.draft')`)
}

// TestWorkloadExamples: every example in examples/rtapp runs in the page,
// picked from the editor's examples, to half a second with every task
// making progress and no deadlock (TestRTAppExamplesRun holds the same for
// the CLI's engine).
func TestWorkloadExamples(t *testing.T) {
	ctx, base := browser(t, 1280, 900)
	names, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "rtapp", "*.json"))
	if err != nil || len(names) < 3 {
		t.Fatalf("examples %v (%v)", names, err)
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			open(t, ctx, base+"/#v=1&preset=idle-guest&compare=off")
			eval[any](t, ctx, `[...document.querySelectorAll('.own-open')].find(b => b.textContent.includes('rt-app')).click()`)
			waitFor(t, ctx, `!!window.schedplayWorkloadView`, time.Minute)
			eval[any](t, ctx, `(s => { s.value = '`+name+`'; s.dispatchEvent(new Event('change')) })(document.getElementById('workload-example'))`)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `window.schedplayWorkloadView.get() === `+jsString(string(want)), 10*time.Second)
			eval[any](t, ctx, `document.getElementById('workload-run').click(), window.schedplay.jumpTo(500e6)`)
			waitRun(t, ctx, `(s => s.now_ns === 500e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
			waitFor(t, ctx, readWorkload+`.arms?.[0]?.tasks?.length > 0`, 10*time.Second)
			w := evalJSON[workloadPanel](t, ctx, readWorkload)
			if w.Error != nil || len(w.Arms) != 1 || w.Arms[0].Deadlock != "" {
				t.Fatalf("%s: error %+v, arms %+v", name, w.Error, w.Arms)
			}
			for _, tk := range w.Arms[0].Tasks {
				if tk.Loops == 0 {
					t.Errorf("%s: task %s made no loop pass in 500 ms", name, tk.Name)
				}
			}
			eval[any](t, ctx, `window.scrollTo(0, 0)`)
			screenshot(t, ctx, viewport, "workload-"+name)
		})
	}
}

// TestWorkloadLongDescription: a description that lives longer than a page
// may run (rt-app's long use cases run 600 s) runs its first 120 s, and the
// panel says so, with how the description was read (a repeated key kept as
// workgen keeps it).
func TestWorkloadLongDescription(t *testing.T) {
	ctx, base := browser(t, 1280, 900)
	open(t, ctx, base+"/#v=1&preset=idle-guest&compare=off")
	eval[any](t, ctx, `[...document.querySelectorAll('.own-open')].find(b => b.textContent.includes('rt-app')).click()`)
	waitFor(t, ctx, `!!window.schedplayWorkloadView && !document.getElementById('workload-panel').hidden`, time.Minute)
	long := `{"global": {"duration": 600}, "tasks": {
  "t": {"loop": -1, "run": 1000, "sleep": 2000, "run": 500, "timer": {"ref": "tick", "period": 10000}}}}`
	eval[any](t, ctx, `window.schedplayWorkloadView.set(`+jsString(long)+`), document.getElementById('workload-run').click()`)
	waitFor(t, ctx, `window.schedplay.state().scenario.duration_ms === 120000`, 10*time.Second)
	eval[any](t, ctx, `window.schedplay.jumpTo(200e6)`)
	waitRun(t, ctx, `(s => s.now_ns === 200e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	waitFor(t, ctx, `document.querySelector('#workload-results .note') !== null`, 10*time.Second)
	text := eval[string](t, ctx, `document.getElementById('workload-results').textContent`)
	for _, want := range []string{"the description runs 600 s; this run covers its first 120 s", "run it from the CLI for all of it", "repeated key kept as workgen keeps it"} {
		if !strings.Contains(text, want) {
			t.Errorf("the panel does not say %q:\n%s", want, text)
		}
	}
	eval[any](t, ctx, `document.getElementById('workload-panel').scrollIntoView()`)
	screenshot(t, ctx, "#workload-panel", "workload-long")
	eval[any](t, ctx, `localStorage.removeItem('schedplay.rtapp.draft')`)
}
