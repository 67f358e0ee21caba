package engine

import (
	"slices"
	"testing"
)

// Direct tests of the rules the design reviews argued about (the symmetric spin
// window, WAKE_SYNC as first proposed) and of the overhead a CPU owes before it
// idles, each on a 2-4 CPU machine built by tinySim (rules_test.go).

// TestRuleIPISendBeforeIdle: OSv's wake_impl sends the wakeup IPI synchronously,
// before the waker blocks, so a CPU whose last thread sent IPIs spends that time
// busy before its idle loop starts (and the run's busy time includes it).
func TestRuleIPISendBeforeIdle(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		wakes int // remote wakes the thread sends just before it blocks
	}{
		{"no IPI sent: the CPU spins as soon as the thread blocks", 0},
		{"one IPI sent: the CPU spins one send later", 1},
		{"two IPIs sent: two sends later", 2},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, w := tinySim(t, "machine.vcpus=3", "machine.platform=kvm")
			s.RunUntil(1_000_000) // CPUs 1 and 2 have halted
			waker := spawn(s, w, 0, false, 10_000)
			s.wake(waker, -1, false)
			runUntilRunning(s, waker)
			s.RunUntil(s.now + 5_000) // the waker's step is under way
			sent := s.m.live.IPIs[IPIWakeup]
			for i := range tc.wakes {
				s.wake(spawn(s, w, 1+i, false, 1000), 0, false)
			}
			if got := s.m.live.IPIs[IPIWakeup] - sent; got != int64(tc.wakes) {
				t.Fatalf("%d wakeup IPIs sent, want %d", got, tc.wakes)
			}
			c := s.cpus[0]
			for c.cur == waker || c.state == CPUIRQ {
				s.Step() // to the waker's step end, where it blocks
			}
			blockedAt := s.now
			owed := int64(tc.wakes) * s.sc.Machine.Costs.IPISendNs
			busy := s.m.live.BusyNs
			s.RunUntil(blockedAt + max(owed-1, 0))
			if owed > 0 && (c.state != CPURunning || c.cur != nil) {
				t.Errorf("%d ns after the block: CPU 0 is %s (running %v), want busy paying the sends", owed-1, c.state, c.cur != nil)
			}
			s.RunUntil(blockedAt + owed + 1)
			if c.state != CPUSpinning {
				t.Errorf("%d ns after the block: CPU 0 is %s, want spinning", owed+1, c.state)
			}
			// CPU 0 was busy for the sends; the woken CPUs, halted, were not.
			if got := s.m.live.BusyNs - busy; got < owed {
				t.Errorf("busy time grew by %d ns after the block, want at least the %d ns of sends", got, owed)
			}
		})
	}
}

// TestRuleIPISendBeforeIdleInterrupted: an interrupt that reaches the CPU while
// it pays what it owes leaves the rest owed, so the CPU spends it afterwards.
func TestRuleIPISendBeforeIdleInterrupted(t *testing.T) {
	s, w := tinySim(t, "machine.vcpus=2", "machine.platform=kvm", "machine.costs.ipi_send_ns=50000")
	s.RunUntil(1_000_000)
	waker := spawn(s, w, 0, false, 10_000)
	s.wake(waker, -1, false)
	runUntilRunning(s, waker)
	s.RunUntil(s.now + 5_000)
	s.wake(spawn(s, w, 1, false, 1000), 0, false) // CPU 0 owes 50 µs
	c := s.cpus[0]
	for c.cur == waker {
		s.Step()
	}
	blockedAt := s.now
	s.RunUntil(blockedAt + 10_000)
	s.raiseIRQ(c, spawn(s, w, 0, false), irqTimer) // a timer whose thread has nothing to do
	irqNs := s.sc.Machine.Costs.IRQHandleNs
	s.RunUntil(blockedAt + 50_000 + irqNs - 1_000)
	if c.state == CPUSpinning || c.state == CPUHalted {
		t.Errorf("CPU 0 is %s before the 40 µs left of its sends were spent", c.state)
	}
	s.RunUntil(blockedAt + 50_000 + irqNs + 20_000)
	if c.state != CPUSpinning && c.state != CPUHalted {
		t.Errorf("CPU 0 is %s long after its sends were spent, want idle", c.state)
	}
}

// runUntilRunning steps s until t runs.
func runUntilRunning(s *Sim, t *thread) {
	for t.state != ThreadRunning && s.Step() {
	}
}

// TestRuleSpinWindowSymmetric: the symmetric alternative to the adaptive window
// halves it on every halt that caught nothing, down to the floor, and doubles it
// on every wake caught while spinning, up to the cap. The asymmetric rule on the
// same history halves only after K consecutive halts and snaps back to the cap.
func TestRuleSpinWindowSymmetric(t *testing.T) {
	for _, tc := range []struct {
		desc        string
		rule        string
		afterHalts  []int64 // the window after the start-up halt and each of 5 more
		afterCaught []int64 // then after each of 4 caught wakes
	}{
		{"symmetric: halve per halt, double per caught wake", SpinSymmetric,
			[]int64{4000, 2000, 1000, 1000, 1000, 1000}, []int64{2000, 4000, 8000, 8000}},
		{"asymmetric: halve after K=2 halts, snap to the cap", SpinAsymmetric,
			[]int64{8000, 4000, 4000, 2000, 2000, 1000}, []int64{8000, 8000, 8000, 8000}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, w := tinySim(t, "sched.idle_spin.adaptive=true", "sched.idle_spin.rule="+tc.rule,
				"sched.idle_spin.cap=8000", "sched.idle_spin.floor=1000", "sched.idle_spin.halts_before_shrink=2")
			c := s.cpus[1]
			// Start-up: CPU 1 spins its first window out and halts.
			for c.state != CPUHalted {
				s.Step()
			}
			var halts []int64
			halts = append(halts, c.spinWindow)
			for range 5 {
				// A timer brings the CPU back with nothing to run: it spins its
				// window out again and halts.
				s.raiseIRQ(c, spawn(s, w, 1, false), irqTimer)
				for c.state != CPUSpinning {
					s.Step()
				}
				for c.state != CPUHalted {
					s.Step()
				}
				halts = append(halts, c.spinWindow)
			}
			if !slices.Equal(halts, tc.afterHalts) {
				t.Errorf("window after each halt %v, want %v", halts, tc.afterHalts)
			}
			// Bring it back to spinning, then wake a thread onto it while it
			// spins, four times: each is a caught wake.
			s.raiseIRQ(c, spawn(s, w, 1, false), irqTimer)
			for c.state != CPUSpinning {
				s.Step()
			}
			var caught []int64
			for range 4 {
				x := spawn(s, w, 1, false, 1000)
				s.wake(x, 0, false)
				if d := lastOf(t, s, DecIPISuppressed, x.id); d.Target != 1 {
					t.Fatalf("the wake was not suppressed on spinning CPU 1: %v", d)
				}
				for x.state != ThreadBlocked || c.state != CPUSpinning {
					s.Step() // it runs its step, blocks, and CPU 1 spins again
				}
				caught = append(caught, c.spinWindow)
			}
			if !slices.Equal(caught, tc.afterCaught) {
				t.Errorf("window after each caught wake %v, want %v", caught, tc.afterCaught)
			}
			if n := countOf(s, DecSpinGrow); tc.rule == SpinSymmetric && n != 3 {
				t.Errorf("%d spin_grow decisions, want 3 (the fourth doubling is held at the cap)", n)
			}
		})
	}
}

// TestRuleWakeSyncProposed: the three WAKE_SYNC rules of scx_select_cpu_dfl on a
// 4-CPU scx_simple machine. The wakee goes to the waker's CPU when some CPU is
// idle (old), when the waker CPU's local queue is empty (proposed: the idle test
// removed), or when both hold (new, as merged). Otherwise it goes to an idle CPU
// if there is one, else to the shared queue.
func TestRuleWakeSyncProposed(t *testing.T) {
	type want struct{ old, proposed, new string } // "waker", "idle" or "shared"
	for _, tc := range []struct {
		desc      string
		saturated bool // every CPU runs a task (none idle)
		queued    bool // the waker CPU's local queue holds a task
		want      want
	}{
		{"a CPU idle, the waker's queue empty", false, false, want{"waker", "waker", "waker"}},
		{"a CPU idle, a task queued behind the waker", false, true, want{"waker", "idle", "idle"}},
		{"saturated, the waker's queue empty", true, false, want{"shared", "waker", "shared"}},
		{"saturated, a task queued behind the waker", true, true, want{"shared", "shared", "shared"}},
	} {
		for _, rule := range []string{"old", "proposed", "new"} {
			t.Run(tc.desc+"/"+rule, func(t *testing.T) {
				s, w := tinySim(t, "machine.vcpus=4", "sched.policy=scx_simple", "sched.wake_sync="+rule, "machine.platform=native")
				busy := 2 // the waker on CPU 0 and one task on CPU 1; CPUs 2 and 3 idle
				if tc.saturated {
					busy = 4
				}
				var waker *thread
				for i := range busy {
					x := spawn(s, w, i, false, 10_000_000)
					s.wake(x, -1, false)
					if i == 0 {
						waker = x
					}
				}
				s.RunUntil(50_000)
				for i := range busy {
					if s.cpus[i].cur == nil {
						t.Fatalf("setup: CPU %d runs nothing", i)
					}
				}
				if tc.queued {
					s.rqInsert(s.cpus[0], spawn(s, w, 0, false, 1000))
				}
				wakee := spawn(s, w, 3, false, 1000)
				p := s.pol.placeWake(s, wakee, waker.cpu, true)
				got := "idle"
				switch {
				case p.shared:
					got = "shared"
				case p.cpu == 0:
					got = "waker"
				case s.cpus[p.cpu].cur != nil:
					got = "a busy CPU's local queue"
				}
				exp := map[string]string{"old": tc.want.old, "proposed": tc.want.proposed, "new": tc.want.new}[rule]
				if got != exp {
					t.Errorf("placed: %s (CPU %d, %s), want %s", got, p.cpu, p.reason, exp)
				}
			})
		}
	}
}
