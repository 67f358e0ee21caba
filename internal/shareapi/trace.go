package shareapi

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
	"schedplay/kerneltrace"
)

// A scenario that replays a recorded trace (workload.kind "trace") carries the
// trace's replay model in workload.trace: far more than a link can hold, and
// more than a scenario document may be (engine.MaxScenarioBytes). A share
// stores it whole, up to MaxTraceShareBytes; the page and both share servers
// read such a document with DecodeScenario, which checks the rest of it as
// any document is checked and the model on its own (engine.Scenario.WithKnobs
// takes a scenario of any size).

// MaxTraceShareBytes is the most a shared scenario that replays a trace may
// be, as JSON: the page says so in its trace panel, and the share servers
// refuse a larger one with an error naming the limit. A trace's model takes
// about 80 bytes a scheduler event (measured on a ping-pong of 16 threads):
// 4 MiB holds some 50,000 events, a fraction of a second of a busy machine or
// many seconds of a quiet one (the panel's window and process filters narrow
// a longer one). The share servers parse it whole, the Cloudflare Worker
// within its isolate's 128 MB.
const MaxTraceShareBytes = 4 << 20

// Placeholder is the smallest model the engine accepts: a document's model is
// swapped for it while the rest of the document is checked.
func Placeholder() kerneltrace.Model {
	return kerneltrace.Model{CPUs: 1, Threads: []kerneltrace.Thread{{
		Tid: 1, Names: []string{"placeholder"}, PinnedCPU: -1,
		Start:    kerneltrace.End{Kind: kerneltrace.EndTimer},
		Segments: []kerneltrace.Segment{{RunNs: 1, End: kerneltrace.End{Kind: kerneltrace.EndExit}}},
	}}}
}

// SplitTrace takes a trace scenario's model out of document data: doc is data
// with a placeholder model in its place (a document within
// engine.MaxScenarioBytes when the rest of it is), and model the document's
// own. For any other document, doc is data and model nil. A document larger
// than MaxTraceShareBytes, or one that is not JSON, is returned as it is for
// engine.DecodeScenario to refuse by its own rules.
func SplitTrace(data []byte) (doc []byte, model *kerneltrace.Model, err error) {
	if len(data) > MaxTraceShareBytes {
		return data, nil, nil
	}
	var top map[string]jsontext.Value
	if json.Unmarshal(data, &top) != nil {
		return data, nil, nil
	}
	var wl map[string]jsontext.Value
	if json.Unmarshal(top["workload"], &wl) != nil {
		return data, nil, nil
	}
	var kind string
	if json.Unmarshal(wl["kind"], &kind) != nil || kind != engine.WorkloadTrace || wl["trace"] == nil {
		return data, nil, nil
	}
	model = new(kerneltrace.Model)
	if err := json.Unmarshal(wl["trace"], model, json.RejectUnknownMembers(true)); err != nil {
		return nil, nil, fmt.Errorf("workload.trace: %w", err)
	}
	if wl["trace"], err = json.Marshal(Placeholder()); err != nil {
		return nil, nil, err
	}
	if top["workload"], err = json.Marshal(wl, json.Deterministic(true)); err != nil {
		return nil, nil, err
	}
	doc, err = json.Marshal(top, json.Deterministic(true))
	return doc, model, err
}

// DecodeScenario decodes a shared scenario: as engine.DecodeScenario does,
// and one that replays a trace up to MaxTraceShareBytes (SplitTrace), its
// model checked with the rest. Errors name the limit a document is over.
func DecodeScenario(data []byte) (engine.Scenario, error) {
	if len(data) > MaxTraceShareBytes {
		return engine.Scenario{}, TooLarge()
	}
	doc, model, err := SplitTrace(data)
	if err != nil {
		return engine.Scenario{}, err
	}
	if model == nil && len(data) > engine.MaxScenarioBytes {
		return engine.Scenario{}, TooLarge()
	}
	return WithTrace(doc, model)
}

// WithTrace decodes doc (a document within engine.MaxScenarioBytes, with a
// placeholder model when model is not nil) with sets applied (knobs, as
// engine.DecodeScenario's), sets model in it and checks the whole. The knobs
// apply to the small document: a large model is never written out as JSON
// and read back, which takes seconds in a browser.
func WithTrace(doc []byte, model *kerneltrace.Model, sets ...string) (engine.Scenario, error) {
	sc, err := engine.DecodeScenario(doc, sets...)
	if err != nil || model == nil {
		return sc, err
	}
	sc.Workload.Trace = *model
	if err := sc.Validate(); err != nil {
		return engine.Scenario{}, err
	}
	return sc, nil
}

// ErrTooLarge is DecodeScenario's error for a document over its limit
// (TooLarge names both limits).
var ErrTooLarge = errors.New("the scenario is too large")

// TooLarge is the error for a shared document over its limit: it names both.
func TooLarge() error {
	return fmt.Errorf("%w: the limit is %d bytes (%d, %s, for one that replays a trace)",
		ErrTooLarge, engine.MaxScenarioBytes, MaxTraceShareBytes, Size(MaxTraceShareBytes))
}

// Size writes a byte count as people read it: "4 MiB", "80 KiB", "512 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", (n+512)>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
