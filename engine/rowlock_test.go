package engine

import (
	"testing"
)

// Row locks of pgbench's tpcb-like script (rowlock.go; docs/mechanisms.md, TPC-B
// row locks), on small machines at scale 1, where one branch row makes a second
// updater certain.

// lockEvent is one change of the lock table seen by lockProbe.
type lockEvent struct {
	at     int64
	kind   lockEventKind
	client int   // whose row it is (the taker, releaser or waiter)
	stmt   int   // that client's statement in progress (requestServer.stmt)
	row    int32 // the row
	// by is the client whose backend's program made the change (a grant is
	// made by the holder's commit), byPC its program counter before the step's
	// end ran, and byCPU its CPU.
	by    int
	byPC  backendPC
	byCPU int
	// wakeFrom is the CPU of the wake decision made for the granted waiter in
	// the same step end, or -1 if none was made.
	wakeFrom int
}

type lockEventKind uint8

const (
	lockTook lockEventKind = iota
	lockReleased
	lockWaits
)

// lockProbe wraps the request server and records every change of the lock
// table, comparing it before and after each thread's program runs.
type lockProbe struct {
	*requestServer
	held   []int32 // the lock table's held slots after the last program ran
	events []lockEvent
}

func (p *lockProbe) next(s *Sim, t *thread) (int64, bool) {
	by, pc := -1, backendPC(255)
	if t.role == RoleWorker {
		by, pc = t.local, p.pc[t.local]
	}
	decBefore := s.dec.written
	d, blocks := p.requestServer.next(s, t)
	l := p.locks
	// Releases first: a commit releases its rows, then grants them.
	for _, took := range []bool{false, true} {
		for slot, row := range l.held {
			was := p.held[slot]
			if row == was || (row >= 0) != took {
				continue
			}
			e := lockEvent{at: s.now, client: slot / 2, stmt: p.stmt[slot/2], by: by, byPC: pc, byCPU: t.cpu, wakeFrom: -1}
			if took {
				e.kind, e.row = lockTook, row
				if by != e.client {
					e.wakeFrom = wakeDecisionFrom(s, decBefore, p.backends[e.client].id)
				}
			} else {
				e.kind, e.row = lockReleased, was
			}
			p.events = append(p.events, e)
			p.held[slot] = row
		}
	}
	if by >= 0 && pc == pcServing && p.pc[by] == pcRowWait {
		row := int32(-1)
		for r, tail := range l.tail {
			if tail == int32(by) {
				row = int32(r)
			}
		}
		p.events = append(p.events, lockEvent{at: s.now, kind: lockWaits, client: by, stmt: p.stmt[by], row: row,
			by: by, byPC: pc, byCPU: t.cpu, wakeFrom: -1})
	}
	return d, blocks
}

// wakeDecisionFrom is the waker's CPU of the wake decision for thread id made
// since the decision ring had written decBefore records, or -1.
func wakeDecisionFrom(s *Sim, decBefore uint64, id int) int {
	r := &s.dec
	for i := decBefore; i < r.written; i++ {
		if d := r.buf[i%uint64(len(r.buf))]; d.Kind == DecWakePlace && int(d.Thread) == id {
			return int(d.CPU)
		}
	}
	return -1
}

// tpcbSim builds a small TPC-B request server with row locks (sets override
// knobs) and runs it with a lockProbe to its horizon.
func tpcbSim(t *testing.T, sets ...string) (*Sim, *lockProbe) {
	t.Helper()
	base := []string{"machine.vcpus=4", "duration_ms=200", "warmup_ms=0", "workload.kind=request_server",
		"workload.clients=3", "workload.connect_interval_us=0", "workload.start_together=true",
		"workload.statements_per_txn=7", "workload.network_rtt_us=60", "workload.commit_device_us=600",
		"workload.tpcb_scale=1"}
	s := knobSim(t, base, sets...)
	r := s.wl.(*requestServer)
	p := &lockProbe{requestServer: r, held: filled(len(r.locks.held))}
	s.wl = p
	s.Run()
	return s, p
}

func countKind(evs []lockEvent, k lockEventKind) int {
	n := 0
	for _, e := range evs {
		if e.kind == k {
			n++
		}
	}
	return n
}

// TestRuleRowLockTakenAtItsUpdate: a transaction takes its teller's row lock at
// the tpcb-like script's UPDATE pgbench_tellers (statement 3, 0-based) and its
// branch's at UPDATE pgbench_branches (statement 4), in that order, and releases
// both only at its commit.
func TestRuleRowLockTakenAtItsUpdate(t *testing.T) {
	for _, tc := range []struct {
		desc string
		sets []string
	}{
		{"one client, nothing to wait for", []string{"workload.clients=1"}},
		{"three clients on two vCPUs", []string{"machine.vcpus=2"}},
		{"three clients on four vCPUs", nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, p := tpcbSim(t, tc.sets...)
			tellers := p.locks.tellers
			// Each client's transactions, as the sequence of its lock events.
			next := map[int]int{} // client -> index in the expected cycle
			cycle := []struct {
				kind lockEventKind
				stmt int
				rows func(row int32) bool
			}{
				{lockTook, tpcbTellerStmt, func(r int32) bool { return r >= 0 && int(r) < tellers }},
				{lockTook, tpcbBranchStmt, func(r int32) bool { return int(r) >= tellers }},
				{lockReleased, tpcbStatements - 1, func(r int32) bool { return r >= 0 && int(r) < tellers }},
				{lockReleased, tpcbStatements - 1, func(r int32) bool { return int(r) >= tellers }},
			}
			txns := 0
			for _, e := range p.events {
				if e.kind == lockWaits {
					continue
				}
				want := cycle[next[e.client]]
				if e.kind != want.kind || e.stmt != want.stmt || !want.rows(e.row) {
					t.Fatalf("at %d ns client %d: event %d at statement %d on row %d, want event %d at statement %d",
						e.at, e.client, e.kind, e.stmt, e.row, want.kind, want.stmt)
				}
				if e.kind == lockReleased && (e.by != e.client || e.byPC != pcUnlock) {
					t.Fatalf("at %d ns client %d's row %d was released by client %d at pc %d, want by itself at its commit",
						e.at, e.client, e.row, e.by, e.byPC)
				}
				next[e.client] = (next[e.client] + 1) % len(cycle)
				if next[e.client] == 0 {
					txns++
				}
			}
			if txns < 50 {
				t.Errorf("only %d transactions released their locks in 200 ms", txns)
			}
		})
	}
}

// TestRuleRowLockSecondUpdaterSleeps: an UPDATE of a row another transaction
// holds blocks its backend at the end of the statement's work, queued for the
// row (heap_acquire_tuplock, XactLockTableWait); it answers no statement until
// the row is granted to it.
func TestRuleRowLockSecondUpdaterSleeps(t *testing.T) {
	for _, tc := range []struct {
		desc string
		sets []string
	}{
		{"two clients, one branch", []string{"workload.clients=2"}},
		{"three clients, one branch", nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, p := tpcbSim(t, tc.sets...)
			if countKind(p.events, lockWaits) == 0 {
				t.Fatal("no updater ever waited, with one branch row for every transaction")
			}
			// Replay the table: at each wait, the row is held by another
			// client's transaction, and the waiter is blocked until its grant.
			holder := map[int32]int{}
			waiting := map[int]int32{} // waiter -> row
			for _, e := range p.events {
				switch e.kind {
				case lockWaits:
					h, ok := holder[e.row]
					if !ok || h == e.client {
						t.Fatalf("at %d ns client %d waits for row %d, held by %v (ok %v)", e.at, e.client, e.row, h, ok)
					}
					if e.stmt != tpcbTellerStmt && e.stmt != tpcbBranchStmt {
						t.Fatalf("client %d waits at statement %d, not an UPDATE of a teller or branch", e.client, e.stmt)
					}
					waiting[e.client] = e.row
				case lockTook:
					if _, ok := holder[e.row]; ok {
						t.Fatalf("at %d ns row %d taken by client %d while held by client %d", e.at, e.row, e.client, holder[e.row])
					}
					if w, ok := waiting[e.client]; ok {
						if w != e.row {
							t.Fatalf("client %d waited for row %d, granted row %d", e.client, w, e.row)
						}
						delete(waiting, e.client)
					}
					holder[e.row] = e.client
				case lockReleased:
					delete(holder, e.row)
				}
			}
			// A waiter still waiting at the end is blocked, its statement unanswered.
			for c := range waiting {
				b := p.backends[c]
				if b.state != ThreadBlocked || p.pc[c] != pcRowWait {
					t.Errorf("client %d waits for a row but its backend is %s at pc %d", c, b.state, p.pc[c])
				}
			}
			if s.Results().RowLocks.WaitsPerS == 0 {
				t.Error("the results count no waits")
			}
		})
	}
}

// TestRuleRowLockWokenByHoldersCommit: a waiter is granted the row by the
// holder's commit, once the commit is durable (the holder's step after the log
// commit woke it), and woken through the ordinary wake path from the holder's
// CPU, in that same step.
func TestRuleRowLockWokenByHoldersCommit(t *testing.T) {
	for _, tc := range []struct {
		desc string
		sets []string
	}{
		{"two clients on two vCPUs", []string{"workload.clients=2", "machine.vcpus=2"}},
		{"three clients on four vCPUs", nil},
		{"three clients, commits woken all at once", []string{"workload.broadcast=fanout"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, p := tpcbSim(t, tc.sets...)
			grants := 0
			for _, e := range p.events {
				if e.kind != lockTook || e.by == e.client {
					continue
				}
				grants++
				if e.byPC != pcUnlock {
					t.Fatalf("at %d ns client %d was granted row %d by client %d at pc %d, not at its commit", e.at, e.client, e.row, e.by, e.byPC)
				}
				if e.wakeFrom != e.byCPU {
					t.Fatalf("at %d ns client %d, granted row %d by client %d on CPU %d, was woken from CPU %d", e.at, e.client, e.row, e.by, e.byCPU, e.wakeFrom)
				}
			}
			if grants == 0 {
				t.Fatal("no row was ever granted to a waiter")
			}
		})
	}
}

// TestRuleRowLockNoneHeldPastCommit: when a transaction's commit step ends it
// holds no row, and at any instant every held row belongs to a transaction past
// its UPDATE and not yet committed, and the table agrees with itself.
func TestRuleRowLockNoneHeldPastCommit(t *testing.T) {
	for _, tc := range []struct {
		desc string
		sets []string
	}{
		{"three clients, scale 1", nil},
		{"three clients, scale 2", []string{"workload.tpcb_scale=2"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc, err := DecodeScenario([]byte(`{"version":1}`), append([]string{"machine.vcpus=4", "duration_ms=100", "warmup_ms=0",
				"workload.clients=3", "workload.connect_interval_us=0", "workload.statements_per_txn=7",
				"workload.commit_device_us=600", "workload.tpcb_scale=1"}, tc.sets...)...)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSim(sc)
			if err != nil {
				t.Fatal(err)
			}
			r := s.wl.(*requestServer)
			l := r.locks
			checks := 0
			prevPC := make([]backendPC, len(r.pc))
			committed := make([]bool, len(r.pc)) // its commit step has run, its next transaction not begun
			for s.Step() {
				for c := range r.pc {
					if prevPC[c] == pcUnlock && r.pc[c] != pcUnlock {
						committed[c] = true
					}
					if r.stmt[c] < tpcbTellerStmt {
						committed[c] = false
					}
					prevPC[c] = r.pc[c]
					n := 0
					for _, row := range l.held[2*c : 2*c+2] {
						if row < 0 {
							continue
						}
						n++
						if int(l.holder[row]) != c {
							t.Fatalf("at %d ns client %d lists row %d, whose holder is %d", s.now, c, row, l.holder[row])
						}
					}
					if n > 0 {
						checks++
					}
					if n > 0 && (committed[c] || r.stmt[c] < tpcbTellerStmt) {
						t.Fatalf("at %d ns client %d holds %d rows at statement %d (committed %v)", s.now, c, n, r.stmt[c], committed[c])
					}
				}
				for row, h := range l.holder {
					if h >= 0 && l.held[2*h] != int32(row) && l.held[2*h+1] != int32(row) {
						t.Fatalf("row %d's holder %d does not list it", row, h)
					}
					if h < 0 && l.head[row] >= 0 {
						t.Fatalf("row %d is free with client %d waiting", row, l.head[row])
					}
				}
			}
			if checks == 0 {
				t.Fatal("no row was ever held")
			}
		})
	}
}
