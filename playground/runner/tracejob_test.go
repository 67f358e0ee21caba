package runner_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
	"schedplay/trace"
)

// A trace job crosses the wire intact, and what the worker running it writes for it
// is byte for byte what `schedplay run --trace` writes for the same window.
func TestTraceJob(t *testing.T) {
	sc := scenario(t, "tpcb-32vcpu", "workload.clients=16", "sched.wake_pull=true", "duration_ms=400", "warmup_ms=100")
	job := runner.TraceJob{Scenario: sc, StartNs: 150_000_000, UntilNs: 152_000_000}
	got, err := runner.DecodeTraceJob(runner.EncodeTraceJob(job))
	if err != nil || !reflect.DeepEqual(got, job) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}

	var want bytes.Buffer
	sim, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trace.Write(&want, sim, trace.WindowOptions(job.StartNs, job.UntilNs)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var seen []float64
	st, err := runner.WriteTrace(&out, got, nil, func(f float64) { seen = append(seen, f) })
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Errorf("the job's trace (%d bytes) differs from the CLI's (%d bytes)", out.Len(), want.Len())
	}
	if st.Events == 0 || st.StartNs != job.StartNs || st.EndNs != job.UntilNs {
		t.Errorf("stats %+v: want events in [%d, %d)", st, job.StartNs, job.UntilNs)
	}
	if len(seen) == 0 || seen[len(seen)-1] != 1 {
		t.Errorf("progress went %v, want it to end at 1", seen)
	}
}

func TestTraceJobErrors(t *testing.T) {
	sc := scenario(t, "tpcb-32vcpu")
	msg := runner.EncodeTraceJob(runner.TraceJob{Scenario: sc, StartNs: 1, UntilNs: 2})
	for n := range len(msg) {
		if _, err := runner.DecodeTraceJob(msg[:n]); err == nil {
			t.Fatalf("a job cut to %d of %d bytes decoded", n, len(msg))
		}
		bad := bytes.Clone(msg)
		bad[n] ^= 0xff
		runner.DecodeTraceJob(bad) // must not panic
	}
	if _, err := runner.DecodeTraceJob(append(bytes.Clone(msg), 0)); err == nil {
		t.Error("a job with trailing bytes decoded")
	}
	bad := sc
	bad.Workload.Clients = -1
	for _, tc := range []struct {
		desc string
		job  runner.TraceJob
		want string
	}{
		{"empty window", runner.TraceJob{Scenario: sc, StartNs: 5, UntilNs: 5}, "is empty"},
		{"refused", runner.TraceJob{Scenario: bad, StartNs: 0, UntilNs: 5}, "workload.clients"},
	} {
		if _, err := runner.WriteTrace(&bytes.Buffer{}, tc.job, nil, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.desc, err, tc.want)
		}
	}
}
