package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"schedplay/view"
)

// classesWorkload has a task of each Linux class on two CPUs: a SCHED_FIFO
// and a SCHED_DEADLINE task that keep their periods, a nice 10 hog and a
// greedy deadline task that outruns its runtime.
const classesWorkload = `{
  "tasks": {
    "fifo": {"policy": "SCHED_FIFO", "priority": 50, "loop": -1, "run": 2000, "timer": {"ref": "unique", "period": 10000}},
    "dl": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 10000, "loop": -1, "run": 2000, "timer": {"ref": "unique", "period": 10000}},
    "greedy": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-period": 20000, "loop": -1, "run": 5000, "timer": {"ref": "unique", "period": 20000}},
    "nice10": {"priority": 10, "loop": -1, "run": 1000}
  }
}`

// TestClassesInThePage: a user picks the Linux scheduler, opens the workload
// editor, pastes a description with a task of each class and runs it. The
// task table says each task's class and the deadline tasks' misses and
// throttles (the greedy one misses every period), a deadline-misses card
// appears, the scheduler panel offers the tick rate and RT throttling, and
// a selected nice 10 task's explanation gives its weight.
func TestClassesInThePage(t *testing.T) {
	ctx, base := browser(t, 1280, 900)
	open(t, ctx, base+"/#v=1&preset=idle-guest&speed=2ms")
	eval[any](t, ctx, `(s => { s.value = 'linux'; s.dispatchEvent(new Event('change')) })(document.getElementById('policy'))`)
	waitFor(t, ctx, `!document.getElementById('hz').closest('.ctl').hidden && !document.getElementById('rt-runtime').closest('.ctl').hidden`, 10*time.Second)

	eval[any](t, ctx, `[...document.querySelectorAll('.own-open')].find(b => b.textContent.includes('rt-app')).click()`)
	waitFor(t, ctx, `!!window.schedplayWorkloadView && !document.getElementById('workload-panel').hidden`, time.Minute)
	eval[any](t, ctx, `window.schedplayWorkloadView.set(`+jsString(classesWorkload)+`)`)
	eval[any](t, ctx, `document.getElementById('workload-run').click()`)
	deadline := time.Now().Add(30 * time.Second)
	for !eval[bool](t, ctx, `(w => w.runs && !w.error)(`+readWorkload+`)`) {
		if time.Now().After(deadline) {
			t.Fatalf("the workload did not run in 30 s; the panel: %s", eval[string](t, ctx, `JSON.stringify(`+readWorkload+`)`))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A moment when the periodic tasks run (each period starts on the 10 ms
	// grid): their chips carry their class's mark, which the legend explains.
	eval[any](t, ctx, `window.schedplay.jumpTo(1.0004e9)`)
	waitRun(t, ctx, `(s => s.now_ns === 1.0004e9 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	if eval[bool](t, ctx, `document.getElementById('legend-rt').hidden || document.getElementById('legend-dl').hidden`) {
		t.Errorf("the legend does not explain the real-time and deadline marks under the Linux policy")
	}
	screenshot(t, ctx, "", "classes-machine")

	// A click on the nice 10 task's chip (a person looks for its pink chip:
	// here each running chip of arm A in turn) explains the last decision
	// about it, with its nice and weight.
	// The editor's opening scrolled smoothly to it: back to the top, at once.
	eval[any](t, ctx, `window.scrollTo({top: 0, behavior: 'instant'})`)
	waitFor(t, ctx, `window.scrollY === 0`, 5*time.Second)
	left := eval[float64](t, ctx, `document.querySelector('#stage canvas').getBoundingClientRect().left`)
	top := eval[float64](t, ctx, `document.querySelector('#stage canvas').getBoundingClientRect().top`)
	found := ""
	for _, b := range state(t, ctx).Boxes {
		if b.Arm != 0 || found != "" {
			continue
		}
		chip := view.RunChipRect(view.Parts(view.Rect{X: float32(b.X), Y: float32(b.Y), W: float32(b.W), H: float32(b.W)}, 1))
		if err := chromedp.Do(ctx, chromedp.MouseClickXY(left+float64(chip.X+chip.W/2), top+float64(chip.Y+chip.H/2))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if ex := eval[string](t, ctx, `document.getElementById('explain').textContent`); strings.Contains(ex, "nice10") {
			found = ex
		}
	}
	if !strings.Contains(found, "nice 10, weight 110") {
		t.Errorf("no running chip of arm A explained the nice 10 task with its weight (last: %q)", found)
	}
	eval[any](t, ctx, `window.schedplay.jumpTo(2e9)`)
	waitRun(t, ctx, `(s => s.now_ns === 2e9 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	waitFor(t, ctx, `document.querySelectorAll('#workload-results tbody tr').length === 8`, 10*time.Second)

	head := eval[string](t, ctx, `document.querySelector('#workload-results thead').textContent`)
	if !strings.Contains(head, "dl misses · throttles") {
		t.Errorf("the task table's head %q has no deadline column", head)
	}
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('#workload-results tbody tr')].slice(0, 4).map(r => r.textContent)`)
	want := map[string]string{"fifo": "real-time", "dl": "deadline", "greedy": "deadline", "nice10": "fair"}
	for _, r := range rows {
		for task, class := range want {
			if strings.HasPrefix(r, task) && !strings.Contains(r, class) {
				t.Errorf("row %q: want class %s", r, class)
			}
		}
	}
	w := evalJSON[struct {
		Arms []struct {
			Tasks []struct {
				Name     string `json:"name"`
				Misses   int64  `json:"dl_misses"`
				Throttle int64  `json:"dl_throttles"`
			} `json:"tasks"`
		} `json:"arms"`
	}](t, ctx, readWorkload)
	for _, tk := range w.Arms[0].Tasks {
		switch tk.Name {
		case "greedy":
			if tk.Misses < 50 || tk.Throttle < 50 {
				t.Errorf("greedy (5 ms of work, 2 ms of runtime a 20 ms period): %d misses, %d throttles in 2 s, want one of each a period", tk.Misses, tk.Throttle)
			}
		case "dl":
			if tk.Misses != 0 {
				t.Errorf("dl (2 ms of work, 3 ms of runtime): %d misses, want none", tk.Misses)
			}
		}
	}
	cards := eval[string](t, ctx, `document.getElementById('cards').textContent`)
	if !strings.Contains(cards, "deadline misses") {
		t.Errorf("no deadline-misses card: %q", cards)
	}
	eval[any](t, ctx, `document.getElementById('workload-panel').scrollIntoView()`)
	screenshot(t, ctx, "", "classes-workload")
}
