package playground_test

import (
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"schedplay/playground"
	"schedplay/playground/runner"
)

// BenchmarkStartup measures what the page does before its first frame: read the
// presets and build the model for the default link.
func BenchmarkStartup(b *testing.B) {
	for b.Loop() {
		ps, _ := playground.BuiltinPresets()
		m := playground.New(playground.Options{Presets: ps, Runner: runner.NewLocal(func() float64 { return 0 })})
		m.Load("#v=1", nil)
	}
}

// BenchmarkFrame64 measures one frame's Update and Render at 64 vCPUs and 256
// clients in compare mode, at the default speed, with a fake clock.
func BenchmarkFrame64(b *testing.B) {
	ps, _ := playground.BuiltinPresets()
	start := time.Now()
	clock := func() float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 }
	m := playground.New(playground.Options{Presets: ps, Clock: clock, Runner: runner.NewLocal(clock)})
	m.Load("#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256&speed=max", nil)
	m.RunTo(300_000_000)
	for i := 0; m.Playing() && i < 100000; i++ {
		m.Update(float64(i) * 16)
	}
	m.Set("speed", "20ms")
	m.Play()
	now := 0.0
	for b.Loop() {
		now += 16.7
		m.Update(now)
		m.Render(2000, 900, 1, now)
	}
}

// BenchmarkSnapshot measures the page's read of the model: "full" builds and
// encodes every section (the page's first read, or one after an edit), "frame"
// is a playing run's read once a frame, where only the sections due are built
// and only those that changed are encoded (the frame's Update is not timed).
func BenchmarkSnapshot(b *testing.B) {
	ps, _ := playground.BuiltinPresets()
	m := playground.New(playground.Options{Presets: ps, Runner: runner.NewLocal(func() float64 { return 0 })})
	m.Load("#v=1&preset=tpcb-32vcpu&speed=max", nil)
	m.RunTo(100_000_000)
	now := 0.0
	for ; m.Playing() && now < 16*100000; now += 16 {
		m.Update(now)
	}
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.SnapshotJSON(0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("frame", func(b *testing.B) {
		m.Set("speed", "20ms")
		m.Play()
		seq := m.Snapshot(0).Seq
		for b.Loop() {
			b.StopTimer()
			now += 16.7
			m.Update(now)
			b.StartTimer()
			snap := m.Snapshot(seq) // as SnapshotJSON does, keeping Seq for the next read
			if _, err := json.Marshal(snap); err != nil {
				b.Fatal(err)
			}
			seq = snap.Seq
		}
	})
}

// BenchmarkParallelArms measures how many page frames hackbench's comparison
// (100 loops) takes at max speed over two workers that each get 8 ms of engine
// time a frame, as two cores would give them: the frames the pipeline needs,
// whatever machine runs the benchmark (frames/op; worker_ms/op is frames times
// the 8 ms). In lock-step the arms, dense at different times, take about the
// sum of their work; with the run ahead (lead.go), about the larger.
func BenchmarkParallelArms(b *testing.B) {
	ps, _ := playground.BuiltinPresets()
	start := time.Now()
	clock := func() float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 }
	const budgetMs = 8
	frames := 0
	for b.Loop() {
		l := runner.NewLoopback(2, clock)
		m := playground.New(playground.Options{Presets: ps, Clock: clock, Runner: l.Remote})
		m.Load("#v=1&preset=hackbench&speed=max", nil)
		m.Play()
		now := clock()
		for i := 0; m.Playing() && i < 1_000_000; i++ {
			for w := range l.Workers() {
				l.Work(w, budgetMs)
			}
			now += 16.7
			m.Update(now)
			frames++
		}
		if l.Err != nil || !m.State().Clock.Done {
			b.Fatalf("the run did not finish: %v", l.Err)
		}
	}
	b.ReportMetric(float64(frames)/float64(b.N), "frames/op")
	b.ReportMetric(float64(frames)/float64(b.N)*budgetMs, "worker_ms/op")
}
