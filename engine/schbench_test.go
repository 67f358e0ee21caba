package engine

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// schbenchRun runs the schbench preset with knobs on top.
func schbenchRun(t *testing.T, knobs ...string) SchbenchResults {
	t.Helper()
	sc := loadExample(t, "schbench", knobs...)
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return s.Run().Schbench
}

// TestSchbenchRequestIsSleepAndMath: with a CPU for every thread, a request
// takes its usleep (with the fair task's 50 µs timer slack) and its matrix
// math: operations × side³ multiply-adds, side sqrt(KB·1024/24); and every
// worker serves one request after another, so RPS is workers over that.
func TestSchbenchRequestIsSleepAndMath(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ops, kb   int
		sleepUs   int
		wantReqUs float64
	}{
		// side 104: 5 × 104³ × 3 ns = 16873 µs, plus 150 µs.
		{"schbench's defaults", 5, 256, 100, 150 + 5*104*104*104*3.0/1000},
		// side 26: 2 × 26³ × 3 ns = 105 µs, and no usleep.
		{"small matrices, no sleep", 2, 16, 0, 2 * 26 * 26 * 26 * 3.0 / 1000},
		{"sleep alone", 0, 256, 100, 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := schbenchRun(t, "machine.vcpus=4", "workload.schbench.message_threads=1", "workload.schbench.workers=2",
				"workload.schbench.pin_message=false", "workload.schbench.operations="+strconv.Itoa(tc.ops),
				"workload.schbench.footprint_kb="+strconv.Itoa(tc.kb), "workload.schbench.sleep_us="+strconv.Itoa(tc.sleepUs), "duration_ms=5000", "warmup_ms=100")
			if math.Abs(r.RequestUs.P50/tc.wantReqUs-1) > 0.04 {
				t.Errorf("request p50 %.1f µs, want %.1f", r.RequestUs.P50, tc.wantReqUs)
			}
			// A worker's cycle is its request, then its post (at most a
			// futex wake), its message thread's wakeup and walk (at most a
			// futex wake), and its own wakeup; each wakeup at most the p99.
			most := 2 * 1e6 / tc.wantReqUs
			least := 2 * 1e6 / (tc.wantReqUs + 2*r.WakeupUs.P99 + 2*1.5)
			if r.RPS > most*1.01 || r.RPS < least*0.99 {
				t.Errorf("%.0f requests/s, want %.0f-%.0f (2 workers)", r.RPS, least, most)
			}
		})
	}
}

// TestSchbenchSaturates: with more workers than CPUs and long requests, the
// CPUs are the limit: requests per second are the CPUs' time over a
// request's CPU time, and request latency grows with the queue.
func TestSchbenchSaturates(t *testing.T) {
	const reqUs = 5 * 104 * 104 * 104 * 3.0 / 1000
	for _, policy := range []string{"linux", "scx_simple"} {
		r := schbenchRun(t, "sched.policy="+policy, "machine.vcpus=4", "workload.schbench.message_threads=1", "workload.schbench.workers=16",
			"workload.schbench.pin_message=false", "workload.schbench.operations=5", "duration_ms=2000", "warmup_ms=200")
		if want := 4 * 1e6 / reqUs; r.RPS > want*1.01 || r.RPS < want*0.9 {
			t.Errorf("%s: %.0f requests/s, want at most and near %.0f (4 CPUs' worth)", policy, r.RPS, want)
		}
		if r.RequestUs.P50 < 2*reqUs {
			t.Errorf("%s: request p50 %.0f µs with 16 workers on 4 CPUs, want well above one request's %.0f", policy, r.RequestUs.P50, reqUs)
		}
	}
}

// TestSchbenchRPS: with -R the message thread hands out that many requests
// a second, and workers with CPU to spare serve them all while none holds
// more than schbenchBatch; past that, run_rps_thread skips a request each
// time it backs off (its loop counts it), so fewer are served.
func TestSchbenchRPS(t *testing.T) {
	for _, tc := range []struct {
		rps, workers int
		all          bool
	}{
		{500, 8, true},
		{2000, 16, true},
		{40000, 8, false},
	} {
		r := schbenchRun(t, "machine.vcpus=8", "workload.schbench.message_threads=1", "workload.schbench.workers="+strconv.Itoa(tc.workers),
			"workload.schbench.pin_message=false", "workload.schbench.operations=0", "workload.schbench.rps="+strconv.Itoa(tc.rps), "duration_ms=3000", "warmup_ms=0")
		switch {
		case tc.all && math.Abs(r.RPS/float64(tc.rps)-1) > 0.01:
			t.Errorf("-R %d -t %d: %.0f requests/s, want all", tc.rps, tc.workers, r.RPS)
		case !tc.all && r.RPS > float64(tc.rps)*0.99:
			t.Errorf("-R %d -t %d: %.0f requests/s, want fewer: %d a worker each second is over the batch of %d", tc.rps, tc.workers, r.RPS, tc.rps/tc.workers, schbenchBatch)
		}
		if r.WakeupUs.N == 0 || r.WakeupUs.P50 <= 0 {
			t.Errorf("-R %d: no wakeup latency recorded: %+v", tc.rps, r.WakeupUs)
		}
	}
}

// TestSchbenchPreset: the preset's command (-m 4 -M auto -t 64 -n 0) runs
// 256 workers and 4 message threads, each request a usleep alone.
func TestSchbenchPreset(t *testing.T) {
	r := schbenchRun(t, "duration_ms=300", "warmup_ms=100")
	if r.Workers != 256 || r.MessageThreads != 4 || r.Requests == 0 {
		t.Fatalf("%+v", r)
	}
	// The histogram's buckets are 3% wide.
	if r.RequestUs.P50 < 150*0.97 || r.WakeupUs.P50 <= 0 || r.WakeupUs.P99 < r.WakeupUs.P50 {
		t.Errorf("request p50 %.1f µs (a 100 µs usleep and its slack at least), wakeup %+v", r.RequestUs.P50, r.WakeupUs)
	}
}

// TestSchbenchRefusals: settings schbench or the engine cannot run are
// refused naming the field.
func TestSchbenchRefusals(t *testing.T) {
	for _, tc := range []struct {
		knobs []string
		want  string
	}{
		{[]string{"workload.schbench.message_threads=64", "workload.schbench.workers=100"}, "workload.schbench.workers"},
		{[]string{"workload.schbench.message_threads=20"}, "workload.schbench.pin_message"},
		{[]string{"workload.schbench.operations=-1"}, "workload.schbench.operations"},
	} {
		sc, err := loadExample(t, "schbench").WithKnobs(tc.knobs...)
		if err == nil {
			err = sc.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error naming %s", tc.knobs, err, tc.want)
		}
	}
}
