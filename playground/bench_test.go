package playground_test

import (
	"testing"
	"time"

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

// BenchmarkUI measures building the page update (a few times a second).
func BenchmarkUI(b *testing.B) {
	ps, _ := playground.BuiltinPresets()
	m := playground.New(playground.Options{Presets: ps, Runner: runner.NewLocal(func() float64 { return 0 })})
	m.Load("#v=1&preset=tpcb-32vcpu&speed=max", nil)
	m.RunTo(100_000_000)
	for i := 0; m.Playing() && i < 100000; i++ {
		m.Update(float64(i) * 16)
	}
	for b.Loop() {
		if _, err := m.UIJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
