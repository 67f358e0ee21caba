package runner_test

import (
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
)

// TestHostRunsPolicyWithCompiler: a scenario with a sched_ext policy's source
// is refused by a Host without a compiler (the default engine worker), naming
// the field, and runs on one with a compiler (the policy worker) to the same
// results as the engine's own run.
func TestHostRunsPolicyWithCompiler(t *testing.T) {
	sc := scenario(t, "saturated-sync", "duration_ms=60", "warmup_ms=10")
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# any source: the fake compiler reads none\n"
	var compiled []string
	compile := func(name, src string, sliceDflNs int64) (engine.ScxOps, error) {
		compiled = append(compiled, src)
		return engine.ScxNoOps{}, nil
	}
	finish := func(t *testing.T, c engine.ScxCompiler) runner.Frame {
		t.Helper()
		clock := &fakeClock{step: 0.01}
		var last runner.Frame
		h := runner.NewHost(clock.read, func(f *runner.Frame) { last = f.Clone() })
		if c != nil {
			h.SetCompiler(c)
		}
		h.Start(1, sc, false)
		h.Advance(1, runner.Advance{Seq: 1, ToNs: sc.DurationMs * 1e6, Results: true, Select: runner.NoSelection()})
		for tries := 0; last.Seq != 1; tries++ {
			if tries > 1_000_000 {
				t.Fatal("the run was not answered")
			}
			h.Work(clock.now + 5)
		}
		return last
	}

	t.Run("without a compiler", func(t *testing.T) {
		f := finish(t, nil)
		if !strings.Contains(f.Err, "sched.scx.source") || !strings.Contains(f.Err, "Starlark binding") {
			t.Errorf("the frame says %q: want the field and the missing binding named", f.Err)
		}
	})
	t.Run("with a compiler", func(t *testing.T) {
		f := finish(t, compile)
		if f.Err != "" {
			t.Fatalf("refused: %s", f.Err)
		}
		if len(compiled) != 1 || compiled[0] != sc.Sched.Scx.Source {
			t.Fatalf("the compiler saw %q", compiled)
		}
		s, err := engine.NewSimScx(sc, compile)
		if err != nil {
			t.Fatal(err)
		}
		s.SetVisual(false)
		want := s.Run()
		if f.Results.Completed != want.Completed || f.Results.Events != want.Events {
			t.Errorf("the Host's run completed %d in %d events, the engine's %d in %d", f.Results.Completed, f.Results.Events, want.Completed, want.Events)
		}
	})
}
