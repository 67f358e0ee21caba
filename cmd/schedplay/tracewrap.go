package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/kerneltrace"
)

// A recorded Linux trace may be given where a scenario is expected:
// "schedplay run trace.perfetto". A Perfetto protobuf, ftrace text (tracefs,
// trace-cmd report, systrace, perf script) or trace.dat file is one when
// kerneltrace.Detect names its format, as rtapp.Detect tells rt-app files from
// scenarios. kerneltrace reads it and builds its replay model (the window
// and processes of --window and --process), and the model is set on a
// scenario with workload.kind=trace (engine/trace_scenario.go); --set applies
// to that scenario. The wrapper's defaults are engine.DefaultScenario's except:
//
//   - machine.vcpus: the trace's CPU count (--set machine.vcpus=N replays the
//     same work on another machine);
//   - machine.platform native and sched.policy linux: the trace is of a Linux
//     machine, not a guest;
//   - workload.wake_sources_per_s 0: the trace holds the machine's own
//     interrupts' wakeups and kernel threads already;
//   - warmup_ms 0: the figures cover the whole replay;
//   - duration_ms: twice the window and 100 ms more, up to the CLI's limit,
//     so a slower schedule still finishes; the run ends when every thread
//     has run its segments.
//
// The model is set on the decoded scenario rather than written into its
// document, since a trace's model may be larger than a scenario document
// may be (engine.MaxScenarioBytes).

// maxTraceFileBytes bounds a trace the CLI reads whole (from stdin, which
// cannot be read twice); a trace file is streamed (kerneltrace.ReadModel),
// whatever its size.
const maxTraceFileBytes = kerneltrace.MaxInflatedBytes

// traceOpts are run's flags that shape the model: the window (ms from the
// trace's first event) and the processes kept.
type traceOpts struct {
	window    string
	processes stringList
}

// looksTrace says data (or its first bytes) is a kernel trace, not a
// scenario or an rt-app file (those are JSON objects; a Chrome JSON trace is
// one too, told apart by its systemTraceEvents).
func looksTrace(data []byte) bool {
	f := kerneltrace.Detect(data)
	if f == kerneltrace.FormatUnknown {
		return false
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) == 0 || trimmed[0] != '{' || f == kerneltrace.FormatChrome
}

// options turns the flags into kerneltrace.Options, the window counted
// from the trace's first event; errors name the flag.
func (o traceOpts) options() (kerneltrace.Options, error) {
	opts := kerneltrace.Options{FromFirst: true}
	if o.window != "" {
		from, to, ok := strings.Cut(o.window, ":")
		f, err1 := strconv.ParseFloat(strings.TrimSpace(from), 64)
		t, err2 := strconv.ParseFloat(strings.TrimSpace(to), 64)
		if !ok || err1 != nil || err2 != nil || f < 0 || t <= f || math.IsInf(t, 0) || t > 1e9 {
			return opts, fmt.Errorf("--window %q: want FROM:TO in ms from the trace's first event, 0 <= FROM < TO (e.g. 100:350)", o.window)
		}
		opts.StartNs = int64(f * 1e6)
		opts.EndNs = int64(t * 1e6)
	}
	for _, p := range o.processes {
		if pid, err := strconv.ParseInt(p, 10, 32); err == nil && pid > 0 {
			opts.Pids = append(opts.Pids, int32(pid))
		} else {
			opts.Names = append(opts.Names, p)
		}
	}
	// Cut stretches are kept: a thread already running when the window
	// opens runs its observed run, so the recorded CPU time is all replayed.
	opts.KeepCut = true
	return opts, nil
}

// decodeTrace reads the trace data, builds its model and returns the
// scenario that replays it, sets applied.
func decodeTrace(data []byte, label string, o traceOpts, sets []string) (engine.Scenario, error) {
	return traceScenario(bytes.NewReader(data), int64(len(data)), label, o, sets)
}

// decodeTraceFile is decodeTrace of a file, streamed from disk: memory holds
// the model, not the file.
func decodeTraceFile(path, label string, o traceOpts, sets []string) (engine.Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return engine.Scenario{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return engine.Scenario{}, err
	}
	return traceScenario(f, st.Size(), label, o, sets)
}

func traceScenario(r io.ReaderAt, size int64, label string, o traceOpts, sets []string) (engine.Scenario, error) {
	opts, err := o.options()
	if err != nil {
		return engine.Scenario{}, err
	}
	m, sum, err := kerneltrace.ReadModel(r, size, opts)
	if err != nil {
		return engine.Scenario{}, fmt.Errorf("%s: %w", label, err)
	}
	if len(m.Threads) == 0 {
		what := "no thread runs in it"
		if len(o.processes) > 0 {
			what = fmt.Sprintf("no process matches --process %s", strings.Join(o.processes, ", "))
		}
		return engine.Scenario{}, fmt.Errorf("%s: nothing to replay: %s (%d events read)", label, what, sum.Events)
	}
	if m.CPUs < 1 || m.CPUs > engine.MaxVCPUs {
		return engine.Scenario{}, fmt.Errorf("%s: the trace has %d CPUs; the engine runs 1 to %d: --set machine.vcpus=N replays it on N", label, m.CPUs, engine.MaxVCPUs)
	}
	sc := engine.DefaultScenario()
	sc.Name = strings.TrimSuffix(path.Base(label), path.Ext(label))
	sc.Description = fmt.Sprintf("trace %s (%s, %d CPUs, %d threads)", label, sum.Format, m.CPUs, len(m.Threads))
	sc.Machine.VCPUs = m.CPUs
	sc.Sched.Policy = "linux"
	sc.WarmupMs = 0
	sc.Workload.WakeSourcesPerS = 0
	winMs := (m.EndNs - m.StartNs + 999_999) / 1_000_000
	sc.DurationMs = min(2*winMs+100, engine.MaxCLIDurationMs)
	doc, err := json.Marshal(sc)
	if err != nil {
		return engine.Scenario{}, fmt.Errorf("wrapping the trace: %w", err)
	}
	if sc, err = engine.DecodeScenarioUpTo(engine.MaxCLIDurationMs, doc); err == nil {
		// A knob, so that the platform's costs come with it (WithKnobs).
		sc, err = sc.WithKnobs(append([]string{"machine.platform=native"}, sets...)...)
	}
	if err != nil {
		return engine.Scenario{}, fmt.Errorf("%s: %w", label, err)
	}
	sc.Workload.Kind, sc.Workload.Trace = engine.WorkloadTrace, *m
	if err := sc.Validate(); err != nil {
		return engine.Scenario{}, fmt.Errorf("%s: %w", label, err)
	}
	return sc, nil
}

// readSource reads a scenario, rt-app file or trace from r: at most one byte
// more than a scenario may hold, unless those bytes start a trace, which is
// read on up to maxTraceFileBytes. So an endless stdin or a huge file that is
// no trace is refused by DecodeScenario's size check without being read whole.
func readSource(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, engine.MaxScenarioBytes+1))
	if err != nil || len(data) <= engine.MaxScenarioBytes || !looksTrace(data) {
		return data, err
	}
	rest, err := io.ReadAll(io.LimitReader(r, maxTraceFileBytes+1-int64(len(data))))
	if err != nil {
		return nil, err
	}
	data = append(data, rest...)
	if len(data) > maxTraceFileBytes {
		return nil, fmt.Errorf("the trace is larger than the limit of %d bytes: record a shorter one, or cut a window of it first", int64(maxTraceFileBytes))
	}
	return data, nil
}
