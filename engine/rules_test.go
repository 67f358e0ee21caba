package engine

import (
	"strings"
	"testing"
)

// Direct tests of each scheduling rule on a 2-4 CPU machine. Threads follow a
// script (script below): each thread runs the listed steps and then blocks, so a
// test sets up exactly the state a rule is about and checks what the engine did,
// mostly through its decision records.

// script is a test workload: thread id -> step durations (ns) still to run.
type script map[int][]int64

func (sc script) next(s *Sim, t *thread) (int64, bool) {
	steps := sc[t.id]
	if len(steps) == 0 {
		return 0, true
	}
	sc[t.id] = steps[1:]
	return steps[0], false
}

func (sc script) event(s *Sim, e event) {}

// tinySim builds a machine with no workload threads, no balancer (unless a set
// turns it on) and a scripted workload; sets override knobs as in --set.
func tinySim(t *testing.T, sets ...string) (*Sim, script) {
	t.Helper()
	base := []string{"machine.vcpus=2", "duration_ms=1000", "warmup_ms=0", "sched.balance_interval_ms=0", "workload.kind=idle", "workload.clients=0"}
	s := knobSim(t, base, sets...)
	w := script{}
	s.wl = w
	return s, w
}

// spawn creates a thread homed on cpu that will run steps once woken.
func spawn(s *Sim, w script, cpu int, pinned bool, steps ...int64) *thread {
	t := s.newThread("test", RoleWorker, cpu, pinned)
	w[t.id] = steps
	return t
}

// lastOf returns the newest decision of kind k about thread id (any thread if
// id < 0), failing the test when there is none.
func lastOf(t *testing.T, s *Sim, k DecisionKind, id int) Decision {
	t.Helper()
	ds := s.Decisions(nil)
	for i := len(ds) - 1; i >= 0; i-- {
		if ds[i].Kind == k && (id < 0 || int(ds[i].Thread) == id) {
			return ds[i]
		}
	}
	t.Fatalf("no %s decision about thread %d; decisions: %v", k, id, ds)
	return Decision{}
}

// countFrom counts the decisions made by cpu.
func countFrom(ds []Decision, cpu int) int {
	n := 0
	for _, d := range ds {
		if int(d.CPU) == cpu {
			n++
		}
	}
	return n
}

func countOf(s *Sim, k DecisionKind) int {
	n := 0
	for _, d := range s.Decisions(nil) {
		if d.Kind == k {
			n++
		}
	}
	return n
}

// TestRuleWakeIPISuppression: a remote wake sends a wakeup IPI only when the
// target's incoming list was empty, the target is not spinning in its idle loop
// and its load is at most 1 (wake_impl and cpu::send_wakeup_ipi, in that order).
func TestRuleWakeIPISuppression(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		setup  func(s *Sim, w script) // leaves CPU 1 in the state under test at s.now
		sent   bool
		reason string
	}{
		{"halted target, nothing pending: IPI", func(s *Sim, w script) {
			s.RunUntil(1_000_000) // the 30 µs spin is long over
		}, true, "load <= 1"},
		{"spinning target: it sees the wake itself", func(s *Sim, w script) {
			s.RunUntil(1_000) // still inside its 10000-iteration spin
		}, false, "spinning"},
		{"a wake already pending in the incoming list", func(s *Sim, w script) {
			s.RunUntil(1_000_000)
			s.wake(spawn(s, w, 1, false, 1000), 0, false)
		}, false, "already pending"},
		{"target runs a thread with another queued (load 2)", func(s *Sim, w script) {
			a := spawn(s, w, 1, false, 10_000_000)
			b := spawn(s, w, 1, false, 10_000_000)
			s.wake(a, 0, false)
			s.wake(b, 0, false)
			s.RunUntil(1_000_000) // both drained: one runs, one is queued
			if l := s.cpus[1].load(); l != 2 {
				panic("setup: CPU 1 load is not 2")
			}
		}, false, "load is 2 or more"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, w := tinySim(t)
			tc.setup(s, w)
			x := spawn(s, w, 1, false, 1000)
			before := s.m.live.IPIs[IPIWakeup]
			s.wake(x, 0, false)
			kind := DecIPISuppressed
			if tc.sent {
				kind = DecIPISent
			}
			d := lastOf(t, s, kind, x.id)
			if !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("reason %q, want it to say %q", d.Reason, tc.reason)
			}
			if sent := s.m.live.IPIs[IPIWakeup] > before; sent != tc.sent {
				t.Errorf("IPI sent = %v, want %v", sent, tc.sent)
			}
			// However the target hears of it, the wake is never lost (a busy
			// target finds it at its next reschedule: here its preemption timer).
			s.RunUntil(s.now + 30_000_000)
			if x.state != ThreadBlocked || len(w[x.id]) != 0 {
				t.Errorf("woken thread did not run its step (state %s)", x.state)
			}
		})
	}
}

// TestRuleInterruptExitPreempts: a thread woken by an interrupt preempts the
// interrupted thread at the interrupt's exit (OSv's interrupt() calls
// sched::preempt()) when its runtime is lower, not when the running step ends.
func TestRuleInterruptExitPreempts(t *testing.T) {
	s, w := tinySim(t)
	hog := spawn(s, w, 0, false, 50_000_000) // one 50 ms step
	s.wake(hog, -1, false)
	s.RunUntil(20_000_000)
	wakee := spawn(s, w, 0, false, 1000)
	s.raiseIRQ(s.cpus[0], wakee, irqDevice)
	s.RunUntil(s.now + 100_000)
	if wakee.state != ThreadBlocked || len(w[wakee.id]) != 0 {
		t.Fatalf("the wakee has not run 100 µs after the interrupt (state %s)", wakee.state)
	}
	d := lastOf(t, s, DecPreempt, wakee.id)
	if d.AtNs >= 50_000_000 {
		t.Errorf("preempted at %d ns, after the running step's end", d.AtNs)
	}
	if hog.state == ThreadBlocked {
		t.Errorf("the interrupted thread lost its step")
	}
}

// TestRuleHysteresis: the running thread keeps the CPU while its runtime less the
// borrowed hysteresis is below the wakee's (reschedule_from_interrupt), and loses
// it once the wakee's runtime is lower by more than that.
func TestRuleHysteresis(t *testing.T) {
	for _, tc := range []struct {
		desc       string
		ranMs      int64 // how long the running thread has run when the wakee arrives
		wakeeRanMs int64 // the wakee's own earlier run time
		preempts   bool
	}{
		{"equal runtimes: the runner keeps the CPU", 3, 3, false},
		{"the wakee ran 4 ms less, within the 5 ms hysteresis", 6, 2, false},
		{"the wakee ran 8 ms less, beyond the hysteresis", 9, 1, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, w := tinySim(t)
			wakee := spawn(s, w, 0, false, tc.wakeeRanMs*1e6, 1000)
			s.wake(wakee, -1, false)
			s.RunUntil(tc.wakeeRanMs * 1e6)
			runner := spawn(s, w, 0, false, 100_000_000)
			s.wake(runner, -1, false)
			s.RunUntil(s.now + 10_000) // the wakee's first step ended; now it waits
			w[wakee.id] = []int64{1000}
			s.RunUntil(s.now + tc.ranMs*1e6)
			s.raiseIRQ(s.cpus[0], wakee, irqDevice)
			s.RunUntil(s.now + 50_000)
			ran := wakee.state == ThreadBlocked && len(w[wakee.id]) == 0
			if ran != tc.preempts {
				t.Errorf("wakee ran = %v, want %v (runner vr %.0f, credit %.0f, wakee vr %.0f)",
					ran, tc.preempts, s.curVR(s.cpus[0]), s.cpus[0].hystCredit, wakee.vr)
			}
		})
	}
}

// TestRulePreemptionTimer: a queued thread with less runtime takes the CPU when
// the running thread's runtime (less its hysteresis) catches up with it, by
// timer, in the middle of a long step (OSv's preemption_timer).
func TestRulePreemptionTimer(t *testing.T) {
	s, w := tinySim(t)
	a := spawn(s, w, 0, false, 100_000_000)
	b := spawn(s, w, 0, false, 100_000_000)
	s.wake(a, -1, false)
	s.RunUntil(1_000)
	s.wake(b, -1, false) // b queues: a has run only 1 µs
	s.RunUntil(60_000_000)
	if n := countOf(s, DecPreempt); n == 0 {
		t.Fatal("two CPU-bound threads never alternated in 60 ms")
	}
	// They alternate in turns of about twice the hysteresis (sched.hh: "they
	// will alternate at time-slices of 2*thyst").
	var at []int64
	for _, d := range s.Decisions(nil) {
		if d.Kind == DecPreempt {
			at = append(at, d.AtNs)
		}
	}
	if at[0] < 4_000_000 || at[0] > 7_000_000 {
		t.Errorf("first time-slice preemption at %.1f ms, want about 5 ms (the hysteresis)", float64(at[0])/1e6)
	}
	for i := 1; i < len(at); i++ {
		if d := at[i] - at[i-1]; d < 8_000_000 || d > 12_000_000 {
			t.Errorf("turn %d lasted %.1f ms, want about 10 ms (2*thyst)", i, float64(d)/1e6)
		}
	}
	if a.runNs < 15e6 || b.runNs < 15e6 {
		t.Errorf("run time a %.1f ms, b %.1f ms: want both to have had turns", a.runNs/1e6, b.runNs/1e6)
	}
}

// TestRuleRxPriority: a thread with OSv's priority_infinity (virtio-net's RX
// thread) is never preempted by an ordinary thread and preempts any of them.
func TestRuleRxPriority(t *testing.T) {
	s, w := tinySim(t)
	ordinary := spawn(s, w, 0, false, 30_000_000)
	s.wake(ordinary, -1, false)
	s.RunUntil(20_000_000) // it has run a lot
	rx := spawn(s, w, 0, true, 10_000_000)
	rx.prio = 1e-5
	rx.vr = ordinary.vr * 10 // even with a large stored runtime
	s.raiseIRQ(s.cpus[0], rx, irqDevice)
	s.RunUntil(s.now + 20_000)
	if s.cpus[0].cur != rx {
		t.Fatalf("the priority_infinity thread did not preempt (running %v)", s.cpus[0].cur.id)
	}
	// An ordinary thread that has not run at all does not take the CPU back.
	fresh := spawn(s, w, 0, false, 1000)
	s.raiseIRQ(s.cpus[0], fresh, irqDevice)
	s.RunUntil(s.now + 5_000_000)
	if s.cpus[0].cur != rx {
		t.Errorf("an ordinary thread preempted the priority_infinity thread")
	}
}

// TestRulePullSlot: an idle CPU asks the busiest other CPU (load >= 2, the last
// of equals) to donate; a victim has one request slot, so a second idle CPU is
// refused while the first request is outstanding; the victim donates its
// migratable tail and wakes the puller unconditionally.
func TestRulePullSlot(t *testing.T) {
	s, w := tinySim(t, "machine.vcpus=4", "sched.wake_pull=true")
	// CPU 0 runs a long step with two threads queued behind it.
	run := spawn(s, w, 0, false, 50_000_000)
	q1 := spawn(s, w, 0, false, 1_000_000)
	q2 := spawn(s, w, 0, false, 1_000_000)
	for _, x := range []*thread{run, q1, q2} {
		s.wake(x, 0, false)
	}
	s.RunUntil(100_000)
	if l := s.cpus[0].load(); l != 3 {
		t.Fatalf("CPU 0 load %d, want 3", l)
	}
	// CPUs 1 and 2 enter their idle loop again (as after a halt returns empty).
	s.enterIdle(s.cpus[1])
	s.enterIdle(s.cpus[2])
	req := lastOf(t, s, DecPullRequest, -1)
	if req.CPU != 1 || req.Target != 0 {
		t.Errorf("pull request %d -> %d, want CPU 1 -> CPU 0", req.CPU, req.Target)
	}
	ref := lastOf(t, s, DecPullRefused, -1)
	if ref.CPU != 2 || ref.Target != 0 {
		t.Errorf("refusal %d -> %d, want CPU 2 refused at CPU 0 (slot taken)", ref.CPU, ref.Target)
	}
	if s.cpus[0].pullSlot != 1 {
		t.Errorf("CPU 0's slot holds %d, want 1", s.cpus[0].pullSlot)
	}
	s.RunUntil(s.now + 50_000)
	don := lastOf(t, s, DecDonate, -1)
	if don.CPU != 0 || don.Target != 1 {
		t.Errorf("donation %d -> %d, want CPU 0 -> CPU 1", don.CPU, don.Target)
	}
	moved := s.threads[don.Thread]
	if moved != q1 && moved != q2 || moved.cpu != 1 {
		t.Errorf("donated thread %d now on CPU %d, want a queued thread on CPU 1", don.Thread, moved.cpu)
	}
	if s.m.live.IPIs[IPIDonate] != 1 {
		t.Errorf("%d donate IPIs, want 1 (unconditional, even to a spinning puller)", s.m.live.IPIs[IPIDonate])
	}
	if s.cpus[0].pullSlot != -1 {
		t.Errorf("the victim's slot was not cleared")
	}
}

// TestRuleSpinWindow: the adaptive window snaps to the cap on a wake caught while
// spinning, halves after K consecutive halts without one, and never leaves
// [floor, cap].
func TestRuleSpinWindow(t *testing.T) {
	s, w := tinySim(t, "sched.idle_spin.adaptive=true", "sched.idle_spin.cap=8000",
		"sched.idle_spin.floor=1000", "sched.idle_spin.halts_before_shrink=2")
	c := s.cpus[1]
	halt := func() {
		s.RunUntil(s.now + 1_000_000) // spin out and halt
		s.raiseIRQ(c, spawn(s, w, 1, false), irqTimer)
		s.RunUntil(s.now + 200_000) // back in the idle loop, spinning
	}
	var seen []int64
	for range 9 {
		halt()
		seen = append(seen, c.spinWindow)
	}
	// The CPU halted once already at start-up, so call i ends halt i+1.
	want := []int64{4000, 4000, 2000, 2000, 1000, 1000, 1000, 1000, 1000}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("windows after each halt %v, want %v", seen, want)
		}
	}
	// A wake caught while spinning: straight back to the cap, streak reset.
	s.raiseIRQ(c, spawn(s, w, 1, false), irqTimer)
	for c.state != CPUSpinning {
		s.Step()
	}
	x := spawn(s, w, 1, false, 1000)
	s.wake(x, 0, false)
	s.RunUntil(s.now + 10_000)
	if c.spinWindow != 8000 || c.haltStreak != 0 {
		t.Errorf("after a caught wake: window %d streak %d, want 8000 and 0", c.spinWindow, c.haltStreak)
	}
}

// TestRuleBalancer: load_balance pushes the runqueue's migratable tail to the
// first least-loaded CPU, at most once a period per CPU, and never a pinned
// thread. Like OSv's, it counts the thread it preempted: a CPU running one
// CPU-bound thread pushes it to an idle CPU (runqueue.size() is 2 with the idle
// thread, and the "- 1" is meant for the balancer, which is not in it).
func TestRuleBalancer(t *testing.T) {
	s, w := tinySim(t, "machine.vcpus=4", "sched.balance_interval_ms=100")
	pinned := spawn(s, w, 0, true, 1_000_000_000)
	s.wake(pinned, 0, false)
	for range 3 {
		s.wake(spawn(s, w, 0, false, 1_000_000_000), 0, false)
	}
	s.RunUntil(99_000_000)
	if n := countOf(s, DecBalancePush); n != 0 {
		t.Fatalf("%d pushes before the first period ended", n)
	}
	s.RunUntil(150_000_000)
	// The boot CPU's balancer starts first (smp_launch), so CPU 0's push is the
	// period's first; the others may then push what it sent them on.
	var pushes []Decision
	for _, d := range s.Decisions(nil) {
		if d.Kind == DecBalancePush {
			pushes = append(pushes, d)
		}
	}
	if len(pushes) == 0 {
		t.Fatal("no push in the first period")
	}
	if d := pushes[0]; d.CPU != 0 || d.Target != 1 {
		t.Errorf("first push %d -> %d, want CPU 0 -> CPU 1 (the first of the idle CPUs)", d.CPU, d.Target)
	}
	if n := countFrom(pushes, 0); n != 1 {
		t.Errorf("CPU 0 pushed %d times in the first period, want exactly 1", n)
	}
	s.RunUntil(1_000_000_000)
	perCPU := map[[2]int64]int{} // (cpu, period) -> pushes
	for _, d := range s.Decisions(nil) {
		if d.Kind != DecBalancePush {
			continue
		}
		if s.threads[d.Thread] == pinned {
			t.Errorf("the pinned thread was pushed at %d ms", d.AtNs/1e6)
		}
		perCPU[[2]int64{int64(d.CPU), d.AtNs / 100_000_000}]++
	}
	for k, n := range perCPU {
		if n > 1 {
			t.Errorf("CPU %d pushed %d times in period %d", k[0], n, k[1])
		}
	}
	if pinned.cpu != 0 {
		t.Errorf("the pinned thread is on CPU %d", pinned.cpu)
	}
}

// TestRuleWakeSync: scx_simple's WAKE_SYNC branch of scx_select_cpu_dfl puts the
// wakee on the waker's CPU whenever some CPU is idle (old rule), or only when the
// waker CPU's local queue is empty too (new rule).
func TestRuleWakeSync(t *testing.T) {
	for _, tc := range []struct {
		rule       string
		queued     bool // the waker CPU's local queue holds a task
		onWakerCPU bool
	}{
		{"old", false, true},
		{"old", true, true},
		{"new", false, true},
		{"new", true, false},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			s, w := tinySim(t, "machine.vcpus=4", "sched.policy=scx_simple", "sched.wake_sync="+tc.rule, "machine.platform=native")
			waker := spawn(s, w, 0, false, 10_000_000)
			s.wake(waker, -1, false)
			s.RunUntil(10_000)
			if tc.queued {
				s.rqInsert(s.cpus[0], spawn(s, w, 0, false, 1000))
			}
			wakee := spawn(s, w, 3, false, 1000)
			p := s.pol.placeWake(s, wakee, 0, true)
			if got := !p.shared && p.cpu == 0; got != tc.onWakerCPU {
				t.Errorf("queued=%v: placed on CPU %d (shared %v), want on the waker's CPU = %v (%s)", tc.queued, p.cpu, p.shared, tc.onWakerCPU, p.reason)
			}
		})
	}
}

// TestRuleRunToParity: under the Linux reference a sync wakee queued behind its
// waker does not preempt it before the waker reaches its virtual deadline
// (RUN_TO_PARITY protects the slice it was picked with), and runs soon after.
func TestRuleRunToParity(t *testing.T) {
	s, w := tinySim(t, "sched.policy=linux", "machine.vcpus=1", "machine.platform=native")
	waker := spawn(s, w, 0, false, 100_000, 100_000, 100_000, 100_000, 10_000_000)
	s.wake(waker, -1, false)
	s.RunUntil(50_000)
	wakee := spawn(s, w, 0, false, 1000)
	s.wake(wakee, 0, true)
	// The waker alone on the CPU: its vruntime is the time it ran.
	protectedUntil := waker.fair.vprot
	if wakee.fair.deadline <= protectedUntil {
		t.Fatalf("the wakee's deadline %d is before the waker's protection %d: the test needs a later one", wakee.fair.deadline, protectedUntil)
	}
	s.RunUntil(protectedUntil - 10_000)
	if s.cpus[0].cur != waker {
		t.Fatalf("the wakee took the CPU before the waker's protected slice ended at %d µs", protectedUntil/1000)
	}
	s.RunUntil(protectedUntil + 10_000_000)
	if wakee.state != ThreadBlocked || len(w[wakee.id]) != 0 {
		t.Errorf("the wakee never ran after the slice")
	}
}
