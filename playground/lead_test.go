package playground_test

import (
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/playground"
	"schedplay/playground/runner"
)

// engineView is what the engine decides of an arm's state: its metrics, its
// CPUs and its event count (not the wall-time animation or runner time).
func engineView(t *testing.T, a playground.ArmState) string {
	t.Helper()
	b, err := json.Marshal([]any{a.Metrics, a.CPUs, a.Events})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// With parallel workers at max speed the arm whose worker gets more time runs
// ahead of the other, more than a few targets; a pause then brings both to one
// time (replaying the one ahead when that costs less than catching up), where
// they show what an uninterrupted in-process run shows at that time.
func TestLeadThenPause(t *testing.T) {
	const frag = "#v=1&preset=small&speed=max&duration_ms=20000"
	tests := []struct {
		desc     string
		frames   int // before the pause
		budgetMs [2]float64
	}{
		{"arm A's worker ten times faster, paused early", 40, [2]float64{3, 0.3}},
		{"arm A's worker ten times faster, paused late", 400, [2]float64{3, 0.3}},
		{"arm B's worker ten times faster", 200, [2]float64{0.3, 3}},
		{"equal workers", 60, [2]float64{2, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m, l := newWorkerModel(t, frag, 2)
			m.Play()
			mostPending, i := 0, 1
			step := func() {
				t.Helper()
				for w := range l.Workers() {
					l.Work(w, tc.budgetMs[w])
				}
				m.Update(float64(i) * 16)
				i++
				if a := m.Arms(); a[0].NowNs() != a[1].NowNs() {
					t.Fatalf("frame %d shows the arms at %d and %d ns", i, a[0].NowNs(), a[1].NowNs())
				}
			}
			for range tc.frames {
				step()
				mostPending = max(mostPending, m.State().Pending)
			}
			st := pauseAndSettle(t, m, l, step)
			t.Logf("paused at %d ns after %d frames; at most %d targets in flight; replays %d, %d", st.NowNs, tc.frames, mostPending, st.Arms[0].Replays, st.Arms[1].Replays)
			if tc.budgetMs[0] != tc.budgetMs[1] && mostPending <= 3 {
				t.Errorf("at most %d targets in flight: the faster arm never ran ahead", mostPending)
			}
			matchesInProcess(t, frag, st)
		})
	}
}

// With the workers' time counted coarsely enough for marks (each clock read
// is a millisecond), the arm ahead saves its state on the way, and a pause
// late in the run replays it from its latest mark rather than from time
// zero: within the pause budget even though reaching where it stands took
// the runner far longer. Both arms then show what an in-process run shows.
func TestLeadReplaysFromMarks(t *testing.T) {
	const frag = "#v=1&preset=small&speed=max&duration_ms=20000"
	c := &fakeClock{step: 1}
	l := runner.NewLoopback(2, c.read)
	m := playground.New(playground.Options{Presets: testPresets(t), Clock: c.read, BudgetMs: 5, Runner: l.Remote})
	m.Load(frag, nil)
	m.Play()
	budgets := [2]float64{60, 6}
	i := 1
	step := func() {
		t.Helper()
		for w := range l.Workers() {
			l.Work(w, budgets[w])
		}
		m.Update(float64(i) * 16)
		i++
	}
	for range 150 {
		step()
	}
	marks := playground.Marks(m.Arms()[0])
	before := m.State()
	st := pauseAndSettle(t, m, l, step)
	t.Logf("arm A: %d marks, %.0f ms of runner time; paused at %d ns; replays %d, %d", marks, before.Arms[0].RunnerMs, st.NowNs, st.Arms[0].Replays, st.Arms[1].Replays)
	if marks < 2 {
		t.Fatalf("arm A saved %d states in %.0f ms of runner time, want one every %d ms", marks, before.Arms[0].RunnerMs, runner.MarkEveryMs)
	}
	if st.Arms[0].Replays == 0 {
		t.Fatal("the pause did not replay the arm ahead")
	}
	matchesInProcess(t, frag, st)
}

// pauseAndSettle pauses m and runs frames (step) until nothing is asked of
// the workers, and returns where the page then stands.
func pauseAndSettle(t *testing.T, m *playground.Model, l *runner.Loopback, step func()) playground.State {
	t.Helper()
	m.Pause()
	for settle := 0; m.State().Pending > 0; settle++ {
		if settle > 10_000 {
			t.Fatal("the pause did not settle in 10 000 frames")
		}
		step()
	}
	if l.Err != nil {
		t.Fatal(l.Err)
	}
	return m.State()
}

// matchesInProcess checks that the arms of st show what an uninterrupted
// in-process run of frag shows at st's time.
func matchesInProcess(t *testing.T, frag string, st playground.State) {
	t.Helper()
	local, _ := newModel(t, frag)
	local.RunTo(st.NowNs)
	for j := 1; local.Playing(); j++ {
		local.Update(float64(j) * 16)
	}
	for j, want := range local.State().Arms {
		if g, w := engineView(t, st.Arms[j]), engineView(t, want); g != w {
			t.Errorf("after the pause arm %s differs from an in-process run to %d ns:\n got %s\nwant %s", want.Name, st.NowNs, g, w)
		}
	}
}
