package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"schedplay/playground/lesson"
)

// lessonPanel is what the lesson panel shows, read from the page's DOM.
type lessonPanel struct {
	Count   string `json:"count"`
	Caption string `json:"caption"`
	Pending int    `json:"pending"` // numbers not filled in yet
	Status  string `json:"status"`
	Back    bool   `json:"back"` // enabled
	Next    bool   `json:"next"`
}

func readLessonPanel(t testing.TB, ctx context.Context) lessonPanel {
	t.Helper()
	return evalJSON[lessonPanel](t, ctx, `({count: document.getElementById('lesson-count').textContent,
		caption: document.getElementById('lesson-caption').textContent,
		pending: document.querySelectorAll('#lesson-caption b.pending').length,
		status: document.getElementById('lesson-status').textContent,
		back: !document.getElementById('lesson-back').disabled, next: !document.getElementById('lesson-next').disabled})`)
}

// TestLessonsPlay plays every lesson shipped from its first step to its last in
// the projector's setting (1920x1080, light theme), the way a teacher does: the
// picker opens it, Next and the right arrow key go forward, Back goes back. At
// each step the page pauses at the step's moment with every number of the caption
// filled in and the URL naming the lesson and step; the step is saved to the
// gallery (SCHEDPLAY_SCREENSHOTS).
func TestLessonsPlay(t *testing.T) {
	ls, errs := lesson.Builtin()
	if len(errs) > 0 || len(ls) < 4 {
		t.Fatalf("%d lessons, errors %v", len(ls), errs)
	}
	for _, l := range ls {
		if l.Name == "cores-and-caches" {
			// TestLessonCoresWidths plays it the same way at two widths,
			// back step included: its schbench steps run a Starlark
			// policy in the browser for a minute and more each time.
			continue
		}
		t.Run(l.Name, func(t *testing.T) {
			ctx, base := browser(t, 1920, 1080)
			open(t, ctx, base+"/#v=1&theme=light")
			pickLesson(t, ctx, l.Name)
			for n := 1; n <= len(l.Steps); n++ {
				stepForward(t, ctx, n)
				reached(t, ctx, l.Name, n, len(l.Steps))
				screenshot(t, ctx, viewport, "lesson-"+l.Name+"-"+strconv.Itoa(n))
			}
			click(t, ctx, "#lesson-back")
			reached(t, ctx, l.Name, len(l.Steps)-1, len(l.Steps))
		})
	}
}

// pickLesson opens lesson name from the page's lesson picker.
func pickLesson(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	eval[bool](t, ctx, `(() => { const p = document.getElementById('lesson-pick'); p.value = '`+name+`';
		p.dispatchEvent(new Event('change', {bubbles: true})); return true })()`)
}

// stepForward goes on to step n as a teacher does: the picker lands on
// step 1, then Next is clicked for even steps and the right arrow key
// pressed for odd ones, so both are used.
func stepForward(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	switch {
	case n == 1:
	case n%2 == 0:
		click(t, ctx, "#lesson-next")
	default:
		if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#lesson-next")), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
			t.Fatal(err)
		}
	}
}

// reached waits for step n to be reached and checks the panel and the URL.
func reached(t *testing.T, ctx context.Context, name string, n, steps int) {
	t.Helper()
	hash := "#v=1&lesson=" + name + "&step=" + strconv.Itoa(n) + "&theme=light"
	// A step under way keeps the page moving; one that stopped on the way
	// (state "stopped") ends the wait at once and fails below.
	waitRun(t, ctx, `(u => u.step === `+strconv.Itoa(n)+` && (u.state === 'stopped' || u.state === 'reached' && location.hash === '`+hash+`'))(window.schedplay.state().lesson)`, time.Minute)
	if st := evalJSON[struct {
		State  string `json:"state"`
		Status string `json:"status"`
	}](t, ctx, `window.schedplay.state().lesson`); st.State != "reached" {
		t.Fatalf("step %d stopped before its moment: %s (page: %s)", n, st.Status, eval[string](t, ctx, pageProgress))
	}
	// The panel redraws from the page's next read of the model (at most a tenth
	// of a second later): wait for it too, so what is read and photographed is
	// the step reached.
	waitFor(t, ctx, `(p => p.dataset.state === 'reached' && document.getElementById('lesson-count').textContent === 'Step `+strconv.Itoa(n)+` of `+strconv.Itoa(steps)+`')(document.getElementById('lesson'))`, 10*time.Second)
	// The explanation of the step's highlight comes a frame or two later.
	waitFor(t, ctx, `!document.getElementById('explain').textContent.includes('looking up')`, 10*time.Second)
	p := readLessonPanel(t, ctx)
	if p.Count != "Step "+strconv.Itoa(n)+" of "+strconv.Itoa(steps) || p.Pending > 0 || strings.Contains(p.Caption, "{") {
		t.Errorf("step %d: %+v", n, p)
	}
	if p.Back != (n > 1) || p.Next != (n < steps) {
		t.Errorf("step %d: Back enabled %v, Next enabled %v", n, p.Back, p.Next)
	}
	if st := readRun(t, ctx); st.Playing {
		t.Errorf("step %d: still playing at its moment", n)
	}
	t.Logf("step %d: %s", n, p.Caption)
}

// click presses a button (press, pause, release is only needed inside the
// canvas; a DOM click is enough for HTML buttons).
func click(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}
