package view_test

import (
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/view"
)

func TestMetricTable(t *testing.T) {
	for _, kind := range []string{engine.WorkloadRequestServer, engine.WorkloadCommit, engine.WorkloadHackbench, engine.WorkloadIdle, engine.WorkloadThreadPerConn} {
		for _, kvm := range []bool{true, false} {
			all, card := view.Metrics(kind, view.Shows{KVM: kvm}), view.CardMetrics(kind, view.Shows{KVM: kvm})
			ids := map[string]bool{}
			for _, d := range all {
				if ids[d.ID] || d.Label == "" || d.Short == "" || d.Key == "" || d.Value == nil || d.Format == nil {
					t.Errorf("%s: metric %+v is repeated or incomplete", kind, d.ID)
				}
				ids[d.ID] = true
				if d.KVMOnly && !kvm {
					t.Errorf("%s: %s shown off KVM", kind, d.ID)
				}
			}
			if len(card) < 3 || len(card) > 4 {
				t.Errorf("%s (kvm %v): the share card shows %d metrics", kind, kvm, len(card))
			}
			j := 0
			for _, c := range card {
				for j < len(all) && all[j].ID != c.ID {
					j++
				}
				if j == len(all) {
					t.Errorf("%s: card metric %s is not in the page's order", kind, c.ID)
				}
			}
		}
	}
	def := func(kind, id string) view.MetricDef {
		for _, d := range view.Metrics(kind, view.Shows{KVM: true}) {
			if d.ID == id {
				return d
			}
		}
		t.Fatalf("no %s metric %s", kind, id)
		return view.MetricDef{}
	}
	tput, runTime, idleOver, busy := def(engine.WorkloadRequestServer, "throughput"), def(engine.WorkloadHackbench, "elapsed"),
		def(engine.WorkloadRequestServer, "idle-over"), def(engine.WorkloadRequestServer, "busy")
	tests := []struct {
		desc string
		d    view.MetricDef
		a, b engine.Results
		want view.Shown
	}{
		{"a factor, better", tput, engine.Results{ThroughputPerS: 7819}, engine.Results{ThroughputPerS: 22722},
			view.Shown{A: "7.82k", B: "22.7k", Change: "2.9x", Verdict: view.IsBetter}},
		{"within 2% is no verdict", tput, engine.Results{ThroughputPerS: 1000}, engine.Results{ThroughputPerS: 1015},
			view.Shown{A: "1.00k", B: "1.01k", Change: "+1.5%"}},
		{"no baseline", tput, engine.Results{}, engine.Results{ThroughputPerS: 5}, view.Shown{A: "0", B: "5.00"}},
		{"unfinished", runTime, engine.Results{}, engine.Results{ElapsedS: 0.378},
			view.Shown{A: "> 3.60 s", B: "378 ms"}},
		{"tiny shares alike", idleOver, engine.Results{IdleWhileOverloadedFrac: 0.0003}, engine.Results{IdleWhileOverloadedFrac: 0.0004},
			view.Shown{A: "<0.1%", B: "<0.1%"}},
		{"no better way", busy, engine.Results{BusyVCPUsMean: 6.1}, engine.Results{BusyVCPUsMean: 27.4},
			view.Shown{A: "6.1", B: "27.4", Change: "4.5x"}},
		{"a fall for the better", idleOver, engine.Results{IdleWhileOverloadedFrac: 0.71}, engine.Results{IdleWhileOverloadedFrac: 0.04},
			view.Shown{A: "71%", B: "4.0%", Change: "−94%", Verdict: view.IsBetter}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if got := tc.d.Show(3_600_000_000, &tc.a, &tc.b); got != tc.want {
				t.Errorf("Show = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Published figures belong to a run of the configuration they were measured at
// (the point's and its arm's settings on the scenario), read as the engine reads
// them, whatever the run's seed, window or platform costs; a run that changes
// anything else about the system or its load is not that measurement.
func TestPublishedSet(t *testing.T) {
	sc := engine.DefaultScenario()
	sc.Arms = []engine.Arm{{Name: "off", Set: map[string]string{"sched.wake_pull": "false"}}, {Name: "on", Set: map[string]string{"sched.wake_pull": "1"}}}
	sc.Published = []engine.Published{
		{Arm: "off", Set: map[string]string{"workload.clients": "64"}, Values: map[string]float64{"throughput_per_s": 7819}},
		{Arm: "on", Set: map[string]string{"workload.clients": "64"}, Values: map[string]float64{"throughput_per_s": 22722}},
		{Arm: "on", Set: map[string]string{"workload.clients": "many"}, Values: map[string]float64{"throughput_per_s": 1}},
		{Arm: "gone", Values: map[string]float64{"throughput_per_s": 2}},
		{Arm: "off", Set: map[string]string{"workload.clients": "16"}, Relative: true, Values: map[string]float64{"throughput_per_s": 1}},
	}
	ps := view.NewPublishedSet(sc)
	for _, tc := range []struct {
		desc string
		sets []string
		want float64
	}{
		{"the off arm", []string{"sched.wake_pull=false", "workload.clients=64"}, 7819},
		{"the on arm, written another way", []string{"sched.wake_pull=on", "workload.clients=064"}, 22722},
		{"another seed, window and cost", []string{"sched.wake_pull=true", "seed=7", "duration_ms=900", "warmup_ms=100", "machine.costs.halted_wake_ns=30000"}, 22722},
		{"another load", []string{"sched.wake_pull=true", "workload.clients=32"}, 0},
		{"a rule the measurement did not have", []string{"sched.wake_pull=true", "sched.idle_spin.adaptive=true"}, 0},
		{"another machine", []string{"sched.wake_pull=true", "machine.vcpus=16"}, 0},
		{"a relative value is no figure", []string{"sched.wake_pull=false", "workload.clients=16"}, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			base := sc
			base.Published = nil // the unreadable point would refuse every run
			run, err := base.WithKnobs(tc.sets...)
			if err != nil {
				t.Fatal(err)
			}
			if got := ps.FiguresOf(run)["throughput_per_s"]; got != tc.want {
				t.Errorf("throughput %v, want %v", got, tc.want)
			}
		})
	}
}

// The row-lock cards: shown for a server whose runs take pgbench's row locks,
// after its latency, never on the share card, and written like the other
// cards.
func TestRowLockMetrics(t *testing.T) {
	locked := &engine.Results{RowLocks: engine.RowLockResults{TPCBScale: 100, WaitedTxnFrac: 0.367, WaitsPerS: 8847, WaitMeanUs: 1180}}
	fewer := &engine.Results{RowLocks: engine.RowLockResults{TPCBScale: 100, WaitedTxnFrac: 0.37, WaitsPerS: 10652, WaitMeanUs: 975}}
	unlocked := &engine.Results{ThroughputPerS: 25769}
	noWaits := &engine.Results{RowLocks: engine.RowLockResults{TPCBScale: 100}}
	ids := func(ds []view.MetricDef) string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return strings.Join(out, " ")
	}
	plain := "throughput mean p99 busy busy-host idle-over ipis halts"
	withLocks := "throughput mean p99 lock-waited lock-wait busy busy-host idle-over ipis halts"
	for _, tc := range []struct {
		desc  string
		kind  string
		locks bool
		want  string
	}{
		{"no row locks", engine.WorkloadRequestServer, false, plain},
		{"row locks", engine.WorkloadRequestServer, true, withLocks},
		{"another workload", engine.WorkloadCommit, true, "throughput wake p99 busy busy-host idle-over ipis halts"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			shows := view.Shows{KVM: true, RowLocks: tc.locks}
			if got := ids(view.Metrics(tc.kind, shows)); got != tc.want {
				t.Errorf("metrics %q, want %q", got, tc.want)
			}
			if got, want := ids(view.CardMetrics(tc.kind, shows)), ids(view.CardMetrics(tc.kind, view.Shows{KVM: true})); got != want {
				t.Errorf("share card %q, want its four as without row locks, %q", got, want)
			}
		})
	}
	def := func(id string) view.MetricDef {
		for _, d := range view.Metrics(engine.WorkloadRequestServer, view.Shows{KVM: true, RowLocks: true}) {
			if d.ID == id {
				return d
			}
		}
		t.Fatalf("no metric %s", id)
		return view.MetricDef{}
	}
	share, wait := def("lock-waited"), def("lock-wait")
	for _, tc := range []struct {
		desc string
		d    view.MetricDef
		a, b *engine.Results
		want view.Shown
	}{
		{"share alike", share, locked, fewer, view.Shown{A: "37%", B: "37%"}},
		{"shorter waits are better", wait, locked, fewer, view.Shown{A: "1.18 ms", B: "975 µs", Change: "−17%", Verdict: view.IsBetter}},
		{"no row locks in arm A", share, unlocked, locked, view.Shown{A: "–", B: "37%"}},
		{"no wait has ended", wait, noWaits, locked, view.Shown{A: "–", B: "1.18 ms"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := tc.d.Show(1e9, tc.a, tc.b); got != tc.want {
				t.Errorf("Show = %+v, want %+v", got, tc.want)
			}
		})
	}
}
