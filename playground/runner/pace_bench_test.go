package runner_test

import (
	"math"
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
)

// BenchmarkHostPace runs hackbench's old-rule arm to the end twice: the engine
// alone, as the CLI runs it, and through a Host in chunks with visual events
// drained, as the page's worker runs it. The gap is what the worker adds.
func BenchmarkHostPace(b *testing.B) {
	sc := scenario(b, "hackbench", "sched.wake_sync=old")
	b.Run("engine", func(b *testing.B) {
		for range b.N {
			sim, err := engine.NewSim(sc)
			if err != nil {
				b.Fatal(err)
			}
			sim.SetVisual(false)
			sim.RunUntil(math.MaxInt64)
		}
	})
	b.Run("host", func(b *testing.B) {
		for range b.N {
			done := false
			clock := &fakeClock{step: 0.01}
			h := runner.NewHost(clock.read, func(f *runner.Frame) { done = f.Done })
			h.Start(1, sc, false)
			h.Advance(1, runner.Advance{Seq: 1, ToNs: math.MaxInt64, Select: runner.NoSelection()})
			for h.Work(clock.now + 1e9) {
			}
			if !done {
				b.Fatal("not done")
			}
		}
	})
}
