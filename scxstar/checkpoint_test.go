package scxstar

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// TestCheckpointResumesPolicy: a Starlark policy's state (its dicts and lists)
// is saved with the rest of the engine, and a run resumed from the checkpoint
// ends byte-identical to the run from zero: results and decision records.
func TestCheckpointResumesPolicy(t *testing.T) {
	src := policySource(t, "scx_simple")
	for _, tc := range []struct {
		desc, example string
		atMs          int64
		sets          []string
	}{
		{"saturated-sync in warm-up", "saturated-sync", 200, nil},
		{"saturated-sync measured", "saturated-sync", 1300, nil},
		{"hackbench", "hackbench", 150, []string{"duration_ms=400"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := withPolicy(readExample(t, tc.example, append([]string{"sched.policy=scx_simple"}, tc.sets...)...), src)
			want, _ := runJSON(t, sc)

			res, r := resumedRun(t, sc, tc.atMs*1e6)
			got := resultsJSON(t, res, r)
			if !bytes.Equal(want, got) {
				t.Errorf("resumed at %d ms, the run differs from the run from zero:\nzero    %.400s\nresumed %.400s", tc.atMs, want, got)
			}
		})
	}
}

// TestCheckpointRefusesUnsavableState: a policy that keeps a task object in its
// state (rather than its pid) cannot be checkpointed, and the error names the
// global and says what to keep instead.
func TestCheckpointRefusesUnsavableState(t *testing.T) {
	src := policySource(t, "scx_simple") + "\nlast = []\n\ndef runnable(p, f):\n    last.append(p)\n"
	sc := withPolicy(readExample(t, "saturated-sync", "sched.policy=scx_simple", "duration_ms=600"), src)
	s, err := engine.NewSimScx(sc, CompilerNamed("policy.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	s.RunUntil(100e6)
	_, err = s.AppendCheckpoint(nil, engine.CheckpointOptions{})
	if err == nil {
		t.Fatal("a policy holding task objects was checkpointed")
	}
	for _, w := range []string{"cannot be saved", "global last", "pid"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q: %v", w, err)
		}
	}
}

// resultsJSON is runJSON's encoding of a finished simulation.
func resultsJSON(t *testing.T, res engine.Results, s *engine.Sim) []byte {
	t.Helper()
	out, err := json.Marshal(struct {
		Results   engine.Results
		Decisions []engine.Decision
	}{res, s.Decisions(nil)}, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// resumedRun runs sc's policy (policy.star) to atNs, checkpoints there,
// resumes from the checkpoint and runs on to the end: the results and the
// resumed simulation, to set against the run from zero.
func resumedRun(t *testing.T, sc engine.Scenario, atNs int64) (engine.Results, *engine.Sim) {
	t.Helper()
	s, err := engine.NewSimScx(sc, CompilerNamed("policy.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	s.RunUntil(atNs)
	ck, err := s.AppendCheckpoint(nil, engine.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.ResumeScx(sc, ck, CompilerNamed("policy.star"))
	if err != nil {
		t.Fatal(err)
	}
	r.SetVisual(false)
	return r.Run(), r
}
