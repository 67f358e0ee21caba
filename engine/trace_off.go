//go:build notrace

package engine

import "schedplay/kerneltrace"

// The engine without the trace replay, for the page's wasm builds (the
// notrace tag, internal/wasmbuild): the page has no way to open a trace yet,
// and the replay would take the policy worker over its size budget (e2e
// TestBundleBudget). A scenario of workload.kind=trace is refused by name.

type traceWorkload struct{ idleWorkload }

func newTraceWorkload(s *Sim) *traceWorkload { return &traceWorkload{} }

func traceShell(s *Sim) *traceWorkload { return &traceWorkload{} }

func checkTraceModel(*kerneltrace.Model) error {
	return fieldErr("workload.kind", "%q: this build of the engine (the page's) does not replay traces: run it with the CLI, schedplay run TRACE", WorkloadTrace)
}

func (w *traceWorkload) results(*Sim) TraceResults { return TraceResults{} }

func (w *traceWorkload) switchedIn(s *Sim, t *thread, c int, overheadNs int64) {}
