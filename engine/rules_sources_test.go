package engine

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Rules that a read of OSv's source corrected (docs/mechanisms.md, Baseline and
// Idle-CPU pull), and pull request 1464's balancer, each on a 2-4 CPU machine.

// srcHooked is a scripted workload whose threads may also act at the start of a
// step (hooks[id] runs once, before the thread's next step is taken).
type srcHooked struct {
	script
	hooks map[int]func(s *Sim)
}

func (h srcHooked) next(s *Sim, t *thread) (int64, bool) {
	if f := h.hooks[t.id]; f != nil {
		delete(h.hooks, t.id)
		f(s)
	}
	return h.script.next(s, t)
}

// srcRequestServer builds a small request_server simulation (sets override knobs).
func srcRequestServer(t *testing.T, sets ...string) (*Sim, *requestServer) {
	t.Helper()
	base := []string{"machine.vcpus=4", "duration_ms=1000", "warmup_ms=0", "workload.kind=request_server",
		"workload.clients=1", "workload.connect_interval_us=0", "sched.balance_interval_ms=0"}
	s := knobSim(t, base, sets...)
	return s, s.wl.(*requestServer)
}

// wakesOf lists the wake decisions about thread id, oldest first.
func wakesOf(s *Sim, id int) []Decision {
	var out []Decision
	for _, d := range s.Decisions(nil) {
		if d.Kind == DecWakePlace && int(d.Thread) == id {
			out = append(out, d)
		}
	}
	return out
}

// TestRuleWakersUnpinned: virtio-net's RX thread (the rxq constructor only names
// it), the application's main thread that spawns the backends (core/app.cc) and
// the ZFS taskq thread that commits (kthread_add) are not pinned: each starts on
// its knob's vCPU, and load_balance may move it like any queued thread.
func TestRuleWakersUnpinned(t *testing.T) {
	for _, tc := range []struct {
		desc      string
		commitCPU string
		wantLog   int
	}{
		{"log-commit thread on its own vCPU", "3", 3},
		{"log-commit thread on the spawner's vCPU", "-1", 1},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, r := srcRequestServer(t, "workload.waker_cpu=2", "workload.spawn_cpu=1",
				"workload.commit_device_us=100", "workload.commit_cpu="+tc.commitCPU)
			for _, x := range []struct {
				thr  *thread
				want int
			}{{r.nic.queues[0].thr, 2}, {r.spawner, 1}, {r.log.thr, tc.wantLog}} {
				if x.thr.pinned || x.thr.cpu != x.want {
					t.Errorf("%s: pinned %v on CPU %d, want unpinned on CPU %d", x.thr.name, x.thr.pinned, x.thr.cpu, x.want)
				}
			}
			// Each is the migratable tail of a loaded CPU in turn: one balancer
			// pass pushes it to an idle CPU.
			for _, x := range []*thread{r.nic.queues[0].thr, r.spawner, r.log.thr} {
				c := s.cpus[x.cpu]
				hog := s.newThread("hog", RoleWorker, c.id, true)
				c.cur = hog
				x.vr = 1e18 // the highest runtime: the runqueue's tail
				s.rqInsert(c, x)
				s.rqInsert(c, s.newThread("pinned", RoleKernel, c.id, true))
				from := c.id
				s.loadBalance(c, &kernelThread{kind: kernelBalancer})
				if x.cpu == from || x.state != ThreadIncoming {
					t.Errorf("%s was not pushed off CPU %d (now %s on CPU %d)", x.name, from, x.state, x.cpu)
				}
				c.cur = nil
				for _, q := range slices.Clone(c.rq) {
					s.rqRemove(c, q)
				}
			}
		})
	}
}

// TestRuleMSIXFollowsRX: the NIC's interrupt lands where its MSI-X vector
// points: vCPU 0 at first (setup_entry), then, because each handler
// (set_affinity_and_wake) points the vector at the RX thread's CPU before waking
// it, the CPU the RX thread was on at the previous interrupt.
func TestRuleMSIXFollowsRX(t *testing.T) {
	s, r := srcRequestServer(t, "workload.waker_cpu=2", "workload.spawn_cpu=1", "workload.network_rtt_us=1000")
	rxWakes := func() []Decision { return wakesOf(s, r.nic.queues[0].thr.id) }
	for len(rxWakes()) < 1 {
		s.Step()
	}
	first := rxWakes()[0]
	if first.CPU != 0 || first.Target != 2 {
		t.Fatalf("first NIC interrupt on CPU %d woke the RX thread on CPU %d, want CPU 0 -> CPU 2", first.CPU, first.Target)
	}
	if r.nic.queues[0].vec.cpu != 2 {
		t.Errorf("vector points at CPU %d after the first interrupt, want 2", r.nic.queues[0].vec.cpu)
	}
	for len(rxWakes()) < 2 {
		s.Step()
	}
	if d := rxWakes()[1]; d.CPU != 2 || d.Target != 2 {
		t.Errorf("second interrupt on CPU %d woke the RX thread on CPU %d, want both 2", d.CPU, d.Target)
	}
	// The RX thread moves to CPU 3 while it sleeps between packets (as a
	// balancer push or a donation would leave it, had it been queued).
	for r.nic.queues[0].thr.state != ThreadBlocked || r.nic.queues[0].pending.size > 0 {
		s.Step()
	}
	r.nic.queues[0].thr.cpu = 3
	for len(rxWakes()) < 3 {
		s.Step()
	}
	if d := rxWakes()[2]; d.CPU != 2 || d.Target != 3 {
		t.Errorf("after the move: interrupt on CPU %d woke the RX thread on CPU %d, want CPU 2 -> CPU 3", d.CPU, d.Target)
	}
	for len(rxWakes()) < 4 {
		s.Step()
	}
	if d := rxWakes()[3]; d.CPU != 3 || d.Target != 3 {
		t.Errorf("next interrupt on CPU %d woke the RX thread on CPU %d, want the vector to have followed it to CPU 3", d.CPU, d.Target)
	}
}

// TestRuleSameCPUWake: a wake on the waker's own CPU goes through that CPU's
// incoming list (thread::wake_impl), sends no IPI and sets need_reschedule; the
// reschedule that follows runs it. While it waits there, a wake from another
// CPU finds a wake already pending and sends no IPI either.
func TestRuleSameCPUWake(t *testing.T) {
	t.Run("in an interrupt handler, and a remote wake behind it", func(t *testing.T) {
		s, w := tinySim(t)
		c := s.cpus[0]
		s.RunUntil(1_000_000) // both CPUs halted
		s.raiseIRQ(c, spawn(s, w, 0, false), irqTimer)
		for c.state != CPUIRQ {
			s.Step()
		}
		b := spawn(s, w, 0, false, 1000)
		s.wake(b, 0, false) // the handler wakes b, homed here
		if b.state != ThreadIncoming || !c.needResched || len(c.rq) != 0 {
			t.Fatalf("own-CPU wakee is %s (need_reschedule %v, runqueue %d), want it on the incoming list", b.state, c.needResched, len(c.rq))
		}
		if d := lastOf(t, s, DecWakePlace, b.id); !strings.Contains(d.Reason, "need_reschedule set") {
			t.Errorf("wake reason %q", d.Reason)
		}
		ipis := s.m.live.IPIs[IPIWakeup]
		x := spawn(s, w, 0, false, 1000)
		s.wake(x, 1, false) // CPU 1 wakes x, homed on CPU 0, meanwhile
		// Had b gone straight into the runqueue, CPU 0 (in its handler, load 1,
		// nothing pending) would have been sent an IPI.
		if d := lastOf(t, s, DecIPISuppressed, x.id); !strings.Contains(d.Reason, "already pending") {
			t.Errorf("remote wake behind the own-CPU wake: %q, want it suppressed as already pending", d.Reason)
		}
		s.RunUntil(s.now + 100_000)
		if s.m.live.IPIs[IPIWakeup] != ipis {
			t.Errorf("%d wakeup IPIs sent, want none", s.m.live.IPIs[IPIWakeup]-ipis)
		}
		for _, th := range []*thread{b, x} {
			if th.state != ThreadBlocked || len(w[th.id]) != 0 {
				t.Errorf("thread %d did not run its step (state %s)", th.id, th.state)
			}
		}
	})
	t.Run("a second own-CPU wake finds the first pending", func(t *testing.T) {
		s, w := tinySim(t)
		c := s.cpus[0]
		s.raiseIRQ(c, spawn(s, w, 0, false), irqTimer)
		for c.state != CPUIRQ {
			s.Step()
		}
		a, b := spawn(s, w, 0, false, 1000), spawn(s, w, 0, false, 1000)
		s.wake(a, 0, false)
		s.wake(b, 0, false)
		if d := lastOf(t, s, DecWakePlace, b.id); !strings.Contains(d.Reason, "need_reschedule not set") {
			t.Errorf("second wake reason %q, want it behind the first (need_reschedule not set again)", d.Reason)
		}
		if len(c.incoming) != 2 {
			t.Errorf("incoming holds %d, want 2", len(c.incoming))
		}
	})
	t.Run("the waker's program at switch-in: the wakee preempts at once", func(t *testing.T) {
		s, w := tinySim(t)
		h := srcHooked{script: w, hooks: map[int]func(*Sim){}}
		s.wl = h
		waker := spawn(s, w, 0, false, 50_000_000)
		waker.vr = 1e9 // it has run much more than the hysteresis
		wakee := spawn(s, w, 0, false, 1000)
		h.hooks[waker.id] = func(s *Sim) { s.wake(wakee, 0, false) }
		s.wake(waker, -1, false)
		s.RunUntil(100_000)
		if wakee.state != ThreadBlocked || len(w[wakee.id]) != 0 {
			t.Fatalf("the wakee has not run 100 µs after its waker's switch-in (state %s)", wakee.state)
		}
		if d := lastOf(t, s, DecPreempt, wakee.id); d.AtNs > 10_000 {
			t.Errorf("the wakee preempted at %d ns, want within the waker's switch-in", d.AtNs)
		}
	})
}

// TestRuleBalancerStart: the boot CPU's load_balance thread starts in
// smp_launch (time 0), each other CPU's in ap_bringup once it is up:
// sched.ap_bringup_us after its start IPIs, which smp_launch sends one CPU after
// another, three ICR writes (ipi_send_ns each) apart. Each then re-arms from the
// end of its own pass, so the offsets persist.
func TestRuleBalancerStart(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		bringup int64 // µs
	}{
		{"OSv's boot chart bring-up", 360},
		{"a slower bring-up", 5000},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, _ := tinySim(t, "machine.vcpus=4", "sched.balance_interval_ms=100",
				"sched.ap_bringup_us="+strconv.FormatInt(tc.bringup, 10), "machine.costs.ipi_send_ns=1000")
			// When each balancer's pass begins: its first and second switch-ins.
			runs := map[int][]int64{}
			for s.now < 250_000_000 {
				s.Step()
				for _, c := range s.cpus {
					if c.cur != nil && c.cur.role == RoleBalancer && c.dispatchNs == s.now {
						if r := runs[c.id]; len(r) == 0 || r[len(r)-1] != s.now {
							runs[c.id] = append(r, s.now)
						}
					}
				}
			}
			// All CPUs are halted when their timers fire, so each pass begins
			// the same wake latency after its timer.
			lat := runs[0][0] - 100_000_000
			if lat < 0 || lat > 100_000 {
				t.Fatalf("CPU 0's first pass at %d ns, want just after 100 ms", runs[0][0])
			}
			for id := 1; id < 4; id++ {
				want := 100_000_000 + tc.bringup*1000 + int64(id)*3000 + lat
				if got := runs[id][0]; got != want {
					t.Errorf("CPU %d's first pass at %d ns, want %d (bring-up %d µs + %d x 3 ICR writes)", id, got, want, tc.bringup, id)
				}
			}
			for id := range 4 {
				if len(runs[id]) < 2 {
					t.Fatalf("CPU %d ran its balancer %d times by 250 ms", id, len(runs[id]))
				}
				if d := runs[id][1] - runs[id][0]; d < 100_000_000 || d > 100_000_000+100_000 {
					t.Errorf("CPU %d's second pass %d ns after its first, want the period from the end of the first", id, d)
				}
			}
		})
	}
}

// TestRuleWakeAllOrder: condvar::wake_all hands the mutex on in arrival order,
// except that after each waiter it takes every later waiter homed on the same
// CPU (core/condvar.cc: "queue all the threads that will likely wake on the same
// CPU one after another").
func TestRuleWakeAllOrder(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		homes []int // waiters' home CPUs in arrival order
		want  []int // hand-off order, by arrival index
	}{
		{"one CPU: arrival order", []int{2, 2, 2}, []int{0, 1, 2}},
		{"interleaved CPUs are grouped", []int{1, 0, 1, 2, 0, 1}, []int{0, 2, 5, 1, 4, 3}},
		{"each CPU once: arrival order", []int{3, 0, 2, 1}, []int{0, 1, 2, 3}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, w := tinySim(t, "machine.vcpus=4")
			l := newCommitLog(s, 0)
			var arrived []*thread
			for _, h := range tc.homes {
				arrived = append(arrived, spawn(s, w, h, false))
			}
			for round := range 2 { // the scratch buffers rotate: order twice
				l.batch = append(l.batch[:0], arrived...)
				l.wakeAllOrder()
				var got []int
				for _, x := range l.batch {
					got = append(got, slices.Index(arrived, x))
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("round %d: hand-off order %v, want %v", round, got, tc.want)
				}
			}
			// The log-commit thread's program builds its wake chain in that order.
			l.sizeNext(len(s.threads))
			l.batch = l.batch[:0]
			l.waiting = append(l.waiting[:0], arrived...)
			l.phase = commitLook
			for range 3 { // take the batch, submit the write, wake the chain
				l.committerNext(s, l.thr)
			}
			chain := []int{slices.Index(arrived, s.threads[lastOf(t, s, DecWakePlace, -1).Thread])}
			for id := l.next[arrived[chain[0]].id]; id >= 0; id = l.next[id] {
				chain = append(chain, slices.Index(arrived, s.threads[id]))
			}
			if !slices.Equal(chain, tc.want) {
				t.Errorf("wake chain %v, want %v", chain, tc.want)
			}
		})
	}
}

// TestRuleDonateNeedsTwo: donate_to_puller gives nothing when the victim's
// runqueue holds fewer than 2 (pull request 1472): a victim that was busy when
// the idle CPU asked but runs its last runnable thread when the pull IPI
// arrives keeps it.
func TestRuleDonateNeedsTwo(t *testing.T) {
	s, w := tinySim(t, "sched.wake_pull=true", "machine.platform=kvm")
	c := s.cpus[0]
	first := spawn(s, w, 0, false, 5000)
	last := spawn(s, w, 0, false, 10_000_000)
	s.wake(first, -1, false)
	s.wake(last, -1, false)
	for c.cur != first {
		s.Step()
	}
	if l := c.load(); l != 2 {
		t.Fatalf("CPU 0 load %d, want 2", l)
	}
	// CPU 1 asks while CPU 0 still has a thread queued; the first thread's step
	// ends before the pull IPI (2 µs under KVM) arrives.
	s.RunUntil(c.stepEndNs - 500)
	s.enterIdle(s.cpus[1])
	lastOf(t, s, DecPullRequest, -1)
	s.RunUntil(s.now + 50_000)
	d := lastOf(t, s, DecDonateNone, -1)
	if d.CPU != 0 || !strings.Contains(d.Reason, "fewer than 2") {
		t.Errorf("victim decision on CPU %d: %q, want CPU 0 keeping its last thread", d.CPU, d.Reason)
	}
	if last.cpu != 0 || s.m.live.IPIs[IPIDonate] != 0 {
		t.Errorf("the last thread is on CPU %d after %d donations, want it kept on CPU 0", last.cpu, s.m.live.IPIs[IPIDonate])
	}
}

// TestRuleBalancerDrain: a drain pass (pull request 1464) keeps pushing the
// migratable tail to the least loaded CPU by effective load (load plus what the
// pass sent it), first of equals, until that CPU's effective load is not below
// this CPU's load minus one, and moves at most 8 threads per CPU in one pass; a
// stock pass pushes one.
func TestRuleBalancerDrain(t *testing.T) {
	for _, tc := range []struct {
		desc     string
		balancer string
		queued   int
		targets  []int32 // CPU 0's pushes in its first pass, in order
	}{
		{"stock: one push", "stock", 6, []int32{1}},
		// CPU 0's load is 8 while its balancer runs (the hog it preempted, 6
		// queued, the idle thread); 6 pushes bring it to 2, where CPU 1's
		// effective 2 is not below 1. Without the pending counts all six would
		// go to CPU 1, whose load does not count its incoming list.
		{"drain: spread by effective load", "drain", 6, []int32{1, 2, 3, 1, 2, 3}},
		{"drain: the per-pass bound", "drain", 100, nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, w := tinySim(t, "machine.vcpus=4", "sched.balance_interval_ms=10", "sched.balancer="+tc.balancer)
			// Every thread has run before (far more than the hysteresis), so the
			// balancer, which has not, runs as soon as its timer fires.
			hog := spawn(s, w, 0, true, 1_000_000_000)
			hog.vr = 1e12
			s.wake(hog, -1, false)
			for i := range tc.queued {
				x := spawn(s, w, 0, false, 1_000_000_000)
				x.vr = 2e12 + float64(i)*1e9
				s.wake(x, -1, false)
			}
			s.RunUntil(10_200_000) // CPU 0's first pass (10 ms), not yet the others'
			var got []int32
			for _, d := range s.Decisions(nil) {
				if d.Kind == DecBalancePush && d.CPU == 0 {
					got = append(got, d.Target)
				}
			}
			if tc.targets == nil {
				if len(got) != 8*4 {
					t.Errorf("%d pushes in one pass, want the bound 8 x 4 CPUs", len(got))
				}
				return
			}
			if !slices.Equal(got, tc.targets) {
				t.Errorf("pushes to %v, want %v", got, tc.targets)
			}
			if hog.cpu != 0 {
				t.Errorf("the pinned thread moved to CPU %d", hog.cpu)
			}
		})
	}
}

// TestBalancerKnobsDecodeStrictly: the balancer's new knobs reject values
// outside their schema, naming the field.
func TestBalancerKnobsDecodeStrictly(t *testing.T) {
	for _, tc := range []struct{ desc, set, field string }{
		{"unknown pass", "sched.balancer=fast", "sched.balancer"},
		{"negative bring-up", "sched.ap_bringup_us=-1", "sched.ap_bringup_us"},
		{"bring-up beyond the range", "sched.ap_bringup_us=100001", "sched.ap_bringup_us"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := DecodeScenario([]byte(`{"version":1}`), tc.set)
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("%s: error %v, want one naming %s", tc.set, err, tc.field)
			}
		})
	}
	if _, err := DecodeScenario([]byte(`{"version":1,"sched":{"balancer":"Drain"}}`)); err == nil || !strings.Contains(err.Error(), "sched.balancer") {
		t.Errorf("a scenario file with balancer \"Drain\": error %v, want one naming sched.balancer", err)
	}
}
