package playground_test

import (
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/playground"
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
			st := m.State()
			t.Logf("paused at %d ns after %d frames; at most %d targets in flight; replays %d, %d", st.NowNs, tc.frames, mostPending, st.Arms[0].Replays, st.Arms[1].Replays)
			if tc.budgetMs[0] != tc.budgetMs[1] && mostPending <= 3 {
				t.Errorf("at most %d targets in flight: the faster arm never ran ahead", mostPending)
			}
			local, _ := newModel(t, frag)
			local.RunTo(st.NowNs)
			for j := 1; local.Playing(); j++ {
				local.Update(float64(j) * 16)
			}
			got, want := m.State().Arms, local.State().Arms
			for j := range got {
				if g, w := engineView(t, got[j]), engineView(t, want[j]); g != w {
					t.Errorf("after the pause arm %s differs from an in-process run to %d ns:\n got %s\nwant %s", got[j].Name, st.NowNs, g, w)
				}
			}
		})
	}
}
