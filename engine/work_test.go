package engine

import (
	"strings"
	"testing"
)

// TestCheckWork: every example runs (in its own window and to the calibration's
// 60 s horizon); a scenario inside every range that would still take hours is
// refused, naming the fields that make it long.
func TestCheckWork(t *testing.T) {
	for _, name := range exampleNames(t) {
		for _, sets := range [][]string{nil, {"duration_ms=60000"}} {
			if name == "hackbench" && sets != nil {
				continue // it finishes by itself
			}
			if err := CheckWork(loadExample(t, name, sets...)); err != nil {
				t.Errorf("%s %v refused: %v", name, sets, err)
			}
		}
	}
	for _, tc := range []struct {
		desc, example string
		sets          []string
		path, msg     string
	}{
		{"hackbench with 4096 senders per group and the cheapest messages", "hackbench",
			[]string{"workload.hackbench.groups=1", "workload.hackbench.fds=4096", "workload.hackbench.write_ns=50", "workload.hackbench.read_ns=50"},
			"workload.hackbench.fds", "16777216000 messages"},
		{"two minutes of 4096 clients on 128 vCPUs at the cheapest costs", "tpcb-32vcpu",
			[]string{"machine.vcpus=128", "workload.clients=4096", "duration_ms=120000", "workload.service.mean_us=0.1", "workload.rx_cost_ns=100", "workload.network_rtt_us=0"},
			"duration_ms", "lower duration_ms or the load"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			err := CheckWork(loadExample(t, tc.example, tc.sets...))
			fe, ok := err.(*FieldError)
			if !ok || fe.Path != tc.path || !strings.Contains(fe.Msg, tc.msg) || !strings.Contains(fe.Msg, "the limit is 1e+09") {
				t.Errorf("err = %v, want a FieldError at %s saying %q and the limit", err, tc.path, tc.msg)
			}
		})
	}
}

// TestEstimateEventsFinite: a workload that finishes is estimated from its
// progress; a short one that the probe runs to the end is counted exactly.
func TestEstimateEventsFinite(t *testing.T) {
	sc := loadExample(t, "hackbench", "workload.hackbench.loops=20")
	n, err := EstimateEvents(sc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	if float64(n) < 0.5*float64(r.Events) || float64(n) > 2*float64(r.Events) {
		t.Errorf("estimated %d events, the run took %d", n, r.Events)
	}
	idle := loadExample(t, "idle-guest", "duration_ms=100", "warmup_ms=0")
	n, _ = EstimateEvents(idle)
	r, _ = Run(idle)
	if n != r.Events {
		t.Errorf("a probe that reaches the end estimated %d, the run took %d", n, r.Events)
	}
}

// TestLatencyHistogram: the buckets a chart draws hold every completion of the
// window and agree with the results' quantiles.
func TestLatencyHistogram(t *testing.T) {
	s, err := NewSim(loadExample(t, "tpcb-32vcpu", "duration_ms=3000", "warmup_ms=1000"))
	if err != nil {
		t.Fatal(err)
	}
	all := s.AddWindow(0, 3000)
	r := s.Run()
	for _, w := range []int{0, all} {
		bs := s.LatencyHistogram(nil, w)
		var n int64
		for i, b := range bs {
			n += b.Count
			if b.HighUs <= b.LowUs || i > 0 && b.LowUs < bs[i-1].HighUs {
				t.Fatalf("window %d bucket %d: [%v, %v) out of order", w, i, b.LowUs, b.HighUs)
			}
		}
		if rw := s.ResultsWindow(w); n != rw.Completed {
			t.Errorf("window %d: buckets hold %d, the results count %d completions", w, n, rw.Completed)
		}
	}
	// The median lies in the bucket where the cumulative count passes half.
	var seen int64
	for _, b := range s.LatencyHistogram(nil, 0) {
		seen += b.Count
		if 2*seen >= r.Completed {
			if r.LatencyUs.P50 < b.LowUs || r.LatencyUs.P50 > b.HighUs {
				t.Errorf("p50 %.1f µs outside the median bucket [%.1f, %.1f)", r.LatencyUs.P50, b.LowUs, b.HighUs)
			}
			break
		}
	}
}
