package e2e

import (
	"strconv"
	"testing"

	"schedplay/playground/lesson"
)

// TestLessonCoresWidths plays the cores-and-caches lesson through serve at a
// laptop's width (1280 px) and a phone's (390 px), as a teacher does: the
// picker opens it, Next and the right arrow key go forward, and at 1280 px
// Back goes back from the last step. At each step the
// stage draws the machine's LLC frames, the lesson panel does not cover the
// stage, and the step is saved (SCHEDPLAY_SCREENSHOTS) as
// lesson6-WIDTH-STEP.png (the viewport), -full.png (the page) and
// -stage.png (the stage alone).
func TestLessonCoresWidths(t *testing.T) {
	ls, _ := lesson.Builtin()
	l, ok := lesson.Find(ls, "cores-and-caches")
	if !ok {
		t.Fatal("no lesson cores-and-caches")
	}
	for _, w := range []struct{ width, height int }{{1280, 800}, {390, 844}} {
		t.Run(strconv.Itoa(w.width), func(t *testing.T) {
			ctx, base := browser(t, w.width, w.height)
			open(t, ctx, base+"/#v=1&theme=light")
			pickLesson(t, ctx, l.Name)
			for n := 1; n <= len(l.Steps); n++ {
				stepForward(t, ctx, n)
				reached(t, ctx, l.Name, n, len(l.Steps))
				g := evalJSON[struct {
					LLCs    int     `json:"llcs"`
					Labels  int     `json:"labels"`
					Cores   int     `json:"cores"`
					Overlap float64 `json:"overlap"`
				}](t, ctx, `(() => {
					const fs = window.schedplay.state().frames, f = fs.filter(f => f.level === 'llc');
					const a = document.getElementById('lesson').getBoundingClientRect();
					const c = document.querySelector('#stage canvas').getBoundingClientRect();
					const w = Math.max(0, Math.min(a.right, c.right) - Math.max(a.left, c.left));
					const h = Math.max(0, Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top));
					return {llcs: f.length, labels: f.filter(f => f.text).length,
						cores: fs.filter(f => f.level === 'core').length, overlap: w * h};
				})()`)
				// Steps 1 to 3 run four SMT cores in one LLC (no LLC frame
				// to draw), 4 and 5 two LLCs of four; 6 to 8 compare two
				// such machines.
				want := [...]struct{ llcs, cores int }{{0, 4}, {0, 4}, {0, 4}, {2, 8}, {2, 8}, {4, 16}, {4, 16}, {4, 16}}[n-1]
				if g.LLCs != want.llcs || g.Labels != want.llcs || g.Cores != want.cores || g.Overlap > 0 {
					t.Errorf("step %d: %d LLC frames (%d labelled) and %d cores, want %d and %d; the lesson panel covers %.0f px² of the stage",
						n, g.LLCs, g.Labels, g.Cores, want.llcs, want.cores, g.Overlap)
				}
				eval[bool](t, ctx, `(scrollTo(0, 0), true)`)
				name := "lesson6-" + strconv.Itoa(w.width) + "-" + strconv.Itoa(n)
				screenshot(t, ctx, viewport, name)
				screenshot(t, ctx, "", name+"-full")
				screenshot(t, ctx, "#stage", name+"-stage")
			}
			if w.width == 1280 { // as TestLessonsPlay does for the other lessons
				click(t, ctx, "#lesson-back")
				reached(t, ctx, l.Name, len(l.Steps)-1, len(l.Steps))
			}
		})
	}
}
