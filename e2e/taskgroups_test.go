package e2e

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// groupsWorkload puts one hog in /a and three in /b, all on CPU 0, /a with
// cpu.weight 300 (the root "taskgroups" key, which rt-app ignores); one line,
// as a person types it, so that the editor's indenting adds nothing.
const groupsWorkload = `{"taskgroups": {"/a": {"cpu.weight": 300}}, "tasks": {` +
	`"a": {"cpus": [0], "taskgroup": "/a", "loop": -1, "run": 1000}, ` +
	`"b": {"instance": 3, "cpus": [0], "taskgroup": "/b", "loop": -1, "run": 1000}}}`

// TestTaskGroupsInThePage: under the Linux scheduler, an rt-app description
// whose tasks name task groups runs, and the workload panel shows each
// group's cpu.stat: /a's one task, weighing 300, gets three quarters of CPU 0
// and /b's three the rest.
func TestTaskGroupsInThePage(t *testing.T) {
	ctx, base := browser(t, 1280, 900)
	open(t, ctx, base+"/#v=1&preset=idle-guest&speed=2ms")
	eval[any](t, ctx, `(s => { s.value = 'linux'; s.dispatchEvent(new Event('change')) })(document.getElementById('policy'))`)
	eval[any](t, ctx, `[...document.querySelectorAll('.own-open')].find(b => b.textContent.includes('rt-app')).click()`)
	waitFor(t, ctx, `!!window.schedplayWorkloadView && !document.getElementById('workload-panel').hidden`, time.Minute)
	// Typed key by key into the editor, over what it held, and run with
	// Ctrl+Enter.
	clickInto(t, ctx, "workload-editor")
	press(t, ctx, "a", chromedp.ModifierCtrl)
	press(t, ctx, groupsWorkload)
	sameText(t, "the workload editor", eval[string](t, ctx, `window.schedplayWorkloadView.get()`), groupsWorkload)
	press(t, ctx, "\r", chromedp.ModifierCtrl)
	waitFor(t, ctx, `(w => w.runs && !w.error && w.source === `+jsString(groupsWorkload)+`)(`+readWorkload+`)`, 30*time.Second)
	eval[any](t, ctx, `window.schedplay.jumpTo(1e9)`)
	waitRun(t, ctx, `(s => s.now_ns === 1e9 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	deadline := time.Now().Add(10 * time.Second)
	for eval[int](t, ctx, `document.querySelectorAll('#workload-results .rtapp-arm:first-child table.rtapp-groups tbody tr').length`) != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no table of the two task groups after 10 s; the results box: %s", eval[string](t, ctx, `document.getElementById('workload-results').outerHTML.slice(0, 3000)`))
		}
		time.Sleep(100 * time.Millisecond)
	}
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('#workload-results .rtapp-arm:first-child table.rtapp-groups tbody tr')].map(r => [...r.children].map(c => c.textContent).join('|'))`)
	for i, want := range []struct{ path, weight, cpus string }{{"/a", "300", "0.75"}, {"/b", "100", "0.25"}} {
		cells := strings.Split(rows[i], "|")
		if len(cells) != 5 || cells[0] != want.path || cells[1] != want.weight || cells[2] != "max" {
			t.Errorf("row %d: %q, want %s with cpu.weight %s and no cpu.max", i, rows[i], want.path, want.weight)
			continue
		}
		if got, _ := strconv.ParseFloat(cells[3], 64); math.Abs(got-mustFloat(want.cpus)) > 0.015 {
			t.Errorf("group %s used %s CPUs, want %s of CPU 0", want.path, cells[3], want.cpus)
		}
	}
	eval[any](t, ctx, `document.getElementById('workload-results').scrollIntoView()`)
	screenshot(t, ctx, "", "taskgroups-workload")
}

func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return f
}
