package engine

import "math"

// The thread_per_conn workload (docs/mechanisms.md, A thread-per-connection
// server): the server OSv pull request 1464 measured, "a server that forks or
// spawns a worker per connection". An acceptor thread (the application's main
// thread, blocked in accept(); not pinned, started on workload.spawn_cpu)
// accepts each connection and starts a worker thread for it, which
// thread::start() homes on the acceptor's CPU (the creator's). The worker
// serves the connection's requests one at a time, woken for each by the RX
// thread of the queue its connection is steered to (nic.go), and exits after
// the last. Nothing but the balancer, idle pull or a donation moves a worker:
// thread::wake() re-wakes it where it last ran.
//
// Clients are closed loops (workload.clients of them, the concurrency): a
// client connects, sends workload.requests_per_conn requests on the
// connection, each as soon as the previous answer arrives, then closes it and
// connects again at once. A connection's packets, each RX work
// (workload.rx_cost_ns) on its queue:
//
//   - the SYN, half a round trip after the client connects; the RX thread
//     answers it (the SYN-ACK);
//   - the client's ACK with its first request, a round trip later: the RX
//     thread completes the connection, queues it for accept() and wakes the
//     acceptor; the request waits in the socket, so the new worker reads it
//     without blocking;
//   - each later request, half a round trip after the previous answer left:
//     the RX thread wakes the worker.
//
// The close's packets wake nobody and are not modelled. A request's latency is
// from when the client sent it (the first: from the connect) to its answer's
// arrival, so the first includes the handshake, the accept and the worker's
// start; throughput counts requests.
//
// A thread that exits leaves the thread table for good in OSv; the engine
// gives its slot, id included, to the next worker it starts (reuseThread), so
// the table stays the size of the concurrency however many connections a run
// makes.

// connPhase is where a client's connection is.
type connPhase uint8

const (
	connSYN         connPhase = iota // the SYN is on its way or waiting for the RX thread
	connHandshake                    // the SYN was answered: the ACK and first request are on their way
	connEstablished                  // accepted or waiting to be: its requests wake its worker
)

// threadPerConn is the thread_per_conn workload. Per-client state is indexed
// by client; a worker's thread.local is its client.
type threadPerConn struct {
	nic      *nic
	acceptor *thread
	// accepting is the client whose connection the acceptor's step under way
	// accepts (and starts a worker for), or -1.
	accepting int
	acceptq   ring // established connections waiting for accept()

	phase   []connPhase
	flow    []int     // the connection's flow number (its RSS hash input)
	sentAt  []int64   // when the client sent its current request (or connected)
	asked   []int     // requests the client has sent on this connection
	served  []int     // requests the worker has answered on this connection
	workers []*thread // the connection's worker, or nil before accept and after exit
	serving []bool    // the worker's step under way serves a request
	// exited holds the slots of workers that have exited, for reuse.
	exited   []*thread
	nextFlow int
}

func newThreadPerConn(s *Sim) *threadPerConn {
	w := &s.sc.Workload
	n := w.Clients
	tc := &threadPerConn{accepting: -1, phase: make([]connPhase, n), flow: make([]int, n), sentAt: make([]int64, n),
		asked: make([]int, n), served: make([]int, n), workers: make([]*thread, n), serving: make([]bool, n)}
	tc.acceptq.init(n)
	tc.nic = newNIC(s, n)
	tc.acceptor = s.newThread("acceptor", RoleSpawner, max(w.SpawnCPU, 0), false)
	for c := range n {
		s.at(int64(c)*w.ConnectIntervalUs*1000, evConnect, 0, c, 0)
	}
	return tc
}

// connect opens client c's next connection: its SYN reaches the NIC half a
// round trip later.
func (tc *threadPerConn) connect(s *Sim, c int) {
	tc.phase[c] = connSYN
	tc.flow[c] = tc.nextFlow
	tc.nextFlow++
	tc.asked[c], tc.served[c] = 1, 0
	tc.sentAt[c] = s.now
	s.at(s.now+s.sc.Workload.NetworkRTTUs*500, evPacket, 0, c, 0)
}

func (tc *threadPerConn) event(s *Sim, e event) {
	w := &s.sc.Workload
	c := int(e.arg)
	switch e.kind {
	case evConnect:
		tc.connect(s, c)
	case evPacket:
		tc.nic.receive(s, tc.flow[c], c)
	case evResponse:
		s.m.complete(s, s.now-tc.sentAt[c])
		if tc.asked[c] == w.RequestsPerConn {
			tc.connect(s, c) // closes the connection and opens the next
			return
		}
		tc.asked[c]++
		tc.sentAt[c] = s.now
		s.at(s.now+w.NetworkRTTUs*500, evPacket, 0, c, 0)
	}
}

func (tc *threadPerConn) next(s *Sim, t *thread) (int64, bool) {
	w := &s.sc.Workload
	if q := tc.nic.queueOf(t); q >= 0 {
		rq := &tc.nic.queues[q]
		for _, c := range rq.batch {
			tc.received(s, t, c)
		}
		return rq.poll(w)
	}
	if t == tc.acceptor {
		if c := tc.accepting; c >= 0 {
			// accept() returned and the worker is made: thread::start homes it
			// on its creator's CPU and wakes it there.
			tc.workers[c] = tc.startWorker(s, c, t.cpu)
			s.wake(tc.workers[c], t.cpu, false)
			tc.accepting = -1
		}
		c, ok := tc.acceptq.pop()
		if !ok {
			return 0, true // blocks in accept()
		}
		tc.accepting = c
		return w.SpawnUs * 1000, false
	}
	// A worker, serving client c.
	c := t.local
	if !tc.serving[c] {
		// Woken by its request (or started with the first one waiting).
		tc.serving[c] = true
		return s.drawDist(w.Service), false
	}
	tc.serving[c] = false
	tc.served[c]++
	s.at(s.now+w.NetworkRTTUs*500, evResponse, 0, c, 0)
	if tc.served[c] == w.RequestsPerConn {
		// The last answer: close and exit.
		tc.workers[c] = nil
		tc.exited = append(tc.exited, t)
	}
	return 0, true // waits for the next request (or has exited)
}

// received is the RX thread t's handling of client c's packet, at the end of
// the poll that processed it.
func (tc *threadPerConn) received(s *Sim, t *thread, c int) {
	switch tc.phase[c] {
	case connSYN:
		// The SYN-ACK goes out; the ACK, with the first request, comes back a
		// round trip later.
		tc.phase[c] = connHandshake
		s.at(s.now+s.sc.Workload.NetworkRTTUs*1000, evPacket, 0, c, 0)
	case connHandshake:
		tc.phase[c] = connEstablished
		tc.acceptq.push(c)
		s.wake(tc.acceptor, t.cpu, false)
	default:
		s.wake(tc.workers[c], t.cpu, false)
	}
}

// startWorker makes client c's worker thread homed on cpuID, in an exited
// worker's slot if there is one.
func (tc *threadPerConn) startWorker(s *Sim, c, cpuID int) *thread {
	var t *thread
	if n := len(tc.exited); n > 0 {
		t = tc.exited[n-1]
		tc.exited[n-1] = nil
		tc.exited = tc.exited[:n-1]
		s.reuseThread(t, "worker", RoleWorker, cpuID)
	} else {
		t = s.newThread("worker", RoleWorker, cpuID, false)
	}
	t.local = c
	return t
}

// minLastRanNs is a new thread's lastRanNs: it has never run, so it is never
// cache-hot.
const minLastRanNs = math.MinInt64 / 2

// reuseThread makes t, a thread that has exited (blocked, and never to be
// woken), a new unpinned thread homed on cpuID, as newThread makes one: its
// runtime starts at 0 (OSv's thread_runtime starts a thread's _Rtt at 0). It
// keeps its id and the CPU time its slot has run, which the metrics' per-thread
// totals (task_fairness) read as a running count.
func (s *Sim) reuseThread(t *thread, name string, role ThreadRole, cpuID int) {
	if t.fair.delayed {
		// The task that exited leaves its queue for good (a dead task is
		// never delayed: DEQUEUE_SPECIAL).
		s.finishDelayedTask(t)
	}
	*t = thread{id: t.id, name: name, role: role, cpu: cpuID, prio: 1, local: -1, runNs: t.runNs,
		state: ThreadBlocked, wokenAtNs: -1, requeuedAtNs: -1, lastRanNs: minLastRanNs, lastCPU: cpuID,
		fair: s.newFairEntity()}
	t.fair.owner = t
}
