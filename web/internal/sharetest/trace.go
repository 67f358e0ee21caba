package sharetest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/internal/shareapi"
	"schedplay/kerneltrace"
)

// TraceScenario is a scenario that replays a trace's model of n threads on
// 4 CPUs, each starting 10 µs after the last and running segs stretches of
// 100 µs, 100 µs of sleep after each but the last, then exiting: with n in
// the hundreds its document is larger than engine.MaxScenarioBytes, as a
// recorded trace's is, and it runs in a moment.
func TraceScenario(t testing.TB, n, segs int) []byte {
	t.Helper()
	m := kerneltrace.Model{CPUs: 4, EndNs: int64(n) * 10_000}
	for i := range n {
		th := kerneltrace.Thread{Tid: int32(1000 + i), Tgid: 1000, Names: []string{"replayed-worker-thread"}, PinnedCPU: -1,
			Start:    kerneltrace.End{Kind: kerneltrace.EndTimer, SleepNs: int64(i) * 10_000},
			Recorded: kerneltrace.Figures{CPUMs: 0.1 * float64(segs)}}
		for k := range segs {
			end := kerneltrace.End{Kind: kerneltrace.EndTimer, SleepNs: 100_000}
			if k == segs-1 {
				end = kerneltrace.End{Kind: kerneltrace.EndExit}
			}
			th.Segments = append(th.Segments, kerneltrace.Segment{RunNs: 100_000, End: end})
		}
		m.Threads = append(m.Threads, th)
	}
	sc := engine.DefaultScenario()
	sc.Name = "trace-share"
	sc.Machine.VCPUs, sc.WarmupMs, sc.DurationMs = 4, 0, 200
	sc.Workload.WakeSourcesPerS = 0
	sc.Workload.Kind, sc.Workload.Trace = engine.WorkloadTrace, m
	sc, err := sc.WithKnobs("machine.platform=native", "sched.policy=linux")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sc.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// traceContract: a share stores a scenario that replays a trace, larger than
// a scenario document may be, and gives it back whole; one over
// shareapi.MaxTraceShareBytes is refused with an error naming that limit.
func traceContract(t *testing.T, h Host) {
	doc := TraceScenario(t, 1200, 1)
	if len(doc) <= engine.MaxScenarioBytes {
		t.Fatalf("the trace scenario is %d bytes: want one over engine.MaxScenarioBytes", len(doc))
	}
	r := Share(t, h.Client, h.Base, doc)
	resp, got := Do(t, h.Client, http.MethodGet, h.Base+"/api/share/"+r.ID, nil)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, doc) {
		t.Fatalf("GET /api/share/%s: %s, %d bytes; want the %d shared back", r.ID, resp.Status, len(got), len(doc))
	}
	if sc, err := shareapi.DecodeScenario(got); err != nil || len(sc.Workload.Trace.Threads) != 1200 {
		t.Fatalf("the stored trace scenario does not decode whole: %v", err)
	}
	if resp, body := Do(t, h.Client, http.MethodGet, h.Base+"/s/"+r.ID, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /s/%s: %s, body %.80q", r.ID, resp.Status, body)
	}
	// Near the limit: stored, and given back whole.
	near := TraceScenario(t, 4000, 15)
	if len(near) > shareapi.MaxTraceShareBytes || len(near) < shareapi.MaxTraceShareBytes*3/4 {
		t.Fatalf("the large trace scenario is %d bytes: want one near the limit %d", len(near), shareapi.MaxTraceShareBytes)
	}
	// Sharing it reads megabytes and computes the link preview: a minute
	// of patience for a busy machine and the Worker's wasm.
	slow := &http.Client{Timeout: time.Minute, Transport: h.Client.Transport}
	start := time.Now()
	r = Share(t, slow, h.Base, near)
	t.Logf("a %d-byte trace share took %v", len(near), time.Since(start).Round(time.Millisecond))
	if resp, got := Do(t, h.Client, http.MethodGet, h.Base+"/api/share/"+r.ID, nil); resp.StatusCode != http.StatusOK || !bytes.Equal(got, near) {
		t.Fatalf("GET /api/share/%s: %s, %d bytes; want the %d shared back", r.ID, resp.Status, len(got), len(near))
	}

	over := append(bytes.Clone(doc), bytes.Repeat([]byte(" "), shareapi.MaxTraceShareBytes+1-len(doc))...)
	resp, body := Do(t, h.Client, http.MethodPost, h.Base+"/api/share", over)
	var e ErrorReply
	if resp.StatusCode != http.StatusRequestEntityTooLarge || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, "4194304, 4 MiB, for one that replays a trace") {
		t.Errorf("POST a trace scenario over the limit: %s, %.300s; want 413 naming the limit", resp.Status, body)
	}
}
