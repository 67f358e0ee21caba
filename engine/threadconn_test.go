package engine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The thread_per_conn workload (threadconn.go): a worker thread per
// connection, started on the acceptor's CPU, that serves its connection's
// requests and exits.

// tpcSim builds a small thread_per_conn simulation (sets override knobs).
func tpcSim(t *testing.T, sets ...string) (*Sim, *threadPerConn) {
	t.Helper()
	base := []string{"machine.vcpus=4", "duration_ms=1000", "warmup_ms=0", "workload.kind=thread_per_conn",
		"workload.clients=1", "workload.connect_interval_us=0", "sched.balance_interval_ms=0",
		"workload.service.dist=fixed", "workload.service.mean_us=20", "workload.network_rtt_us=60"}
	s := knobSim(t, base, sets...)
	return s, s.wl.(*threadPerConn)
}

// TestRuleWorkerStartsOnCreatorCPU: thread::start() homes a new thread on its
// creator's CPU: every worker starts where the acceptor runs when it accepts,
// wherever the RX thread that woke the acceptor is, and follows the acceptor
// when it moves.
func TestRuleWorkerStartsOnCreatorCPU(t *testing.T) {
	s, tc := tpcSim(t, "workload.clients=2", "workload.spawn_cpu=2", "workload.waker_cpu=1", "workload.requests_per_conn=4")
	starts := map[int]int{} // acceptor's CPU -> workers started there
	var wrong []string
	s.Observe(func(e VisEvent) {
		if e.Kind != VisDecision {
			return
		}
		d := s.DecisionAt(int(e.Arg))
		if d.Kind != DecWakePlace || d.Thread < 0 {
			return
		}
		w := s.threads[d.Thread]
		// The acceptor's step end starts the worker it made: the wake is made
		// while the acceptor runs.
		if w.role != RoleWorker || s.cpus[d.CPU].cur != tc.acceptor {
			return
		}
		starts[int(d.CPU)]++
		if int(d.Target) != int(d.CPU) || !strings.Contains(d.Reason, "waker's own") {
			wrong = append(wrong, fmt.Sprintf("worker %d started on CPU %d (%s), acceptor on %d", w.id, d.Target, d.Reason, d.CPU))
		}
	})
	s.RunUntil(20_000_000)
	if starts[2] < 8 {
		t.Fatalf("%d workers started on the acceptor's CPU 2 in 20 ms, want every connection's (at least 8)", starts[2])
	}
	// Move the acceptor while it blocks in accept(), as a balancer push would
	// leave it: the workers it starts from then on start on CPU 3.
	for tc.acceptor.state != ThreadBlocked && s.Step() {
	}
	if tc.acceptor.state != ThreadBlocked {
		t.Fatalf("the acceptor never blocked in accept() (%s at %d ns)", tc.acceptor.state, s.now)
	}
	tc.acceptor.cpu = 3
	s.RunUntil(40_000_000)
	if starts[3] < 8 {
		t.Errorf("%d workers started on CPU 3 after the acceptor moved there, want at least 8", starts[3])
	}
	for _, w := range wrong {
		t.Error(w)
	}
}

// TestThreadPerConnLifecycle: one client's connections, each a SYN, an ACK with
// the first request and then one packet per request for the RX thread; a
// worker per connection that answers requests_per_conn requests and exits, its
// slot reused by the next connection's worker; every request at least a
// round trip and its service long.
func TestThreadPerConnLifecycle(t *testing.T) {
	for _, tc := range []struct {
		desc     string
		requests int
	}{
		{"one request per connection", 1},
		{"five requests per connection", 5},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, w := tpcSim(t, fmt.Sprintf("workload.requests_per_conn=%d", tc.requests), "duration_ms=50")
			rx := w.nic.queues[0].thr
			rxRuns, workerStarts := 0, 0
			s.Observe(func(e VisEvent) {
				if e.Kind == VisRun && int(e.Thread) == rx.id {
					rxRuns++
				}
			})
			threadsAtStart := len(s.threads)
			var prev int64
			for !s.Done() {
				s.Step()
				if n := w.nextFlow; int64(n) != prev {
					prev = int64(n)
					workerStarts++
				}
			}
			r := s.Results()
			conns := w.nextFlow - 1 // the last connection may be under way
			if r.Completed < int64(conns*tc.requests) || r.Completed > int64((conns+1)*tc.requests) {
				t.Errorf("%d requests completed over %d connections of %d requests", r.Completed, conns, tc.requests)
			}
			// Packets: SYN, ACK+first request, and each later request; each
			// poll takes one (rx_batch 1), so the RX thread runs at least once
			// for each of a connection's 1+requests packets.
			if want := conns * (1 + tc.requests); rxRuns < want {
				t.Errorf("RX thread ran %d times over %d connections, want at least %d", rxRuns, conns, want)
			}
			if len(s.threads) != threadsAtStart+1 {
				t.Errorf("%d threads after %d connections, want the one worker slot reused (%d)", len(s.threads), conns, threadsAtStart+1)
			}
			floor := float64(60+20) / 1e3 // ms: a round trip and the service
			if r.LatencyUs.P50/1e3 < floor {
				t.Errorf("median request latency %.1f µs, below a round trip plus the service", r.LatencyUs.P50)
			}
			// The first request of a connection waits for the handshake too (one
			// round trip and a half more, the accept and the worker's start).
			if tc.requests == 1 && r.LatencyUs.P50 < 2.5*60+20 {
				t.Errorf("one-request connections take %.1f µs, want at least the handshake's extra 1.5 round trips", r.LatencyUs.P50)
			}
		})
	}
}

// TestThreadPerConnWakesFromItsQueue: with multiqueue receive and RSS, a
// worker is woken by the RX thread of its connection's queue, on that queue's
// vCPU, and the acceptor by whichever queue's thread completed the handshake;
// neither moves the worker, which stays where the acceptor started it.
func TestThreadPerConnWakesFromItsQueue(t *testing.T) {
	s, tc := tpcSim(t, "machine.vcpus=8", "workload.clients=16", "workload.rx_queues=8", "workload.rss=true",
		"workload.spawn_cpu=5", "duration_ms=30")
	queuesWaking := map[int]bool{}
	var bad []string
	s.Observe(func(e VisEvent) {
		if e.Kind != VisDecision {
			return
		}
		d := s.DecisionAt(int(e.Arg))
		if d.Kind != DecWakePlace || d.Thread < 0 {
			return
		}
		w, cur := s.threads[d.Thread], s.cpus[d.CPU].cur
		if w.role != RoleWorker || cur == nil || tc.nic.queueOf(cur) < 0 {
			return // not a request's wake (a start by the acceptor has its own test)
		}
		q := tc.nic.queueOf(cur)
		queuesWaking[q] = true
		if want := tc.nic.steer(tc.flow[w.local]); q != want || int(d.CPU) != q {
			bad = append(bad, fmt.Sprintf("worker of flow %d woken by queue %d on CPU %d, want queue %d's thread on its CPU", tc.flow[w.local], q, d.CPU, want))
		}
		if int(d.Target) != 5 {
			bad = append(bad, fmt.Sprintf("worker woken onto CPU %d, want its home, the acceptor's CPU 5", d.Target))
		}
	})
	s.RunUntil(s.end)
	if len(queuesWaking) < 4 {
		t.Errorf("workers woken from %d queues, want the flows spread over most of the 8", len(queuesWaking))
	}
	for i, b := range bad {
		if i < 5 {
			t.Error(b)
		}
	}
}

// TestReuseThreadIsNewThread: an exited worker's slot, reused, is the thread
// newThread would have made, but for its id and the CPU time its slot ran.
func TestReuseThreadIsNewThread(t *testing.T) {
	s, _ := tpcSim(t)
	old := s.newThread("old", RoleWaker, 1, true)
	old.vr, old.runNs, old.prio, old.lastRanNs, old.lastCPU, old.local = 5, 123, 0.5, 99, 3, 7
	old.state, old.hasStep, old.remainingNs, old.wokenAtNs, old.requeuedAtNs = ThreadBlocked, true, 4, 8, 9
	s.reuseThread(old, "worker", RoleWorker, 2)
	fresh := s.newThread("worker", RoleWorker, 2, false)
	want := *fresh
	want.id, want.runNs, want.fair.owner = old.id, 123, old
	if !reflect.DeepEqual(*old, want) {
		t.Errorf("reused slot %+v, want %+v", *old, want)
	}
}

// TestThreadPerConnKnobsDecode: the workload's knobs decode strictly and name
// the field they reject; each applies where the schema says.
func TestThreadPerConnKnobsDecode(t *testing.T) {
	for _, tc := range []struct {
		desc, set, field string
	}{
		{"no requests per connection", "workload.requests_per_conn=0", "workload.requests_per_conn"},
		{"a fraction of a request", "workload.requests_per_conn=1.5", "workload.requests_per_conn"},
		{"no clients", "workload.clients=0", "workload.clients"},
		{"no queues", "workload.rx_queues=0", "workload.rx_queues"},
		{"too many queues", "workload.rx_queues=257", "workload.rx_queues"},
		{"RSS not a boolean", "workload.rss=maybe", "workload.rss"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := DecodeScenario([]byte(`{"version":1,"workload":{"kind":"thread_per_conn","clients":4}}`), tc.set)
			if err == nil || !strings.HasPrefix(err.Error(), tc.field+":") {
				t.Errorf("%s: error %v, want one naming %s", tc.set, err, tc.field)
			}
		})
	}
	applies := func(path string, sets ...string) bool {
		sc, err := DecodeScenario([]byte(`{"version":1}`), sets...)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := LookupKnob(path)
		return k.Applies(sc)
	}
	for _, tc := range []struct {
		desc, path string
		sets       []string
		want       bool
	}{
		{"requests per connection: thread_per_conn", "workload.requests_per_conn", []string{"workload.kind=thread_per_conn"}, true},
		{"requests per connection: not request_server", "workload.requests_per_conn", nil, false},
		{"RX queues on thread_per_conn", "workload.rx_queues", []string{"workload.kind=thread_per_conn"}, true},
		{"RX queues not on commit", "workload.rx_queues", []string{"workload.kind=commit", "workload.commit_device_us=100"}, false},
		{"RSS needs queues", "workload.rss", nil, false},
		{"RSS with queues", "workload.rss", []string{"workload.rx_queues=4"}, true},
		{"waker vCPU with one queue", "workload.waker_cpu", nil, true},
		{"no waker vCPU: the queues' threads are pinned", "workload.waker_cpu", []string{"workload.rx_queues=4"}, false},
		{"waker vCPU of commit whatever the queues", "workload.waker_cpu", []string{"workload.kind=commit", "workload.commit_device_us=100", "workload.rx_queues=4"}, true},
		{"no statements on thread_per_conn", "workload.statements_per_txn", []string{"workload.kind=thread_per_conn"}, false},
		{"no commit on thread_per_conn", "workload.commit_device_us", []string{"workload.kind=thread_per_conn"}, false},
		{"service variation on thread_per_conn", "workload.service.cv", []string{"workload.kind=thread_per_conn", "workload.service.dist=lognormal"}, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := applies(tc.path, tc.sets...); got != tc.want {
				t.Errorf("%s applies %v with %v, want %v", tc.path, got, tc.sets, tc.want)
			}
		})
	}
}

// TestPublishedRelativeDecodes: a relative published point needs an arm and
// values above 0, and says which field is wrong.
func TestPublishedRelativeDecodes(t *testing.T) {
	const arms = `"arms":[{"name":"a","set":{}},{"name":"b","set":{}}]`
	for _, tc := range []struct {
		desc, pub, field string
	}{
		{"fine", `{"arm":"b","relative":true,"values":{"throughput_per_s":1.6}}`, ""},
		{"no arm", `{"relative":true,"values":{"throughput_per_s":1}}`, "published.0.relative"},
		{"zero", `{"arm":"a","relative":true,"values":{"throughput_per_s":0}}`, "published.0.values.throughput_per_s"},
		{"not a boolean", `{"arm":"a","relative":"yes","values":{"throughput_per_s":1}}`, "published.0.relative"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := DecodeScenario([]byte(`{"version":1,` + arms + `,"published":[` + tc.pub + `]}`))
			switch {
			case tc.field == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.field != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.field)):
				t.Errorf("error %v, want one naming %s", err, tc.field)
			}
		})
	}
}
