package engine

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
