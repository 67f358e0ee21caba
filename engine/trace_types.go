package engine

import "schedplay/kerneltrace"

// What the engine knows of workload.kind=trace: its name, its limits and its
// results (trace_workload.go and the files beside it replay it).

// WorkloadTrace is the kind that replays workload.trace.
const WorkloadTrace = "trace"

// Limits of a trace's model: threads (each an engine thread, created at the
// start), segments in all, and one run or sleep (an hour: the CLI's horizon).
const (
	MaxTraceThreads  = 4096
	MaxTraceSegments = 4 << 20
	maxTraceNs       = MaxCLIDurationMs * 1_000_000
)

// TraceResults are workload.kind=trace's figures.
type TraceResults struct {
	// CPUs is the recorded machine's CPU count (the replay's is the
	// scenario's machine.vcpus).
	CPUs int `json:"cpus"`
	// AllTimed says every wakeup was replayed as a timed sleep
	// (workload.trace_all_timed).
	AllTimed bool `json:"all_timed,omitzero"`
	// Unfinished counts threads not done when the run ended: still running
	// their segments, or waiting for a wakeup, at the horizon.
	Unfinished int                  `json:"unfinished"`
	Threads    []TraceThreadResult  `json:"threads"`
	Processes  []TraceProcessResult `json:"processes"`
	// Counts are what building the model cut, ignored or made timers of.
	Counts kerneltrace.Counts `json:"counts"`
}

// TraceThreadResult is one thread: its tid (and generation, when the trace
// reused the tid), its process, and its figures as recorded and as replayed.
type TraceThreadResult struct {
	Name     string              `json:"name"`
	Tid      int32               `json:"tid"`
	Gen      int32               `json:"gen,omitzero"`
	Pid      int32               `json:"pid"`
	Recorded kerneltrace.Figures `json:"recorded"`
	Replayed kerneltrace.Figures `json:"replayed"`
	// Done says the replay ran all of its segments.
	Done bool `json:"done"`
}

// TraceProcessResult sums a process's threads.
type TraceProcessResult struct {
	Name     string              `json:"name"`
	Pid      int32               `json:"pid"`
	Threads  int                 `json:"threads"`
	Recorded kerneltrace.Figures `json:"recorded"`
	Replayed kerneltrace.Figures `json:"replayed"`
}

// results reads the figures at the current time. Results are per run, not
// per measured window: a trace is replayed whole.
