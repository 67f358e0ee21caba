package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEventQueueOrder: events pop in (time, insertion) order whatever order they
// were pushed in, including many at the same time.
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var q eventQueue
	type key struct {
		at  int64
		arg int32
	}
	var want []key
	for i := range 5000 {
		at := rng.Int64N(50) // many ties
		q.push(event{at: at, arg: int32(i)})
		want = append(want, key{at, int32(i)})
	}
	// Same time: insertion order, which arg records.
	slices.SortStableFunc(want, func(a, b key) int { return int(a.at - b.at) })
	for i, w := range want {
		at, ok := q.peekAt()
		if !ok {
			t.Fatalf("queue empty after %d pops, want %d", i, len(want))
		}
		if got := q.pop(); got.at != at || got.at != w.at || got.arg != w.arg {
			t.Fatalf("pop %d = (%d, %d), peekAt said %d, want (%d, %d)", i, got.at, got.arg, at, w.at, w.arg)
		}
	}
	if _, ok := q.peekAt(); ok || len(q.h) != 0 {
		t.Errorf("queue not empty at the end")
	}
}

// TestSteadyStateAllocations: stepping a warmed-up simulation, taking a snapshot
// and draining the visual events into reused buffers allocates (almost) nothing:
// the browser does this every frame.
func TestSteadyStateAllocations(t *testing.T) {
	sc := loadExample(t, "tpcb-32vcpu", "workload.clients=64", "sched.wake_pull=true", "duration_ms=100000")
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	var vis []VisEvent
	s.RunUntil(500e6)
	s.Snapshot(&snap)
	vis = s.DrainVis(vis)
	allocs := testing.AllocsPerRun(200, func() {
		s.StepN(1000)
		s.Snapshot(&snap)
		vis = s.DrainVis(vis[:0])
	})
	// AllocsPerRun rounds the mean down: 0 is fewer than one allocation per
	// thousand events over the 200 runs (a runqueue may still grow, rarely).
	if allocs != 0 {
		t.Errorf("%.0f allocations per 1000 events, want none", allocs)
	}
}
