package e2e

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

// pageProgress is a JavaScript expression whose value changes whenever the page
// gets on with its run: the simulated time shown, the targets in flight, the
// arms' event counts, a jump's progress and a lesson step's phase. Its JSON is
// also what a stalled wait reports as where the page stood.
const pageProgress = `(() => { try { return (s => JSON.stringify({now_ns: s.now_ns, playing: s.playing, done: s.done, pending: s.pending,
	jump: s.jump, refused: s.refused, resumed: s.resumed, runner: s.runner, problems: s.problems,
	events: s.arms.map(a => a.events), runner_ms: s.arms.map(a => Math.round(a.runner_ms)),
	lesson: s.lesson.open ? {name: s.lesson.name, step: s.lesson.step, state: s.lesson.state, status: s.lesson.status} : null,
	frames: s.perf.frames}))(window.schedplay.state()) } catch (e) { return 'no state() yet' } })()`

// waitFor polls a JavaScript predicate for up to timeout, and on failure says
// where the page stood (pageProgress).
func waitFor(t testing.TB, ctx context.Context, expr string, timeout time.Duration) {
	t.Helper()
	poll(t, ctx, expr, timeout, false)
}

// waitRun polls a JavaScript predicate about the page's run (a jump, a lesson
// step, a run to a moment) for as long as the run makes progress: it fails
// when the page has not moved (pageProgress, less its frame count) for stall,
// or near the test's deadline, saying where the page stood. A wait on the
// page's own progress, not on a guess at how long the work takes, holds on a
// machine busy with other work (packages tested in parallel: a run ahead may
// take minutes there) and still ends soon after the page gets stuck.
func waitRun(t testing.TB, ctx context.Context, expr string, stall time.Duration) {
	t.Helper()
	poll(t, ctx, expr, stall, true)
}

// poll is waitFor (progress false: limit is a timeout) and waitRun (limit is
// how long the page may stand still).
func poll(t testing.TB, ctx context.Context, expr string, limit time.Duration, progress bool) {
	t.Helper()
	type answer struct {
		Done  bool   `json:"done"`
		Where string `json:"where"`
	}
	js := `(() => { const where = ` + pageProgress + `; let done = false; try { done = !!(` + expr + `) } catch (e) {} return JSON.stringify({done, where}) })()`
	var deadline time.Time
	hasDeadline := false
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		deadline, hasDeadline = d.Deadline()
	}
	framesField := regexp.MustCompile(`,"frames":\d+`)
	last, moved := "", time.Now()
	for {
		raw := eval[string](t, ctx, js)
		var a answer
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			t.Fatalf("waiting for %s: %v (%s)", expr, err, raw)
		}
		if a.Done {
			return
		}
		// The frame count moves while the page draws a stalled run: it tells
		// a live page from a frozen one in the report, not progress.
		if where := framesField.ReplaceAllString(a.Where, ""); where != last && progress {
			last, moved = where, time.Now()
		}
		switch {
		case time.Since(moved) > limit && progress:
			t.Fatalf("waiting for %s: the page made no progress for %v; it stands at %s", expr, limit, a.Where)
		case time.Since(moved) > limit:
			t.Fatalf("waiting for %s: not true after %v; the page stands at %s", expr, limit, a.Where)
		case hasDeadline && time.Until(deadline) < 30*time.Second:
			t.Fatalf("waiting for %s: the test's deadline is near; the page stands at %s", expr, a.Where)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
