package engine

import (
	"math"
	"strconv"
	"testing"
)

// syncPairsSim builds a sync_pairs run under scx_simple on bare metal.
func syncPairsSim(t *testing.T, sets ...string) *Sim {
	t.Helper()
	base := []string{"workload.kind=sync_pairs", "workload.clients=0", "sched.policy=scx_simple", "machine.platform=native",
		"sched.idle_spin.cap=0", "sched.idle_spin.floor=0", "warmup_ms=0"}
	s := knobSim(t, base, sets...)
	return s
}

// TestSyncPairsProgram: the tasks the knobs ask for, all workers; each pair has
// exactly one task runnable or running at every moment (one message in flight);
// a round trip is two messages, each the message cost plus a switch.
func TestSyncPairsProgram(t *testing.T) {
	for _, tc := range []struct {
		desc            string
		spinners, pairs int
	}{
		{"one pair alone on 2 CPUs", 0, 1},
		{"two pairs and three spinners on 2 CPUs", 3, 2},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s := syncPairsSim(t, "machine.vcpus=2", "duration_ms=200",
				"workload.sync_pairs.spinners="+strconv.Itoa(tc.spinners), "workload.sync_pairs.pairs="+strconv.Itoa(tc.pairs))
			wl := s.wl.(*syncPairs)
			if got, want := len(wl.tasks), tc.spinners+2*tc.pairs; got != want {
				t.Fatalf("%d tasks, want %d", got, want)
			}
			var pairFirst []*thread
			for _, th := range s.threads {
				if th.role == RoleBalancer || th.role == RoleKernel {
					continue
				}
				if th.role != RoleWorker {
					t.Fatalf("task %d (%s) has role %s, want worker", th.id, th.name, th.role)
				}
				if k := wl.tasks[th.local]; k.first {
					pairFirst = append(pairFirst, th)
				}
			}
			for s.NowNs() < 200_000_000 && s.StepN(1000) > 0 {
				for _, p := range pairFirst {
					q := wl.tasks[p.local].partner
					if live := btoi(p.state != ThreadBlocked) + btoi(q.state != ThreadBlocked); live != 1 {
						t.Fatalf("at %d ns pair %d/%d has %d tasks not blocked (%s, %s), want 1", s.NowNs(), p.id, q.id, live, p.state, q.state)
					}
				}
			}
			r := s.Results()
			if r.Completed == 0 {
				t.Fatal("no round trip completed")
			}
			if tc.spinners == 0 {
				// Alone, a pair's round trip is two messages and two switches:
				// the proposed and new rules both keep the pair on the waker's CPU
				// while the other CPU is idle, so nothing else costs.
				costs := s.sc.Machine.Costs
				per := 2 * float64(s.sc.Workload.SyncPairs.MessageNs+costs.ContextSwitchNs)
				if want := 1e9 / per; math.Abs(r.ThroughputPerS-want) > 0.01*want {
					t.Errorf("%.0f round trips/s, want %.0f (one every %.0f ns)", r.ThroughputPerS, want, per)
				}
			}
		})
	}
}

// TestSyncPairsSaturated: the mechanism the WAKE_SYNC review was about, on 4
// CPUs with 8 spinners and 2 pairs (12 tasks that could each use more than a
// third of a CPU). Under the proposed rule a pair's wakee goes straight onto its
// waker's local queue, so each pair keeps one CPU for itself and its tasks get
// half a CPU each while the spinners share the rest; under the merged rule the
// wakee joins the shared queue in vtime order and every task gets about a third.
func TestSyncPairsSaturated(t *testing.T) {
	for _, tc := range []struct {
		rule         string
		pairShare    float64 // CPU per ping-pong task, of the measured window
		spinnerShare float64
	}{
		{"proposed", 0.5, 0.25},
		{"new", 1.0 / 3, 1.0 / 3},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			s := syncPairsSim(t, "machine.vcpus=4", "duration_ms=1500", "sched.wake_sync="+tc.rule)
			win := s.AddWindow(500, 1500)
			s.RunUntil(500_000_000)
			start := make([]float64, len(s.threads))
			for i, th := range s.threads {
				start[i] = runNsAt(s, th, s.now)
			}
			s.Run()
			wl := s.wl.(*syncPairs)
			for i, th := range s.threads {
				if th.role != RoleWorker {
					continue
				}
				share := (runNsAt(s, th, s.now) - start[i]) / 1e9
				want := tc.pairShare
				if wl.tasks[th.local].spinner {
					want = tc.spinnerShare
				}
				if math.Abs(share-want) > 0.03 {
					t.Errorf("%s %d got %.3f of a CPU, want about %.3f", th.name, th.id, share, want)
				}
			}
			// Jain's index of shares 1/2 x4 and 1/4 x8 is 16/18.
			want := map[string]float64{"proposed": 16.0 / 18, "new": 1}[tc.rule]
			if got := s.ResultsWindow(win).TaskFairness; math.Abs(got-want) > 0.01 {
				t.Errorf("task_fairness %.4f, want about %.4f", got, want)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
