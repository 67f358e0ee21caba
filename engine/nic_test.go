package engine

import (
	"fmt"
	"math"
	"testing"
)

// Multiqueue receive (OSv pull requests 1463 and 1470; nic.go): how many queues
// the driver uses, where their RX threads run, and where the device puts a flow.

// TestRuleMultiqueueQueueCount: net::net() uses min(advertised pairs, vCPUs,
// the MSI-X budget's pairs); the single-queue driver's RX thread is not pinned
// and starts on waker_cpu, the multiqueue driver pins queue i's to vCPU i.
func TestRuleMultiqueueQueueCount(t *testing.T) {
	for _, tc := range []struct {
		desc         string
		vcpus, adv   int
		wantN        int
		wantPinned   bool
		wantFirstCPU int
	}{
		{"one queue: master's driver, RX thread on waker_cpu, not pinned", 8, 1, 1, false, 3},
		{"four advertised on 8 vCPUs", 8, 4, 4, true, 0},
		{"more advertised than vCPUs", 8, 16, 8, true, 0},
		{"a single vCPU: the driver's one pair, pinned to vCPU 0", 1, 4, 1, true, 0},
		{"the MSI-X budget: 192 vectors, two a pair", 128, 128, 96, true, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			waker := min(3, tc.vcpus-1)
			s, r := srcRequestServer(t, fmt.Sprintf("machine.vcpus=%d", tc.vcpus), fmt.Sprintf("workload.rx_queues=%d", tc.adv),
				fmt.Sprintf("workload.waker_cpu=%d", waker), "workload.spawn_cpu=0")
			if n := len(r.nic.queues); n != tc.wantN {
				t.Fatalf("%d queues, want %d", n, tc.wantN)
			}
			for i, q := range r.nic.queues {
				want := i
				if !tc.wantPinned {
					want = tc.wantFirstCPU
				}
				if q.thr.pinned != tc.wantPinned || q.thr.cpu != want || q.thr.prio != s.sc.Workload.RxPriority {
					t.Errorf("queue %d: RX thread pinned %v on CPU %d (priority %g), want pinned %v on CPU %d with the RX priority",
						i, q.thr.pinned, q.thr.cpu, q.thr.prio, tc.wantPinned, want)
				}
				if q.vec.cpu != 0 {
					t.Errorf("queue %d: vector starts at CPU %d, want 0 (setup_entry)", i, q.vec.cpu)
				}
			}
		})
	}
}

// TestRuleRSSSteering: without RSS every packet lands on queue 0, so only queue
// 0's RX thread, pinned to vCPU 0, ever runs; with it each connection keeps one
// queue, the queues' threads run on their own vCPUs, and each queue's vector
// has followed its thread there.
func TestRuleRSSSteering(t *testing.T) {
	for _, tc := range []struct {
		desc string
		rss  bool
	}{
		{"no RSS: every packet on queue 0", false},
		{"RSS: flows hashed over the queues", true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, r := srcRequestServer(t, "machine.vcpus=8", "workload.clients=32", "workload.rx_queues=4",
				fmt.Sprintf("workload.rss=%v", tc.rss), "duration_ms=200")
			perQueue := make([]int, 4)
			for c := range 32 {
				perQueue[r.nic.steer(c)]++
			}
			ran := make([]bool, 4)
			s.Observe(func(e VisEvent) {
				if e.Kind != VisRun {
					return
				}
				if q := r.nic.queueOf(s.threads[e.Thread]); q >= 0 {
					ran[q] = true
					if int(e.CPU) != q {
						t.Errorf("queue %d's RX thread ran on CPU %d", q, e.CPU)
					}
				}
			})
			s.RunUntil(s.end)
			if s.m.live.Completed == 0 {
				t.Fatal("no request completed")
			}
			for q := range 4 {
				want := q == 0 || tc.rss
				if ran[q] != want || (perQueue[q] > 0) != want {
					t.Errorf("queue %d: %d of 32 flows, its RX thread ran %v; want flows and runs %v", q, perQueue[q], ran[q], want)
				}
				if want && r.nic.queues[q].vec.cpu != q {
					t.Errorf("queue %d's vector points at CPU %d, want its RX thread's, %d", q, r.nic.queues[q].vec.cpu, q)
				}
			}
		})
	}
}

// TestRSSHash: the hash stands for Toeplitz over a 5-tuple: a fixed function
// of the flow and the run's seed, which the round-robin table maps onto the
// queues in about equal shares, and which another seed maps differently.
func TestRSSHash(t *testing.T) {
	const flows = 20000
	steer := func(seed uint64, n int) []int {
		x := &nic{rss: true, queues: make([]rxQueue, n), salt: seed*0x9e37_79b9_7f4a_7c15 + 0x632b_e59b_d9b4_e019}
		out := make([]int, flows)
		for f := range out {
			out[f] = x.steer(f)
			if want := int(rssHash(x.salt, f)&(rssTableLen-1)) % n; out[f] != want {
				t.Fatalf("flow %d on queue %d, want the table's entry %d", f, out[f], want)
			}
		}
		return out
	}
	for _, n := range []int{2, 3, 4, 16} {
		t.Run(fmt.Sprintf("%d queues", n), func(t *testing.T) {
			a, again, other := steer(1, n), steer(1, n), steer(2, n)
			share := make([]int, n)
			moved := 0
			for f := range a {
				if a[f] != again[f] {
					t.Fatalf("flow %d: queue %d, then %d for the same seed", f, a[f], again[f])
				}
				share[a[f]]++
				if a[f] != other[f] {
					moved++
				}
			}
			// 128 entries round robin: queue q owns ceil or floor of 128/n of them.
			for q, got := range share {
				entries := rssTableLen / n
				if q < rssTableLen%n {
					entries++
				}
				// A good hash puts each flow on a uniform entry: the count is
				// binomial; allow four standard deviations.
				p := float64(entries) / rssTableLen
				want := flows * p
				if d, sd := float64(got)-want, math.Sqrt(want*(1-p)); math.Abs(d) > 4*sd {
					t.Errorf("queue %d holds %d flows, want %.0f (its %d of 128 entries) within %.0f", q, got, want, entries, 4*sd)
				}
			}
			if moved < flows*(n-1)/n/2 {
				t.Errorf("seed 2 moves %d of %d flows to another queue, want about %d", moved, flows, flows*(n-1)/n)
			}
		})
	}
}
