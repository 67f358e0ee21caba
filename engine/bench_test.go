package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkEngineFanout reports the engine's events/s on the idle-pull fan-out
// (32 vCPUs, 64 clients, pull on), without row locks. Compare with
// BenchmarkBareHeapLoop, the limit: the same typed heap with nothing but pop and
// push.
func BenchmarkEngineFanout(b *testing.B) {
	benchFanout(b, "workload.tpcb_scale=0")
}

// BenchmarkEngineFanoutRowLocks is the fan-out with the TPC-B preset's row
// locks (scale 100).
func BenchmarkEngineFanoutRowLocks(b *testing.B) {
	benchFanout(b, "workload.tpcb_scale=100")
}

func benchFanout(b *testing.B, sets ...string) {
	benchScenario(b, loadExample(b, "tpcb-32vcpu", append([]string{"workload.clients=64", "sched.wake_pull=true", "duration_ms=1000", "warmup_ms=100"}, sets...)...))
}

// benchScenario runs sc to its horizon once a loop and reports the events
// simulated a second and a run.
func benchScenario(b *testing.B, sc Scenario) {
	var events int64
	b.ReportAllocs()
	for b.Loop() {
		s, err := NewSim(sc)
		if err != nil {
			b.Fatal(err)
		}
		s.Run()
		events += s.Events()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkBareHeapLoop is a discrete-event loop that does no work: pop the
// earliest event, push one follow-up at a random later time, with the heap at the
// size the fan-out scenario keeps (about 200 pending events).
func BenchmarkBareHeapLoop(b *testing.B) {
	var q eventQueue
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		q.push(rng.Int64N(100_000), payload{cpu: int32(i % 32)})
	}
	var events int64
	for b.Loop() {
		for range 1_000_000 {
			at, p := q.take()
			q.push(at+1+rng.Int64N(100_000), p)
		}
		events += 1_000_000
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkEngineRTApp reports events/s on an rt-app workload
// (testdata/rtapp/bench.json: periodic timers, a mutex with a condition
// variable, a barrier) on 32 vCPUs for 1 s, to set beside
// BenchmarkEngineFanout, the pgbench preset's.
func BenchmarkEngineRTApp(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "rtapp", "bench.json"))
	if err != nil {
		b.Fatal(err)
	}
	sc := rtappScenario(string(src))
	sc.Machine.VCPUs = 32
	var events int64
	b.ReportAllocs()
	for b.Loop() {
		s, err := NewSim(sc)
		if err != nil {
			b.Fatal(err)
		}
		s.SetVisual(false)
		s.Run()
		events += s.Events()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkEngineHackbench runs the two arms the page's hackbench comparison
// plays at max speed (the preset's old and new WAKE_SYNC rules) to the end, one
// after the other as the engine worker does, with visual events recorded as the
// page has them: the workload issue 24 measures against the native CLI.
func BenchmarkEngineHackbench(b *testing.B) {
	sc := loadExample(b, "hackbench")
	var arms []Scenario
	for _, name := range []string{"old rule", "new rule"} {
		arms = append(arms, loadExample(b, "hackbench", armSets(b, sc, name)...))
	}
	var events int64
	b.ReportAllocs()
	for b.Loop() {
		for _, asc := range arms {
			s, err := NewSim(asc)
			if err != nil {
				b.Fatal(err)
			}
			s.Run()
			events += s.Events()
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkEngineHackbenchLinux runs hackbench's "linux" arm (the Linux
// reference, sched.policy=linux) to the end: the workload whose events/s the
// scheduling-classes issue keeps within 10% of what it was before the fair
// class became EEVDF.
func BenchmarkEngineHackbenchLinux(b *testing.B) {
	sc := loadExample(b, "hackbench")
	benchScenario(b, loadExample(b, "hackbench", armSets(b, sc, "linux")...))
}
