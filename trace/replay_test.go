package trace

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"schedplay/engine"
	"schedplay/kerneltrace"
)

// The round trip of issue 35, item 5: a run written as Perfetto, read back
// and replayed under the same scheduler on the same machine gives every
// thread the CPU time the export recorded, within 1%. The replay is the
// engine's workload.kind=trace (engine/trace_workload.go) over the model
// kerneltrace builds, cut stretches kept (Options.KeepCut), so all the
// recorded run time is replayed. The replay takes the simulated machine's
// switch and interrupt costs out of the recorded run, which holds them
// already; a run whose segments are as short as those costs (sync_pairs'
// default 2 µs messages beside a context switch of about as much) cannot
// give them back and replays slower, so the pairs here send 20 µs messages.
func TestPerfettoReplayRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		desc string
		path string
		sets []string
	}{
		{"hackbench, linux", "../examples/hackbench.json", []string{"duration_ms=30", "warmup_ms=0", "sched.policy=linux"}},
		{"sync pairs, linux", "testdata/two-cpu.json", []string{"duration_ms=30", "warmup_ms=0", "sched.policy=linux",
			"workload.kind=sync_pairs", "workload.sync_pairs.pairs=2", "workload.sync_pairs.spinners=1", "workload.sync_pairs.message_ns=20000"}},
		{"tpcb 32 vCPUs, linux", "../examples/tpcb-32vcpu.json", []string{"duration_ms=60", "warmup_ms=0", "workload.clients=16", "sched.policy=linux"}},
		{"two-cpu request server, osv", "testdata/two-cpu.json", []string{"duration_ms=20"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := loadScenario(t, tc.path, tc.sets...)
			var buf bytes.Buffer
			st, err := WritePerfetto(&buf, newSim(t, sc), Options{NoDecisions: true})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := kerneltrace.Read(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			m, err := kerneltrace.Build(tr, kerneltrace.Options{StartNs: st.StartNs, EndNs: st.EndNs, KeepCut: true})
			if err != nil {
				t.Fatal(err)
			}
			if m.Counts.LostSwitches != 0 {
				t.Errorf("%d switch-outs lost in an export", m.Counts.LostSwitches)
			}
			r := replayModel(t, sc, m)
			if r.Trace.Unfinished != 0 {
				t.Errorf("%d threads did not finish their segments", r.Trace.Unfinished)
			}
			checked := 0
			for _, th := range r.Trace.Threads {
				rec, rep := th.Recorded.CPUMs, th.Replayed.CPUMs
				if rec == 0 && rep == 0 {
					continue
				}
				checked++
				if math.Abs(rep-rec) > 0.01*rec+1e-6 {
					t.Errorf("%s (tid %d): replayed %.4f ms of CPU, the export recorded %.4f ms", th.Name, th.Tid, rep, rec)
				}
			}
			if checked == 0 {
				t.Fatal("no thread ran")
			}
			t.Logf("%d threads within 1%% of their recorded CPU time; replay ended at %.2f ms (recorded window %.2f ms)",
				checked, r.ElapsedS*1e3, float64(st.EndNs-st.StartNs)/1e6)
		})
	}
}

// replayModel runs m as sc's workload: the same scheduler and machine, the
// trace's CPU count, a horizon long enough for a slower replay.
func replayModel(t testing.TB, sc engine.Scenario, m *kerneltrace.Model) engine.Results {
	t.Helper()
	win := (m.EndNs - m.StartNs) / 1e6
	sc, err := sc.WithKnobs("workload.kind=idle", "workload.wake_sources_per_s=0", "warmup_ms=0",
		fmt.Sprintf("machine.vcpus=%d", m.CPUs), fmt.Sprintf("duration_ms=%d", 4*win+50))
	if err != nil {
		t.Fatal(err)
	}
	sc.Workload.Kind, sc.Workload.Trace = engine.WorkloadTrace, *m
	sim, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	sim.SetVisual(false)
	return sim.Run()
}

// TestPerfettoWritesClasses: a run's threads carry their class and nice into
// the Perfetto trace as the kernel's prio (a SCHED_FIFO 50 task 49, a nice 10
// task 130, a nice 0 one 120), and kerneltrace reads each thread's back.
func TestPerfettoWritesClasses(t *testing.T) {
	sc := engine.DefaultScenario()
	sc.Machine.VCPUs, sc.DurationMs, sc.WarmupMs = 2, 50, 0
	sc.Sched.Policy = "linux"
	sc.Workload.Kind = engine.WorkloadRTApp
	sc.Workload.RTApp = `{"tasks": {"rt": {"policy": "SCHED_FIFO", "priority": 50, "loop": -1, "run": 1000, "sleep": 1000},
		"low": {"priority": 10, "loop": -1, "run": 1000, "sleep": 500}, "plain": {"loop": -1, "run": 700, "sleep": 700}}}`
	var buf bytes.Buffer
	if _, err := WritePerfetto(&buf, newSim(t, sc), Options{NoDecisions: true}); err != nil {
		t.Fatal(err)
	}
	tr, err := kerneltrace.Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m, err := kerneltrace.Build(tr, kerneltrace.Options{KeepCut: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int32{"rt-0": 49, "low-1": 130, "plain-2": 120}
	for _, th := range m.Threads {
		name := th.Name()
		for prefix, prio := range want {
			if len(name) >= len(prefix) && name[:len(prefix)] == prefix {
				if th.Prio != prio {
					t.Errorf("%s: prio %d read back, want %d", name, th.Prio, prio)
				}
				delete(want, prefix)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("threads not found in the trace read back: %v", want)
	}
}
