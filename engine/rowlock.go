package engine

// Row locks of pgbench's tpcb-like script (docs/mechanisms.md, TPC-B row locks;
// workload.tpcb_scale).
//
// pgbench (src/bin/pgbench/pgbench.c, builtin_script "tpcb-like") draws aid, bid
// and tid independently and uniformly (\set aid random(1, naccounts * :scale),
// and the same for bid and tid), then sends seven statements, one round trip
// each: BEGIN; UPDATE pgbench_accounts WHERE aid; SELECT pgbench_accounts WHERE
// aid; UPDATE pgbench_tellers WHERE tid; UPDATE pgbench_branches WHERE bid;
// INSERT INTO pgbench_history; END. At scale s the tables hold s branch rows,
// 10*s teller rows and 100000*s account rows (nbranches, ntellers, naccounts).
//
// PostgreSQL: an UPDATE locks the row it changes (heap_update() stamps the
// tuple with its transaction id) for as long as the transaction runs; the lock
// ends with the transaction, in CommitTransaction() (ProcReleaseLocks(),
// LockReleaseAll()), after RecordTransactionCommit() has made the commit durable. A second updater of the
// row queues on the row's tuple lock (heap_acquire_tuplock(), first come first
// served), then sleeps on the holder's transaction (XactLockTableWait()); the
// holder's release wakes it (ProcLockWakeup(), through its latch), and the row
// is then the first waiter's. In the engine the committing backend wakes it with
// s.wake from its own CPU, like any wake. Waiters for several rows of one
// holder all wait on its one transaction lock, so they are woken in the order
// they began waiting.
//
// Modelled: teller and branch rows. Account rows are not: a transaction's
// account is wanted by another transaction in flight with probability below
// clients / (100000 * scale), under 0.1% for 96 clients at scale 1. Simplified
// away: the woken updater's re-check of the row (EvalPlanQual) costs nothing,
// and the next waiter's brief wake when the tuple lock passes to it (it finds
// the row taken again and sleeps on the new holder) is not modelled: it stays
// asleep. No deadlock can form: a transaction takes its teller before its
// branch, so a teller waiter holds no row, and a branch holder has taken both
// of its rows and waits for none.
//
// All state is plain slices of ints indexed by row or by client (thread.local),
// so that it can be saved and restored as it is.

const (
	// tpcbStatements is the tpcb-like script's statements per transaction.
	tpcbStatements = 7
	// The statements (0-based, in the script's order) that take a row lock:
	// UPDATE pgbench_tellers, then UPDATE pgbench_branches. UPDATE
	// pgbench_accounts (statement 1) takes one too, not modelled (see above).
	tpcbTellerStmt = 3
	tpcbBranchStmt = 4
	// tpcbTellersPerBranch is pgbench.c's ntellers (nbranches is 1).
	tpcbTellersPerBranch = 10
)

// rowLocks is the lock table of the teller and branch rows: row r < tellers is
// teller r, row tellers+b is branch b.
type rowLocks struct {
	tellers int
	// holder is, by row, the client whose transaction holds the row's lock,
	// or -1; head and tail are its first and last waiting client, or -1.
	holder, head, tail []int32
	// next is, by client, the client queued behind it for the same row, or -1.
	next []int32
	// held is, by client, two slots: the rows its transaction holds, in the
	// order taken, or -1; heldAt is when each was taken.
	held   []int32
	heldAt []int64
	// waitSince is, by client, when it began waiting for a row (while it
	// waits); waited says its current transaction has waited for one.
	waitSince []int64
	waited    []bool
}

func newRowLocks(scale, clients int) *rowLocks {
	l := &rowLocks{tellers: tpcbTellersPerBranch * scale}
	rows := l.tellers + scale
	l.holder = filled(rows)
	l.head = filled(rows)
	l.tail = filled(rows)
	l.next = filled(clients)
	l.held = filled(2 * clients)
	l.heldAt = make([]int64, 2*clients)
	l.waitSince = make([]int64, clients)
	l.waited = make([]bool, clients)
	return l
}

// filled is n int32s of -1 (no client, no row).
func filled(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = -1
	}
	return v
}

// update runs at the end of client c's statement stmt, after its CPU work. An
// UPDATE of a teller or a branch draws its row (uniformly, independently of the
// other) and takes the row's lock, or queues for it and reports false: the
// backend sleeps until a commit grants it the row (commit). Any other statement
// takes no modelled lock.
func (l *rowLocks) update(s *Sim, c, stmt int) bool {
	var row int
	switch stmt {
	case tpcbTellerStmt:
		row = s.rng.IntN(l.tellers)
	case tpcbBranchStmt:
		row = l.tellers + s.rng.IntN(len(l.holder)-l.tellers)
	default:
		return true
	}
	if l.holder[row] < 0 {
		l.take(s, int32(c), row)
		return true
	}
	w := int32(c)
	if t := l.tail[row]; t >= 0 {
		l.next[t] = w
	} else {
		l.head[row] = w
	}
	l.tail[row] = w
	l.waitSince[c] = s.now
	l.waited[c] = true
	return false
}

// take gives row to client c's transaction.
func (l *rowLocks) take(s *Sim, c int32, row int) {
	slot := 2 * int(c)
	if l.held[slot] >= 0 {
		slot++
	}
	l.held[slot] = int32(row)
	l.heldAt[slot] = s.now
	l.holder[row] = c
}

// commit releases the row locks of backend t's transaction, whose commit is
// durable: each row passes to its first waiter, and the waiters are woken from
// t's CPU in the order they began waiting. backends maps clients to threads.
func (l *rowLocks) commit(s *Sim, t *thread, backends []*thread) {
	c := t.local
	var granted [2]int32
	n := 0
	for slot := 2 * c; slot < 2*c+2; slot++ {
		row := l.held[slot]
		if row < 0 {
			continue
		}
		l.held[slot] = -1
		s.m.rowLockReleased(s, s.now-l.heldAt[slot])
		l.holder[row] = -1
		w := l.head[row]
		if w < 0 {
			continue
		}
		l.head[row] = l.next[w]
		if l.head[row] < 0 {
			l.tail[row] = -1
		}
		l.next[w] = -1
		l.take(s, w, int(row))
		granted[n] = w
		n++
	}
	if n == 2 && l.waitSince[granted[1]] < l.waitSince[granted[0]] {
		granted[0], granted[1] = granted[1], granted[0]
	}
	for _, w := range granted[:n] {
		s.m.rowLockGranted(s, s.now-l.waitSince[w])
		s.wake(backends[w], t.cpu, false)
	}
	s.m.rowLockTxn(s, l.waited[c])
	l.waited[c] = false
}
