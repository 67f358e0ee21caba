package engine

import (
	"slices"
	"testing"
)

// Rules that a read of OSv's source corrected (docs/mechanisms.md, Baseline and
// Idle-CPU pull), and pull request 1464's balancer, each on a 2-4 CPU machine.

// srcRequestServer builds a small request_server simulation (sets override knobs).
func srcRequestServer(t *testing.T, sets ...string) (*Sim, *requestServer) {
	t.Helper()
	base := []string{"machine.vcpus=4", "duration_ms=1000", "warmup_ms=0", "workload.kind=request_server",
		"workload.clients=1", "workload.connect_interval_us=0", "sched.balance_interval_ms=0"}
	sc, err := DecodeScenario([]byte(`{"version":1}`), append(base, sets...)...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
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
			}{{r.rx, 2}, {r.spawner, 1}, {r.log.thr, tc.wantLog}} {
				if x.thr.pinned || x.thr.cpu != x.want {
					t.Errorf("%s: pinned %v on CPU %d, want unpinned on CPU %d", x.thr.name, x.thr.pinned, x.thr.cpu, x.want)
				}
			}
			// Each is the migratable tail of a loaded CPU in turn: one balancer
			// pass pushes it to an idle CPU.
			for _, x := range []*thread{r.rx, r.spawner, r.log.thr} {
				c := s.cpus[x.cpu]
				hog := s.newThread("hog", RoleWorker, c.id, true)
				c.cur = hog
				x.vr = 1e18 // the highest runtime: the runqueue's tail
				s.rqInsert(c, x)
				s.rqInsert(c, s.newThread("pinned", RoleKernel, c.id, true))
				from := c.id
				s.loadBalance(c)
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
	rxWakes := func() []Decision { return wakesOf(s, r.rx.id) }
	for len(rxWakes()) < 1 {
		s.Step()
	}
	first := rxWakes()[0]
	if first.CPU != 0 || first.Target != 2 {
		t.Fatalf("first NIC interrupt on CPU %d woke the RX thread on CPU %d, want CPU 0 -> CPU 2", first.CPU, first.Target)
	}
	if r.nicVec.cpu != 2 {
		t.Errorf("vector points at CPU %d after the first interrupt, want 2", r.nicVec.cpu)
	}
	for len(rxWakes()) < 2 {
		s.Step()
	}
	if d := rxWakes()[1]; d.CPU != 2 || d.Target != 2 {
		t.Errorf("second interrupt on CPU %d woke the RX thread on CPU %d, want both 2", d.CPU, d.Target)
	}
	// The RX thread moves to CPU 3 while it sleeps between packets (as a
	// balancer push or a donation would leave it, had it been queued).
	for r.rx.state != ThreadBlocked || r.rxq.size > 0 {
		s.Step()
	}
	r.rx.cpu = 3
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
