package engine

import (
	"math"
	"testing"
)

// Tests of the two results about who got the CPU: task_fairness (Jain's index
// over each worker's CPU time in the window) and runnable_wait_us (woken or
// requeued, to switched in).

// TestTaskFairness: Jain's index over the workers' CPU time in the measured
// window, on scripted threads whose shares are known.
func TestTaskFairness(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		setup func(s *Sim, w script)
		want  float64
	}{
		{"two workers alone on two CPUs: equal shares", func(s *Sim, w script) {
			s.wake(spawn(s, w, 0, false, 1_000_000_000), -1, false)
			s.wake(spawn(s, w, 1, false, 1_000_000_000), -1, false)
		}, 1},
		{"one of two workers never runs: (x)² / (2·x²) = 1/2", func(s *Sim, w script) {
			s.wake(spawn(s, w, 0, false, 1_000_000_000), -1, false)
			spawn(s, w, 1, false, 1000) // never woken
		}, 0.5},
		{"two workers share CPU 0, a third has CPU 1: shares ½ ½ 1 give 4 / (3·1.5)", func(s *Sim, w script) {
			s.wake(spawn(s, w, 0, false, 1_000_000_000), -1, false)
			s.wake(spawn(s, w, 0, false, 1_000_000_000), -1, false)
			s.wake(spawn(s, w, 1, false, 1_000_000_000), -1, false)
		}, 4.0 / 4.5},
		{"a non-worker thread does not count", func(s *Sim, w script) {
			s.wake(spawn(s, w, 0, false, 1_000_000_000), -1, false)
			s.wake(spawn(s, w, 1, false, 1_000_000_000), -1, false)
			s.newThread("rx", RoleWaker, 1, true) // blocked all along: would halve the index
		}, 1},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, w := tinySim(t, "machine.platform=native")
			tc.setup(s, w)
			// The window starts after the start-up transient and ends before the
			// run does, so both snapshots are exercised.
			win := s.AddWindow(200, 800)
			s.RunUntil(1_000_000_000)
			got := s.ResultsWindow(win).TaskFairness
			if math.Abs(got-tc.want) > 0.01 {
				t.Errorf("task_fairness %.4f, want %.4f", got, tc.want)
			}
		})
	}
}

// TestTaskFairnessWindow: only CPU time inside the window counts. One worker
// runs [0, 500 ms) and another [500, 1000 ms), on one CPU: over [0, 1000) they
// are equal; over [0, 500) one had everything.
func TestTaskFairnessWindow(t *testing.T) {
	s, w := tinySim(t, "machine.platform=native", "machine.vcpus=1")
	a := spawn(s, w, 0, false, 500_000_000)
	b := spawn(s, w, 0, false, 500_000_000)
	s.wake(a, -1, false)
	whole, first, second := s.AddWindow(0, 1000), s.AddWindow(0, 500), s.AddWindow(500, 1000)
	s.RunUntil(500_000_000)
	s.wake(b, -1, false)
	if got := s.ResultsWindow(first).TaskFairness; math.Abs(got-0.5) > 0.01 {
		t.Errorf("first half, live: task_fairness %.4f, want 0.5", got)
	}
	s.RunUntil(1_000_000_000)
	for _, tc := range []struct {
		desc string
		win  int
		want float64
	}{
		{"whole run: 500 ms each", whole, 1},
		{"first half: a alone", first, 0.5},
		{"second half: b alone", second, 0.5},
	} {
		if got := s.ResultsWindow(tc.win).TaskFairness; math.Abs(got-tc.want) > 0.01 {
			t.Errorf("%s: task_fairness %.4f, want %.4f", tc.desc, got, tc.want)
		}
	}
}

// TestRunnableWait: on one scx_simple CPU (FIFO, no wakeup preemption, 20 ms
// slice) a task woken at 2 ms waits until the running task's slice is spent,
// 20 ms after it was switched in, and the CPU's next tick notices it
// (task_tick_scx), whose interrupt exit switches; the running task, requeued
// then, waits for the wakee's 1 ms step and the switch into it. Wake-to-run
// sees only the first wait.
func TestRunnableWait(t *testing.T) {
	s, w := tinySim(t, "machine.platform=native", "machine.vcpus=1", "sched.policy=scx_simple")
	win := s.AddWindow(1, 40) // after the runner's own start
	runner := spawn(s, w, 0, false, 5_000_000, 5_000_000, 5_000_000, 5_000_000, 5_000_000, 5_000_000)
	s.wake(runner, -1, false)
	runUntilRunning(s, runner)
	dispatched := s.now
	s.RunUntil(2_000_000)
	wakee := spawn(s, w, 0, false, 1_000_000)
	s.wake(wakee, -1, false)
	s.RunUntil(40_000_000)
	r := s.ResultsWindow(win)
	ctx := s.sc.Machine.Costs.ContextSwitchNs
	// The slice is spent 20 ms after the switch-in; the tick on the jiffies
	// grid at or after that notices it, and its handler's exit switches.
	sliceEnd := dispatched + 20_000_000
	tickAt := (sliceEnd + s.tickNs - 1) / s.tickNs * s.tickNs
	wakeeWaitUs := float64(tickAt+s.sc.Machine.Costs.IRQHandleNs-2_000_000) / 1e3
	requeueWaitUs := float64(1_000_000+ctx) / 1e3
	if n := s.m.win[win].ready.n; n != 2 {
		t.Fatalf("%d runnable waits recorded, want 2 (the wakee's, the requeued runner's)", n)
	}
	if r.RunnableWaitUs.Max != wakeeWaitUs {
		t.Errorf("runnable_wait_us.max %.3f, want %.3f (woken at 2 ms, run when the slice ended)", r.RunnableWaitUs.Max, wakeeWaitUs)
	}
	// The histogram's quantiles are bucket midpoints, within about 3%.
	if p50 := r.RunnableWaitUs.P50; math.Abs(p50-requeueWaitUs) > 0.03*requeueWaitUs {
		t.Errorf("runnable_wait_us.p50 %.1f, want about %.1f (the requeued runner's wait)", p50, requeueWaitUs)
	}
	if got := s.m.win[win].w2r.n; got != 1 {
		t.Errorf("%d wake-to-run samples, want 1 (the wakee: a requeue is not a wake)", got)
	}
}

// TestRunnableWaitQuantiles: the p50 and p99 of many waits (a histogram check
// through the public results): one busy CPU, one CPU-bound task and a stream of
// short wakees, under scx_simple; every wait is at most a slice and the tick
// that notices it spent (task_tick_scx).
func TestRunnableWaitQuantiles(t *testing.T) {
	s, w := tinySim(t, "machine.platform=native", "machine.vcpus=1", "sched.policy=scx_simple")
	steps := make([]int64, 400)
	for i := range steps {
		steps[i] = 1_000_000
	}
	s.wake(spawn(s, w, 0, false, steps...), -1, false)
	for i := range 50 {
		s.RunUntil(int64(i+1) * 7_000_000)
		s.wake(spawn(s, w, 0, false, 100_000), -1, false)
	}
	r := s.Run()
	slice := float64(s.sc.Sched.ScxSliceUs)
	tickUs := float64(s.tickNs+s.sc.Machine.Costs.IRQHandleNs) / 1e3
	if r.RunnableWaitUs.Max > (slice+tickUs)*1.01 || r.RunnableWaitUs.Max < slice/2 {
		t.Errorf("runnable_wait_us.max %.0f, want between half a slice and a slice and a tick (%.0f + %.0f)", r.RunnableWaitUs.Max, slice, tickUs)
	}
	if !(r.RunnableWaitUs.P50 > 0 && r.RunnableWaitUs.P50 <= r.RunnableWaitUs.P99 && r.RunnableWaitUs.P99 <= r.RunnableWaitUs.Max*1.03) {
		t.Errorf("runnable_wait_us p50 %.1f, p99 %.1f, max %.1f: want 0 < p50 <= p99 <= max", r.RunnableWaitUs.P50, r.RunnableWaitUs.P99, r.RunnableWaitUs.Max)
	}
}

// TestRunnableWaitStarved: a task that never gets the CPU has no finished wait,
// but its wait still counts in the max: on one scx_simple CPU whose running task
// never blocks and whose slice is longer than the run, a task woken at 100 ms
// waits until the end.
func TestRunnableWaitStarved(t *testing.T) {
	s, w := tinySim(t, "machine.platform=native", "machine.vcpus=1", "sched.policy=scx_simple", "sched.scx_slice_us=1000000",
		"duration_ms=500")
	steps := make([]int64, 100)
	for i := range steps {
		steps[i] = 10_000_000
	}
	s.wake(spawn(s, w, 0, false, steps...), -1, false)
	s.RunUntil(100_000_000)
	s.wake(spawn(s, w, 0, false, 1000), -1, false)
	s.RunUntil(300_000_000)
	if got, want := s.Results().RunnableWaitUs.Max, 200_000.0; got != want {
		t.Errorf("live: runnable_wait_us.max %.0f, want %.0f (the starved task's wait so far)", got, want)
	}
	s.Run()
	if got, want := s.Results().RunnableWaitUs.Max, 400_000.0; got != want {
		t.Errorf("at the end: runnable_wait_us.max %.0f, want %.0f (woken at 100 ms, window ends at 500 ms)", got, want)
	}
}
