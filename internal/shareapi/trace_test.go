package shareapi

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/kerneltrace"
)

// bigModel is n threads, each one run of 1 ms then an exit: a model whose
// JSON is larger than a scenario document may be for n in the thousands.
func bigModel(n int) kerneltrace.Model {
	m := kerneltrace.Model{CPUs: 4, EndNs: 1e6}
	for i := range n {
		m.Threads = append(m.Threads, kerneltrace.Thread{Tid: int32(1000 + i), Tgid: 1000, Names: []string{"worker"}, PinnedCPU: -1,
			Start:    kerneltrace.End{Kind: kerneltrace.EndTimer, SleepNs: int64(i) * 1000},
			Segments: []kerneltrace.Segment{{RunNs: 1e6, End: kerneltrace.End{Kind: kerneltrace.EndExit}}}})
	}
	return m
}

func traceDoc(t *testing.T, m kerneltrace.Model) []byte {
	t.Helper()
	sc := engine.DefaultScenario()
	sc.Machine.VCPUs, sc.WarmupMs, sc.DurationMs = 4, 0, 500
	sc.Workload.WakeSourcesPerS = 0
	sc.Workload.Kind, sc.Workload.Trace = engine.WorkloadTrace, m
	sc, err := sc.WithKnobs()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sc.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestTraceShareRoundTrips: a trace scenario larger than a document may be
// decodes whole, model and all, and its canonical form is the one shared.
func TestTraceShareRoundTrips(t *testing.T) {
	doc := traceDoc(t, bigModel(3000))
	if len(doc) <= engine.MaxScenarioBytes || len(doc) > MaxTraceShareBytes {
		t.Fatalf("the test's document is %d bytes: want it between the limits", len(doc))
	}
	if _, err := engine.DecodeScenario(doc); err == nil {
		t.Fatal("engine.DecodeScenario took a document over its limit: the test proves nothing")
	}
	sc, err := DecodeScenario(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Workload.Trace.Threads) != 3000 || sc.Workload.Kind != engine.WorkloadTrace || sc.Machine.VCPUs != 4 {
		t.Fatalf("decoded %d threads, kind %q on %d vCPUs", len(sc.Workload.Trace.Threads), sc.Workload.Kind, sc.Machine.VCPUs)
	}
	again, err := sc.Canonical()
	if err != nil || string(again) != string(doc) {
		t.Fatalf("the canonical form changed in the round trip (err %v)", err)
	}
	// A small trace scenario and any other document decode as before.
	if _, err := DecodeScenario(traceDoc(t, bigModel(2))); err != nil {
		t.Fatal(err)
	}
	plain, _ := engine.DefaultScenario().Canonical()
	if _, err := DecodeScenario(plain); err != nil {
		t.Fatal(err)
	}
}

// TestTraceShareRefusals: over the limit, a large document that is no trace,
// and a model the engine refuses: each an error that names why.
func TestTraceShareRefusals(t *testing.T) {
	huge := make([]byte, MaxTraceShareBytes+1)
	if _, err := DecodeScenario(huge); err == nil || !strings.Contains(err.Error(), "4194304, 4 MiB, for one that replays a trace") {
		t.Errorf("over the limit: %v", err)
	}
	big, _ := json.Marshal(map[string]any{"version": engine.SchemaVersion, "description": strings.Repeat("x", engine.MaxScenarioBytes)})
	if _, err := DecodeScenario(big); err == nil || !strings.Contains(err.Error(), "the limit is 81920 bytes") {
		t.Errorf("a large document that replays no trace: %v", err)
	}
	m := bigModel(2)
	m.Threads[1].Segments[0].End = kerneltrace.End{Kind: kerneltrace.EndWakeBy, Waker: 7}
	doc := traceDoc(t, bigModel(2))
	bad := strings.Replace(string(doc), `"end":{"kind":5}}]}]`, `"end":{"kind":1,"waker":7}}]}]`, 1)
	if bad == string(doc) {
		t.Fatal("the test's edit did not apply")
	}
	if _, err := DecodeScenario([]byte(bad)); err == nil || !strings.Contains(err.Error(), "workload.trace.threads.1.segments.0") {
		t.Errorf("a model with a dangling waker: %v", err)
	}
	if _, err := DecodeScenario([]byte(strings.Replace(string(doc), `"run_ns"`, `"run_nz"`, 1))); err == nil || !strings.Contains(err.Error(), "workload.trace") {
		t.Errorf("a model with an unknown field: %v", err)
	}
}
