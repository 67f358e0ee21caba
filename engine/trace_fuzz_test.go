package engine

import (
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/kerneltrace"
)

// FuzzTraceRun: any scenario document holding a trace's model that
// DecodeScenario accepts runs without a panic, within the horizon, and its
// checkpoint taken midway resumes; one it refuses is refused with an error
// on a field, never a panic. Seeds: the tests' models as documents.
//
//	go test ./engine -run '^$' -fuzz FuzzTraceRun -fuzztime 1m
func FuzzTraceRun(f *testing.F) {
	mix := ckTraceMix()
	small := *model(
		thr(1, kt{Kind: 2}, seg(ms, kt{Kind: 1, Waker: 1, AtNs: 10}), seg(ms, exit())),
		thr(2, kt{Kind: 2, SleepNs: 5}, seg(ms, kt{Kind: 3, Child: 2}, kerneltrace.Wake{Wakee: 0, WakeeSeg: 0, AtNs: 10}), seg(1, exit())),
		thr(3, kt{Kind: 4, Waker: 1, WakerSeg: 0, AtNs: ms}, seg(ms, kt{Kind: 6})))
	for _, m := range []any{mix, small} {
		b, err := json.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, modelJSON string) {
		doc := `{"version": 1, "duration_ms": 5, "warmup_ms": 0, "machine": {"vcpus": 2}, "sched": {"policy": "linux"},
			"workload": {"kind": "trace", "wake_sources_per_s": 0, "trace": ` + modelJSON + `}}`
		sc, err := DecodeScenario([]byte(doc))
		if err != nil {
			if testing.Verbose() {
				t.Logf("refused: %v", err)
			}
			return
		}
		res := runResumedMidway(t, sc, 2e6)
		if len(res.Trace.Threads) != len(sc.Workload.Trace.Threads) {
			t.Fatalf("%d threads in the results, %d in the model", len(res.Trace.Threads), len(sc.Workload.Trace.Threads))
		}
	})
}
