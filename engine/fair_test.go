package engine

import (
	"fmt"
	"math"
	"testing"
)

// TestFairNiceShares: two always-running tasks pinned to one CPU share it in
// the ratio of their sched_prio_to_weight weights (nice 0 against nice 10 is
// 1024:110), as EEVDF's weighted vruntime makes them; the ratio holds for
// every HZ the kernel is built with. Over 10 s the lag EEVDF allows (a slice,
// noticed at a tick) is under 1% of the smaller share.
func TestFairNiceShares(t *testing.T) {
	for _, tc := range []struct{ niceA, niceB int }{{0, 10}, {0, 5}, {-5, 0}, {0, 19}, {0, 0}} {
		for _, hz := range []string{"100", "250", "1000"} {
			t.Run(fmt.Sprintf("nice%d_vs_%d_hz%s", tc.niceA, tc.niceB, hz), func(t *testing.T) {
				src := fmt.Sprintf(`{
					"tasks": {"a": {"cpus": [0], "priority": %d, "loop": -1, "run": 100},
						"b": {"cpus": [0], "priority": %d, "loop": -1, "run": 100}}}`, tc.niceA, tc.niceB)
				r := runRTApp(t, src, "sched.policy=linux", "sched.hz="+hz, "duration_ms=10000")
				a, b := float64(rtTaskRes(t, r, "a").Loops), float64(rtTaskRes(t, r, "b").Loops)
				want := float64(niceWeight(tc.niceA)) / float64(niceWeight(tc.niceB))
				if got := a / b; math.Abs(got/want-1) > 0.03 {
					t.Errorf("a:b = %.0f:%.0f = %.3f, want the weights' %d:%d = %.3f (±3%%)", a, b, got, niceWeight(tc.niceA), niceWeight(tc.niceB), want)
				}
			})
		}
	}
}

// TestFairTickCutsLongSteps: a 50 ms step of work is cut at the first tick
// after its slice is spent when another task waits on the CPU: the waiting
// task runs within a slice plus a tick of becoming runnable, not 50 ms later.
func TestFairTickCutsLongSteps(t *testing.T) {
	for _, hz := range []int64{100, 250, 1000} {
		t.Run(fmt.Sprint(hz), func(t *testing.T) {
			s, w := tinySim(t, "sched.policy=linux", "machine.vcpus=1", "machine.platform=native", fmt.Sprintf("sched.hz=%d", hz))
			hog := spawn(s, w, 0, true, 50_000_000, 50_000_000)
			s.wake(hog, -1, false)
			s.RunUntil(1_000_000)
			other := spawn(s, w, 0, true, 1000)
			s.wake(other, -1, false)
			woke := s.now
			limit := woke + 2*s.baseSliceNs + 1_000_000_000/hz + 100_000
			for s.now < limit && other.state != ThreadBlocked {
				s.Step()
			}
			if other.state != ThreadBlocked {
				t.Fatalf("the woken task had not run %d µs after its wake (slice %d µs, tick %d µs)", (s.now-woke)/1000, s.baseSliceNs/1000, 1_000_000/hz)
			}
		})
	}
}

// TestFairSumsStayTrue: through a busy run with wakeups, blocking, delayed
// dequeues and newidle pulls, every CPU's cfs_rq sums are what its queued and
// delayed entities add up to, and every thread on a delayed list is blocked.
func TestFairSumsStayTrue(t *testing.T) {
	sc := loadExample(t, "hackbench", "sched.policy=linux")
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	delayedSeen := 0
	for i := 0; i < 400_000 && s.Step(); i++ {
		if i%97 != 0 {
			continue
		}
		for _, c := range s.cpus {
			want := fairRQ{zero: c.cfs.zero}
			for _, x := range c.rq {
				want.add(&x.fair)
			}
			if len(c.cfs.queued) != len(c.rq) {
				t.Fatalf("at %d ns CPU %d: %d entities in the tree, %d tasks queued", s.now, c.id, len(c.cfs.queued), len(c.rq))
			}
			for _, e := range c.cfs.delayed {
				x := e.owner
				if x.state != ThreadBlocked || !x.fair.delayed {
					t.Fatalf("at %d ns CPU %d: thread %d on the delayed list is %v", s.now, c.id, x.id, x.state)
				}
				want.add(e)
			}
			delayedSeen += len(c.cfs.delayed)
			if want.sumW != c.cfs.sumW || want.sumWV != c.cfs.sumWV {
				t.Fatalf("at %d ns CPU %d: sums (%d, %d), the queue adds up to (%d, %d)", s.now, c.id, c.cfs.sumW, c.cfs.sumWV, want.sumW, want.sumWV)
			}
			for i := 1; i < len(c.rq); i++ {
				if c.rq[i-1].fair.deadline > c.rq[i].fair.deadline {
					t.Fatalf("at %d ns CPU %d: the queue is not in deadline order", s.now, c.id)
				}
			}
		}
	}
	if delayedSeen == 0 {
		t.Errorf("hackbench never left a delayed entity on a queue: the check above saw no DELAY_DEQUEUE")
	}
}

// TestFairCustomSliceWakesSooner: a periodic task given a short custom slice
// (rt-app's dl-runtime under SCHED_OTHER, sched_attr.sched_runtime) preempts
// a CPU hog as soon as it wakes (PREEMPT_SHORT overrides the hog's protected
// slice); with the base slice it waits for the hog's protection to run out.
func TestFairCustomSliceWakesSooner(t *testing.T) {
	wuLat := func(slice string) float64 {
		src := `{"tasks": {"hog": {"cpus": [0], "loop": -1, "run": 100000},
			"tick": {"cpus": [0], "loop": -1, "run": 100, "timer": {"ref": "t", "period": 10000}` + slice + `}}}`
		r := runRTApp(t, src, "sched.policy=linux", "duration_ms=2000", "sched.timer_slack_us=0")
		return rtTaskRes(t, r, "tick").WuLatMeanUs
	}
	short, base := wuLat(`, "dl-runtime": 100`), wuLat("")
	if short*10 > base {
		t.Errorf("wake-up latency %.1f µs with a 100 µs custom slice, %.1f µs with the base slice: want the short slice's far lower", short, base)
	}
}
