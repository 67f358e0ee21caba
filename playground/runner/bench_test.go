package runner_test

import (
	"testing"

	"schedplay/playground/runner"
)

// BenchmarkFrameWire measures what one 64-vCPU, 256-client frame costs the page to
// decode (and the worker to encode), per frame: the wire's share of a frame's
// budget.
func BenchmarkFrameWire(b *testing.B) {
	clock := &fakeClock{step: 0.01}
	l := runner.NewLoopback(1, clock.read)
	sc := scenario(b, "tpcb-32vcpu", "machine.vcpus=64", "workload.clients=256")
	l.Remote.Start(1, sc, false)
	seq := uint32(0)
	next := func(toNs int64) []runner.Frame {
		seq++
		l.Remote.Advance(1, runner.Advance{Seq: seq, ToNs: toNs, Select: runner.NoSelection()})
		l.Remote.Pump(0)
		l.Work(0, 1e9)
		return l.Remote.Receive(nil)
	}
	next(300_000_000) // clients connected and busy
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if fs := next(300_000_000 + int64(i+1)*1000); len(fs) != 1 || len(fs[0].Snap.CPUs) != 64 {
			b.Fatalf("%d frames", len(fs))
		}
	}
}
