// Package trace exports a schedplay simulation as Chrome trace-event JSON, the
// format that Perfetto UI (ui.perfetto.dev, its legacy JSON importer) and
// chrome://tracing open, and (WritePerfetto, perfetto.go) as Perfetto's own
// protobuf, shaped like a Linux recording so that Perfetto's scheduling
// views and kerneltrace read it.
//
// Write attaches to an engine.Sim, runs it, and streams one event per line as the
// simulation produces them, so memory stays bounded whatever the run's length: per
// CPU only the open slice and per IPI in flight one small record are kept.
//
// # What the trace shows
//
// One process, "vCPUs" (pid 1), with one track per CPU: thread id N+1 is named
// "vCPU N" and sorted by N (thread_sort_index; older Perfetto builds ignore it
// and order by thread id, which gives the same order). On each track:
//
//   - slices ("B"/"E") for what the CPU does: the running thread, named by thread
//     name and id ("backend #41", args role and pinned, category "thread"), or the
//     idle loop's states "spin", "halt", "waking" and "irq" (category "idle");
//   - IPIs as flow arrows from the sender's track at send time to the target's
//     track at arrival, named and categorised by kind (name "wakeup", "pull" or
//     "donate", category "ipi.wakeup" ...);
//   - decisions as thread-scoped instants ("ph":"i", "s":"t") on the deciding
//     CPU's track: name = decision kind ("ipi_suppressed"), args reason, target,
//     thread and value;
//   - migrations as instants named "migrate" on the source CPU's track.
//
// IPIs and decisions made outside any vCPU (a wake from the network or a device:
// CPU -1) go on one more track, "external", after the vCPUs. With
// Options.CompletionBucketNs > 0 a counter track ("ph":"C") counts completed
// requests per bucket.
//
// # Choices that make Perfetto draw it right
//
// Slices are written as "B"/"E" pairs, not "X" events: B is written when a slice
// starts and E when it ends, so the whole file is in time order as the simulation
// produces it, without holding events back. Perfetto binds a v1 flow event to the
// topmost slice open on its track and draws an arrow from the end of the outgoing
// slice to the start of the incoming one; binding to a long thread slice would
// draw the arrow at the wrong time, so every flow end ("f", "bp":"e") follows an
// arrival instant on the target's track ("wakeup IPI") and every flow start ("s")
// follows an instant on the sender's track at the send time (the decision that
// sent it, or a "send wakeup IPI" instant when decisions are left out). Events hold no
// JSON arrays (Perfetto's tokenizer rejects an event dictionary that contains
// one). "displayTimeUnit" ("ns": chrome://tracing shows nanoseconds) is written
// after "traceEvents": some older Perfetto versions rescaled timestamps by it when
// it came first; current ones ignore it.
//
// Timestamps ("ts") are microseconds with three decimals, so nanosecond times are
// exact; Perfetto parses them without floating-point rounding.
//
// # Encoding
//
// Events are appended by hand into a bufio.Writer's buffer (strconv for numbers,
// jsontext.AppendQuote from github.com/go-json-experiment/json for every string
// value, quoted once and cached: thread labels, kinds and reasons are few). The
// schema is fixed and flat, a busy 32-vCPU run makes ~3,000 events per simulated
// millisecond, and a jsontext.Encoder, which checks the grammar token by token,
// costs about 6x more per event (BenchmarkEncode: ~0.2 us appended vs ~1.2 us
// for a decision instant); the tests parse every trace they make with
// go-json-experiment and check its shape instead.
//
// # Size
//
// Measured on the 32-vCPU pull scenario (examples/tpcb-32vcpu.json with
// workload.clients=64, sched.wake_pull=true, warmup_ms=0), in 50 ms windows of
// its busy steady state (3 seeds x 6 windows from 20 ms after the last client
// connects): 307-346 KB per simulated millisecond with everything on, 226-259
// KB without decisions (a decision instant is ~200 bytes, most of it the
// reason). The documented bound is BytesPerSimMsBound = 400 KB per simulated
// millisecond, checked by TestSizeBound on such a window. The scenario's first
// 128 ms are the clients connecting one every 2 ms, nearly idle: a trace of
// [0, 50 ms) is ~1.2 KB/ms. A whole 14 s run would be ~4.5 GB: use
// Options.StartNs/UntilNs (a window) or Options.MaxBytes.
package trace

import (
	"errors"
	"fmt"
	"io"

	"schedplay/engine"
)

// BytesPerSimMsBound is the documented size bound of a full trace (decisions,
// migrations, IPIs and the completion counter on) of the 32-vCPU pull scenario
// in its busy steady state, in bytes per simulated millisecond (measured
// 307-346 KB; see the package doc). TestSizeBound checks it.
const BytesPerSimMsBound = 400_000

// Options limit what Write writes.
type Options struct {
	// StartNs and UntilNs bound the written window [StartNs, UntilNs) of simulated
	// time. UntilNs 0 means the simulation's horizon. The simulation runs from where
	// it is to UntilNs; before StartNs its state is followed but nothing is written.
	StartNs, UntilNs int64
	// NoDecisions leaves out the decision instants, NoMigrations the migration
	// instants (IPIs and slices stay).
	NoDecisions, NoMigrations bool
	// CompletionBucketNs > 0 adds a counter track of completed requests per bucket
	// of that width (at least 1000 ns).
	CompletionBucketNs int64
	// MaxBytes > 0 ends the trace cleanly (every slice closed, every flow
	// finished) at the simulated time when the output first exceeds MaxBytes; the
	// simulation is left at that time (the file can exceed MaxBytes by a few events).
	MaxBytes int64
	// Progress, when set, is called with the simulated time after every simulated
	// millisecond Write runs, so a caller can show how far a long run towards the
	// window has come (the playground's trace download re-runs from time zero).
	Progress func(nowNs int64)
}

// WindowOptions are the options of a trace of the window [startNs, untilNs) as
// `schedplay run --trace` writes it and the playground downloads it: everything
// (slices, IPIs, decisions, migrations) and the completed-requests counter per
// simulated millisecond. One function, so the two files are the same.
func WindowOptions(startNs, untilNs int64) Options {
	return Options{StartNs: startNs, UntilNs: untilNs, CompletionBucketNs: 1_000_000}
}

// Stats describe a written trace.
type Stats struct {
	// StartNs and EndNs are the simulated window actually written.
	StartNs, EndNs int64
	// Bytes is the size of the output; Events the number of trace events.
	Bytes, Events int64
	// Slices, Flows, Decisions and Migrations count what was written.
	Slices, Flows, Decisions, Migrations int64
	// DroppedFlows counts IPIs in the window drawn without an arrow because their
	// send or their arrival falls outside it.
	DroppedFlows int64
	// Truncated says that MaxBytes ended the trace before UntilNs.
	Truncated bool
}

// Write runs sim from its current time to opts.UntilNs (or its horizon) and
// writes the window [opts.StartNs, opts.UntilNs) to w as Chrome trace-event JSON.
// It takes over sim.Observe for the duration of the call and clears it after.
// After Write, sim.Results() gives the run's metrics if it reached its horizon.
func Write(w io.Writer, sim *engine.Sim, opts Options) (Stats, error) {
	start, until, err := window(sim, opts)
	if err != nil {
		return Stats{}, err
	}
	tw := newWriter(w, sim, opts, start, until)
	sim.Observe(tw.observe)
	defer sim.Observe(nil)

	tw.header()
	runChunks(sim, until, opts.Progress, &tw.stopped)
	end := sim.NowNs()
	if tw.stopped {
		end = tw.stopNs
	}
	tw.finish(end)
	return tw.stats, tw.err
}

// runChunks runs sim to until a simulated millisecond at a time, calling
// progress after each, so that a trace cut short (MaxBytes, a write error:
// *stopped) also stops the run. Both writers run this way.
func runChunks(sim *engine.Sim, until int64, progress func(int64), stopped *bool) {
	const chunkNs = 1_000_000
	for !*stopped && sim.NowNs() < until {
		sim.RunUntil(min(sim.NowNs()+chunkNs, until))
		if progress != nil {
			progress(sim.NowNs())
		}
	}
}

// window checks sim and opts and returns the written window.
func window(sim *engine.Sim, opts Options) (start, until int64, err error) {
	if sim == nil {
		return 0, 0, errors.New("trace: sim is nil")
	}
	now, end := sim.NowNs(), sim.EndNs()
	switch {
	case opts.StartNs < 0:
		return 0, 0, fmt.Errorf("trace: Options.StartNs is %d, must be >= 0", opts.StartNs)
	case opts.UntilNs < 0:
		return 0, 0, fmt.Errorf("trace: Options.UntilNs is %d, must be >= 0 (0: the horizon)", opts.UntilNs)
	case opts.CompletionBucketNs < 0 || (opts.CompletionBucketNs > 0 && opts.CompletionBucketNs < 1000):
		return 0, 0, fmt.Errorf("trace: Options.CompletionBucketNs is %d, must be 0 (off) or >= 1000", opts.CompletionBucketNs)
	case opts.MaxBytes < 0:
		return 0, 0, fmt.Errorf("trace: Options.MaxBytes is %d, must be >= 0 (0: no limit)", opts.MaxBytes)
	}
	until = end
	if opts.UntilNs > 0 {
		until = min(opts.UntilNs, end)
	}
	start = max(opts.StartNs, now)
	if start >= until {
		return 0, 0, fmt.Errorf("trace: empty window: Options.StartNs %d (simulation now at %d) is not before Options.UntilNs %d (horizon %d)",
			opts.StartNs, now, opts.UntilNs, end)
	}
	return start, until, nil
}
