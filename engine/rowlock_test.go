package engine

import (
	"math"
	"os"
	"path/filepath"
	"strings"
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

// TestRuleRowLockDrawsUniform: pgbench draws tid and bid independently and
// uniformly (random(1, ntellers * :scale), random(1, nbranches * :scale)): every
// teller and branch row is drawn about equally often, and a transaction's teller
// belongs to its branch no more often than chance (1/scale).
func TestRuleRowLockDrawsUniform(t *testing.T) {
	const scale, n = 3, 30000
	s, err := NewSim(smallScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	l := newRowLocks(scale, 1)
	probe := s.newThread("probe", RoleWorker, 0, false)
	probe.local = 0
	tellerN := make([]int, l.tellers)
	branchN := make([]int, scale)
	same := 0
	for range n {
		if !l.update(s, 0, tpcbTellerStmt) || !l.update(s, 0, tpcbBranchStmt) {
			t.Fatal("a lone client waited")
		}
		tid, bid := int(l.held[0]), int(l.held[1])-l.tellers
		tellerN[tid]++
		branchN[bid]++
		if tid/tpcbTellersPerBranch == bid {
			same++
		}
		l.commit(s, probe, []*thread{probe})
	}
	// Pearson's chi-square against the uniform, below its 99.9% point: 58.3
	// for 29 degrees of freedom, 13.8 for 2.
	for _, tc := range []struct {
		desc   string
		counts []int
		limit  float64
	}{{"tellers", tellerN, 58.3}, {"branches", branchN, 13.8}} {
		t.Run(tc.desc, func(t *testing.T) {
			exp := float64(n) / float64(len(tc.counts))
			chi := 0.0
			for _, c := range tc.counts {
				chi += (float64(c) - exp) * (float64(c) - exp) / exp
			}
			if chi > tc.limit {
				t.Errorf("chi-square %.1f over %d rows, above %.1f: not uniform (%v)", chi, len(tc.counts), tc.limit, tc.counts)
			}
		})
	}
	if f := float64(same) / n; math.Abs(f-1.0/scale) > 0.02 {
		t.Errorf("the teller belongs to the branch in %.3f of transactions, want about %.3f (independent draws)", f, 1.0/scale)
	}
}

// TestRowLockResults: the results count what the lock table did: the waits
// granted and their mean length, and the share of committed transactions that
// waited.
func TestRowLockResults(t *testing.T) {
	for _, tc := range []struct {
		desc string
		sets []string
	}{
		{"two clients", []string{"workload.clients=2"}},
		{"three clients, scale 2", []string{"workload.tpcb_scale=2"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, p := tpcbSim(t, tc.sets...)
			var waits, waitNs, commits, waitedCommits int
			waitStart := map[int]int64{}
			waited := map[int]bool{}
			for _, e := range p.events {
				switch {
				case e.kind == lockWaits:
					waitStart[e.client] = e.at
					waited[e.client] = true
				case e.kind == lockTook && e.by != e.client:
					waits++
					waitNs += int(e.at - waitStart[e.client])
				case e.kind == lockReleased && int(e.row) >= p.locks.tellers: // one per transaction
					commits++
					if waited[e.client] {
						waitedCommits++
					}
					waited[e.client] = false
				}
			}
			rl := s.Results().RowLocks
			if rl.TPCBScale != s.sc.Workload.TPCBScale {
				t.Fatalf("row_locks.tpcb_scale %d, want the run's %d", rl.TPCBScale, s.sc.Workload.TPCBScale)
			}
			sec := float64(s.now) / 1e9
			for _, x := range []struct {
				name      string
				got, want float64
			}{
				{"waits_per_s", rl.WaitsPerS, float64(waits) / sec},
				{"wait_mean_us", rl.WaitMeanUs, float64(waitNs) / float64(waits) / 1e3},
				{"waited_txn_frac", rl.WaitedTxnFrac, float64(waitedCommits) / float64(commits)},
			} {
				if math.Abs(x.got-x.want) > 1e-9*math.Max(1, x.want) {
					t.Errorf("%s = %v, the lock table says %v", x.name, x.got, x.want)
				}
			}
			if waits == 0 || rl.WaitedTxnFrac <= 0 || rl.WaitedTxnFrac > 1 || rl.HoldMeanUs <= rl.WaitMeanUs/10 {
				t.Errorf("implausible row locks: %+v after %d waits", rl, waits)
			}
		})
	}
}

// TestRowLocksOffIdenticalToBefore: with no row locks the TPC-B preset gives,
// byte for byte, the results the engine gave before row locks existed
// (testdata/golden_tpcb_nolocks_*.json were written by that engine and are
// never rewritten), and says nothing of row locks.
func TestRowLocksOffIdenticalToBefore(t *testing.T) {
	for _, tc := range []struct{ desc, arm, file string }{
		{"pull off", "pull off", "golden_tpcb_nolocks_off.json"},
		{"pull on", "pull on", "golden_tpcb_nolocks_on.json"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r := runExample(t, "tpcb-32vcpu", tc.arm, "workload.tpcb_scale=0", "machine.vcpus=16", "workload.clients=48", "duration_ms=400", "warmup_ms=100")
			if r.RowLocks != (RowLockResults{}) {
				t.Errorf("a run without row locks reports row locks: %+v", r.RowLocks)
			}
			got := resultsJSON(t, r)
			path := filepath.Join("testdata", tc.file)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("results differ from %s:\n got %s\nwant %s", path, got, want)
			}
		})
	}
}

// TestRowLockScaleDecoding: workload.tpcb_scale is decoded strictly, and it
// needs what its locks are taken and released at: the script's 7 statements
// and a durable commit.
func TestRowLockScaleDecoding(t *testing.T) {
	for _, tc := range []struct {
		desc string
		sets []string
		err  string // "" for no error
	}{
		{"the published scale", []string{"workload.tpcb_scale=100"}, ""},
		{"off", []string{"workload.tpcb_scale=0", "workload.statements_per_txn=3"}, ""},
		{"negative", []string{"workload.tpcb_scale=-1"}, "workload.tpcb_scale: -1 is below the minimum 0"},
		{"above the maximum", []string{"workload.tpcb_scale=10001"}, "workload.tpcb_scale: 10001 is above the maximum 10000"},
		{"not an integer", []string{"workload.tpcb_scale=1.5"}, "workload.tpcb_scale"},
		{"other statements", []string{"workload.tpcb_scale=1", "workload.statements_per_txn=5"}, "workload.tpcb_scale: 1 needs the tpcb-like script's 7 statements"},
		{"no commit", []string{"workload.tpcb_scale=1", "workload.commit_device_us=0"}, "workload.tpcb_scale: 1 needs a durable commit"},
		{"another workload ignores it", []string{"workload.kind=commit", "workload.commit_device_us=100", "workload.tpcb_scale=1", "workload.statements_per_txn=1"}, ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := DecodeScenario([]byte(`{"version":1,"workload":{"statements_per_txn":7,"commit_device_us":600}}`), tc.sets...)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
	data := []byte(`{"version":1,"workload":{"statements_per_txn":7,"commit_device_us":600,"tpcb_scale":"100"}}`)
	if _, err := DecodeScenario(data); err == nil || !strings.Contains(err.Error(), "workload.tpcb_scale") {
		t.Errorf("a string scale decoded, or its error does not name the field: %v", err)
	}
}
