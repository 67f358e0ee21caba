package engine

// The request server's parts of a checkpoint (checkpoint_state.go): its NIC,
// its row locks, and the thread-per-connection server.

import (
	"fmt"
	"math"
)

// The NIC's queue count, RSS and hash salt follow from the scenario (newNIC);
// each queue's poll thread, pending packets, batch and vector are kept.
func (x *nic) ckSave(w *ckWriter) {
	for i := range x.queues {
		q := &x.queues[i]
		w.thr(q.thr)
		q.pending.ckSave(w)
		w.ints(q.batch)
		w.n(q.vec.cpu)
	}
}

// ckLoad reads what ckSave wrote into an empty nic; packets are the
// workload's clients, below clients.
func (x *nic) ckLoad(r *ckReader, s *Sim, clients int) {
	wl := &s.sc.Workload
	n := nicQueues(&s.sc)
	x.rss = wl.RSS && n > 1
	x.salt = nicSalt(s.sc.Seed)
	x.queues = make([]rxQueue, n)
	for i := range x.queues {
		r.in("RX queue", i)
		q := &x.queues[i]
		q.thr = r.mustThr()
		q.pending.ckLoad(r, clients)
		q.batch = r.ints(wl.RxBatch, 0, int64(clients)-1)
		q.vec.cpu = r.n(len(s.cpus))
		if r.err == nil && (q.thr.role != RoleWaker || q.thr.local != i || q.thr.pinned != (wl.RxQueues > 1)) {
			r.failf("thread %d is not the poll thread of RX queue %d", q.thr.id, i)
		}
	}
}

// packets lists every packet the queues hold or are processing.
func (x *nic) packets() []int {
	var out []int
	for i := range x.queues {
		out = append(out, x.queues[i].pending.items()...)
		out = append(out, x.queues[i].batch...)
	}
	return out
}

// The row-lock table is kept as what it must be rebuilt from: by client, the
// rows its transaction holds (in the order taken) and since when, whether it
// has waited, and, by held row, the clients queued for it in order with when
// each began waiting. The table's holder, head, tail and next follow.
func (l *rowLocks) ckSave(w *ckWriter) {
	for c := range l.waited {
		for slot := 2 * c; slot < 2*c+2; slot++ {
			w.ref(int(l.held[slot]))
			if l.held[slot] >= 0 {
				w.at(l.heldAt[slot])
			}
		}
		w.bool(l.waited[c])
	}
	queued := 0
	for _, h := range l.head {
		if h >= 0 {
			queued++
		}
	}
	w.n(queued)
	for row, h := range l.head {
		if h < 0 {
			continue
		}
		w.n(row)
		var q []int
		for c := h; c >= 0; c = l.next[c] {
			q = append(q, int(c))
		}
		w.ints(q)
		for _, c := range q {
			w.at(l.waitSince[c])
		}
	}
}

// ckLoad reads what ckSave wrote into l, a newRowLocks of the scenario's
// scale and clients; waiting says whether a client's backend is asleep on a
// row lock, which every queued client must be.
func (l *rowLocks) ckLoad(r *ckReader, waiting func(c int) bool) {
	r.in("row locks", -1)
	rows, clients := len(l.holder), len(l.waited)
	for c := range clients {
		for slot := 2 * c; slot < 2*c+2; slot++ {
			row := r.ref(rows)
			if r.err != nil {
				return
			}
			switch {
			case row >= 0 && l.holder[row] >= 0:
				r.failf("row %d is held by clients %d and %d", row, l.holder[row], c)
			case row >= 0 && slot%2 == 1 && l.held[slot-1] < 0:
				r.failf("client %d holds a second row and no first", c)
			case row >= 0 && slot%2 == 1 && (l.held[slot-1] < int32(l.tellers)) == (row < l.tellers):
				r.failf("client %d holds two teller rows or two branch rows", c)
			case row >= 0:
				l.held[slot], l.holder[row] = int32(row), int32(c)
				l.heldAt[slot] = r.past()
			}
		}
		l.waited[c] = r.bool()
	}
	queued := r.count(2, rows)
	queuedOnce := make([]bool, clients)
	prevRow := -1
	for range queued {
		row := r.n(rows)
		q := r.ints(clients, 0, int64(clients)-1)
		if r.err != nil {
			return
		}
		switch {
		case row <= prevRow:
			r.failf("the queued rows are out of order at row %d", row)
			return
		case len(q) == 0 || l.holder[row] < 0:
			r.failf("row %d has a queue but no waiter or no holder", row)
			return
		}
		prevRow = row
		l.head[row], l.tail[row] = int32(q[0]), int32(q[len(q)-1])
		for i, c := range q {
			if queuedOnce[c] || !waiting(c) || !l.waited[c] {
				r.failf("client %d is queued for row %d, and is queued elsewhere, not asleep on a row lock, or not marked as having waited", c, row)
				return
			}
			queuedOnce[c] = true
			if i+1 < len(q) {
				l.next[c] = int32(q[i+1])
			}
			l.waitSince[c] = r.past()
		}
	}
}

func (tc *threadPerConn) ckSave(w *ckWriter) {
	tc.nic.ckSave(w)
	w.thr(tc.acceptor)
	w.iv(int64(tc.accepting))
	tc.acceptq.ckSave(w)
	for c := range tc.phase {
		w.byte(byte(tc.phase[c]))
		w.n(tc.flow[c])
		w.at(tc.sentAt[c])
		w.n(tc.asked[c])
		w.n(tc.served[c])
		w.thr(tc.workers[c])
		w.bool(tc.serving[c])
	}
	w.threads(tc.exited)
	w.n(tc.nextFlow)
}

func (tc *threadPerConn) ckLoad(r *ckReader, s *Sim) {
	wl := &s.sc.Workload
	n := wl.Clients
	tc.nic = &nic{}
	tc.nic.ckLoad(r, s, n)
	r.in("connections", -1)
	tc.acceptor = r.mustThr()
	tc.accepting = int(r.intIn(-1, int64(n)-1))
	tc.acceptq.ckLoad(r, n)
	tc.phase, tc.flow, tc.sentAt = make([]connPhase, n), make([]int, n), make([]int64, n)
	tc.asked, tc.served = make([]int, n), make([]int, n)
	tc.workers, tc.serving = make([]*thread, n), make([]bool, n)
	for c := range n {
		if tc.phase[c] = connPhase(r.byte()); tc.phase[c] > connEstablished && r.err == nil {
			r.failf("client %d's connection is in phase %d, of 3", c, tc.phase[c])
		}
		tc.flow[c] = r.n(math.MaxInt32)
		tc.sentAt[c] = r.past()
		tc.asked[c] = r.n(wl.RequestsPerConn + 1)
		tc.served[c] = r.n(tc.asked[c] + 1)
		tc.workers[c] = r.thr()
		tc.serving[c] = r.bool()
	}
	tc.exited = r.threads(len(s.threads))
	tc.nextFlow = r.n(math.MaxInt32)
	if r.err != nil {
		return
	}
	if tc.acceptor.role != RoleSpawner {
		r.failf("the acceptor %d is a %s", tc.acceptor.id, tc.acceptor.role)
		return
	}
	exited := map[*thread]bool{}
	for _, t := range tc.exited {
		if t.role != RoleWorker || exited[t] || t.local >= 0 && t.local < n && tc.workers[t.local] == t {
			r.failf("thread %d is listed as exited twice, is not a worker, or still serves a connection", t.id)
			return
		}
		exited[t] = true
	}
	for c, t := range tc.workers {
		switch {
		case tc.flow[c] >= tc.nextFlow && tc.asked[c] > 0:
			r.failf("client %d's connection is flow %d, not yet made (next %d)", c, tc.flow[c], tc.nextFlow)
		case t != nil && (t.role != RoleWorker || t.local != c):
			r.failf("client %d's worker, thread %d, is not a worker serving it", c, t.id)
		case t == nil && tc.serving[c]:
			r.failf("client %d has no worker, and one serving it", c)
		}
	}
	ownThreads(r, s, func(t *thread) bool {
		return tc.nic.queueOf(t) >= 0 || t == tc.acceptor || exited[t] ||
			t.local >= 0 && t.local < n && tc.workers[t.local] == t
	})
	workloadEvents(r, s, func(p payload) string {
		switch {
		case p.kind == evDevice:
			return "the thread-per-connection server has no device"
		case p.arg < 0 || int(p.arg) >= n:
			return fmt.Sprintf("client %d does not exist", p.arg)
		}
		return ""
	})
}
