package trace

import (
	"bytes"
	"math"
	"testing"

	"schedplay/engine"
	"schedplay/kerneltrace"
)

// cpuTimes is the oracle: each thread's time as its CPU's running thread,
// integrated from an independent run's visual events (a thread leaves a CPU
// when it blocks, another thread runs there, or the CPU leaves the running
// state without it).
func cpuTimes(t testing.TB, sc engine.Scenario, until int64) (map[int32]int64, *engine.Sim) {
	t.Helper()
	obs, sim := observeRun(t, sc, until)
	cur := make([]int32, sim.NumCPUs())
	since := make([]int64, sim.NumCPUs())
	for i := range cur {
		cur[i] = -1
	}
	out := make(map[int32]int64)
	leave := func(cpu int32, at int64) {
		if cur[cpu] >= 0 {
			out[cur[cpu]] += at - since[cpu]
		}
		cur[cpu] = -1
	}
	for _, e := range obs {
		if e.CPU < 0 || int(e.CPU) >= len(cur) {
			continue
		}
		switch {
		case e.Kind == engine.VisRun || e.Kind == engine.VisState && engine.CPUState(e.Arg) == engine.CPURunning && e.Thread >= 0:
			if cur[e.CPU] != e.Thread {
				leave(e.CPU, e.AtNs)
				cur[e.CPU], since[e.CPU] = e.Thread, e.AtNs
			}
		case e.Kind == engine.VisBlock && cur[e.CPU] == e.Thread, e.Kind == engine.VisState && e.Thread < 0:
			leave(e.CPU, e.AtNs)
		}
	}
	for c := range cur {
		leave(int32(c), until)
	}
	return out, sim
}

// A run written as Perfetto and read back by kerneltrace gives each thread's
// CPU time within 1% of the run's (issue 35, item 5), and its wakeups as
// edges from the threads that made them.
func TestPerfettoRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		desc string
		path string
		sets []string
	}{
		{"two-cpu request server", "testdata/two-cpu.json", []string{"duration_ms=20"}},
		{"hackbench", "../examples/hackbench.json", []string{"duration_ms=30", "warmup_ms=0"}},
		{"tpcb 32 vCPUs, linux policy", "../examples/tpcb-32vcpu.json", []string{"duration_ms=60", "warmup_ms=0", "workload.clients=16", "sched.policy=linux"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := loadScenario(t, tc.path, tc.sets...)
			var buf bytes.Buffer
			sim := newSim(t, sc)
			st, err := WritePerfetto(&buf, sim, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if st.Bytes != int64(buf.Len()) || st.Events == 0 {
				t.Fatalf("stats %+v, wrote %d bytes", st, buf.Len())
			}
			want, ref := cpuTimes(t, sc, st.EndNs)
			if f := kerneltrace.Detect(buf.Bytes()); f != kerneltrace.FormatPerfetto {
				t.Fatalf("Detect = %q", f)
			}
			tr, err := kerneltrace.Read(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if tr.CPUs > sim.NumCPUs() || tr.KernelRelease == "" {
				t.Errorf("CPUs %d (sim %d), release %q", tr.CPUs, sim.NumCPUs(), tr.KernelRelease)
			}
			m, err := kerneltrace.Build(tr, kerneltrace.Options{StartNs: st.StartNs, EndNs: st.EndNs, KeepCut: true})
			if err != nil {
				t.Fatal(err)
			}
			got := make(map[int32]float64)
			for _, th := range m.Threads {
				id := th.Tid - pfTidBase
				got[id] += th.Recorded.CPUMs
				var run int64
				for _, s := range th.Segments {
					run += s.RunNs
				}
				if d := math.Abs(float64(run)/1e6 - th.Recorded.CPUMs); d > 1e-6+0.01*th.Recorded.CPUMs {
					t.Errorf("thread %d: segments run %.6f ms, recorded %.6f ms", id, float64(run)/1e6, th.Recorded.CPUMs)
				}
			}
			var total int64
			for id, ns := range want {
				total += ns
				w := float64(ns) / 1e6
				if math.Abs(got[id]-w) > 0.01*w {
					t.Errorf("thread %d %q: %.4f ms read back, %.4f ms in the run", id, th(ref, id), got[id], w)
				}
			}
			for id := range got {
				if _, ok := want[id]; !ok && got[id] > 0 {
					t.Errorf("thread %d ran %.4f ms in the trace, never in the run", id, got[id])
				}
			}
			var live engine.Snapshot
			ref.Snapshot(&live)
			if total == 0 || total > live.Live.BusyNs {
				t.Errorf("threads ran %d ns in all; the run was busy %d ns", total, live.Live.BusyNs)
			}
			if m.Counts.WakeEdges == 0 {
				t.Errorf("no wake edge read back: %+v", m.Counts)
			}
			t.Logf("%d bytes, %d events, %d threads; counts %+v", buf.Len(), st.Events, len(m.Threads), m.Counts)
		})
	}
}

func th(sim *engine.Sim, id int32) string {
	name, _, _ := sim.ThreadInfo(int(id))
	return name
}
