package engine

import (
	"math/rand/v2"
	"slices"
	"strings"
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
		q.push(at, payload{arg: int32(i)})
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

// TestEventQueueTakeAndRefill: the engine's loop takes an event, its handler
// pushes none, one or several, and the loop settles; the events still come out
// in (time, insertion) order, as a plain sorted list gives them.
func TestEventQueueTakeAndRefill(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	var q eventQueue
	type key struct {
		at  int64
		arg int32
	}
	var ref []key // pending, in pop order
	next := int32(0)
	push := func(at int64) {
		q.push(at, payload{arg: next})
		i, _ := slices.BinarySearchFunc(ref, at, func(k key, at int64) int {
			if k.at <= at {
				return -1 // after every pending event at the same time
			}
			return 1
		})
		ref = slices.Insert(ref, i, key{at, next})
		next++
	}
	for range 20 {
		push(rng.Int64N(40))
	}
	now := int64(0)
	for i := range 20000 {
		if len(ref) == 0 {
			push(now + rng.Int64N(40))
		}
		at, p := q.take()
		if w := ref[0]; at != w.at || p.arg != w.arg {
			t.Fatalf("take %d = (%d, %d), want (%d, %d)", i, at, p.arg, w.at, w.arg)
		}
		ref, now = ref[1:], at
		for range rng.IntN(3) + rng.IntN(2) { // none to three, one most often
			push(now + rng.Int64N(40))
		}
		q.settle()
		if len(q.h) != len(ref) {
			t.Fatalf("after take %d: %d queued, want %d", i, len(q.h), len(ref))
		}
	}
}

// TestSteadyStateAllocations: stepping a warmed-up simulation, taking a snapshot
// and draining the visual events into reused buffers allocates (almost) nothing:
// the browser does this every frame. Under js/wasm an allocation per event costs
// far more than itself: the collections it brings keep the write barrier on
// while the engine runs (hackbench's sched_ext wakes once allocated a reason).
func TestSteadyStateAllocations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sets   []string
		warmNs int64 // hackbench's new rule is done by 0.35 s
	}{
		{"tpcb-32vcpu", []string{"workload.clients=64", "sched.wake_pull=true", "duration_ms=100000"}, 500e6},
		{"hackbench", []string{"sched.wake_sync=old"}, 100e6},
		{"hackbench", []string{"sched.wake_sync=new"}, 100e6},
		{"hackbench", []string{"sched.policy=linux"}, 100e6},
	} {
		t.Run(tc.name+" "+strings.Join(tc.sets, " "), func(t *testing.T) {
			s, err := NewSim(loadExample(t, tc.name, tc.sets...))
			if err != nil {
				t.Fatal(err)
			}
			var snap Snapshot
			var vis []VisEvent
			s.RunUntil(tc.warmNs)
			s.Snapshot(&snap)
			vis = s.DrainVis(vis)
			allocs := testing.AllocsPerRun(200, func() {
				if s.StepN(1000) < 1000 {
					t.Fatal("the run ended")
				}
				s.Snapshot(&snap)
				vis = s.DrainVis(vis[:0])
			})
			// AllocsPerRun rounds the mean down: 0 is fewer than one allocation per
			// thousand events over the 200 runs (a runqueue may still grow, rarely).
			if allocs != 0 {
				t.Errorf("%.0f allocations per 1000 events, want none", allocs)
			}
		})
	}
}
