package runner

// Trace jobs: the page's "download trace" asks a worker of its own (the engine
// worker's program in its trace mode, see wasm/worker) for a Chrome trace of one
// arm's window. The worker re-runs the arm's scenario from time zero, which the
// engine's determinism makes the same run the page shows, and writes the window
// with package trace exactly as `schedplay run --trace` does. A re-run, rather
// than a trace taken from the arm's live simulation, because a trace writer must
// follow the run from its start (which IPIs are in flight, what each CPU runs)
// and the live simulation is already past the window.

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"schedplay/engine"
	"schedplay/trace"
)

// opTraceJob opens a trace job message (distinct from the command opcodes, so a
// job sent to an engine worker is refused as an unknown command, not misread).
const opTraceJob byte = 0x54

// TraceJob is one arm's window to trace.
type TraceJob struct {
	Scenario engine.Scenario
	// StartNs and UntilNs bound the window [StartNs, UntilNs) of simulated time.
	StartNs, UntilNs int64
}

// EncodeTraceJob writes j as the message the page posts to the worker that runs the trace job.
func EncodeTraceJob(j TraceJob) []byte {
	b := []byte{opTraceJob}
	b = appendValue(b, reflect.ValueOf(j.Scenario))
	return appendVarints(b, j.StartNs, j.UntilNs)
}

// DecodeTraceJob reads a message EncodeTraceJob wrote; a damaged one is an
// error, never a panic.
func DecodeTraceJob(msg []byte) (TraceJob, error) {
	r := reader{b: msg}
	if op := r.byte(); op != opTraceJob {
		return TraceJob{}, fmt.Errorf("runner: not a trace job (opcode %d)", op)
	}
	var j TraceJob
	readValue(&r, reflect.ValueOf(&j.Scenario).Elem())
	j.StartNs, j.UntilNs = r.varint(), r.varint()
	if r.err == nil && r.more() {
		r.fail("a trace job has bytes after its end")
	}
	return j, r.err
}

// WriteTrace runs the job's scenario from time zero and writes the window to w
// as Chrome trace-event JSON (trace.WindowOptions: what `schedplay run --trace`
// writes for the same window). compile compiles a sched_ext policy's source
// (the policy worker's; nil in the default worker, which refuses one).
// progress, if not nil, hears how far the run has come, from 0 to 1.
func WriteTrace(w io.Writer, j TraceJob, compile engine.ScxCompiler, progress func(done float64)) (trace.Stats, error) {
	if j.StartNs < 0 || j.UntilNs <= j.StartNs {
		return trace.Stats{}, fmt.Errorf("runner: the trace window [%d, %d) ns is empty", j.StartNs, j.UntilNs)
	}
	sim, err := engine.NewSimScx(j.Scenario, compile)
	if err != nil {
		return trace.Stats{}, errors.New("the engine refused this scenario: " + err.Error())
	}
	opts := trace.WindowOptions(j.StartNs, j.UntilNs)
	if progress != nil {
		opts.Progress = func(nowNs int64) { progress(float64(nowNs) / float64(j.UntilNs)) }
	}
	return trace.Write(w, sim, opts)
}

// RunsPolicy reports whether the job's arm runs a sched_ext policy of its own
// (sched.policy=scx with a source), which only the policy worker can.
func (j TraceJob) RunsPolicy() bool {
	return j.Scenario.Sched.Policy == "scx" && j.Scenario.Sched.Scx.Source != ""
}
