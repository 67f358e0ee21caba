// Package trace exports a schedplay simulation as Chrome trace-event JSON, the
// format that Perfetto UI (ui.perfetto.dev, its legacy JSON importer) and
// chrome://tracing open.
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
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

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
	if sim == nil {
		return Stats{}, errors.New("trace: sim is nil")
	}
	start, until, err := window(sim, opts)
	if err != nil {
		return Stats{}, err
	}
	tw := newWriter(w, sim, opts, start, until)
	sim.Observe(tw.observe)
	defer sim.Observe(nil)

	tw.header()
	// Run in chunks so that a trace cut short (MaxBytes, a write error) also stops
	// the run.
	const chunkNs = 1_000_000
	for !tw.stopped && sim.NowNs() < until {
		sim.RunUntil(min(sim.NowNs()+chunkNs, until))
	}
	end := sim.NowNs()
	if tw.stopped {
		end = tw.stopNs
	}
	tw.finish(end)
	return tw.stats, tw.err
}

// window checks opts against sim and returns the written window.
func window(sim *engine.Sim, opts Options) (start, until int64, err error) {
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

// slice is what a CPU track shows: a CPU state and, when running, the thread.
type slice struct {
	state  engine.CPUState
	thread int32
}

// track is one CPU's (or the external) track.
type track struct {
	tid int
	cur slice
	// start is when cur began; open says B has been written for it. A slice that
	// begins is written lazily, when time moves past its start or something is
	// written inside it, so that a slice that ends where it began is never written.
	start   int64
	open    bool
	pending bool
	// anchorTs is the time of the last instant written on the track when that
	// instant is the last event on it (Perfetto binds a flow start to it), else -1.
	anchorTs int64
}

// pend is an IPI in flight; flow is its flow id, 0 when no "s" was written.
type pend struct {
	flow   uint64
	from   int32
	thread int32
}

// writer turns the visual-event stream into trace events.
type writer struct {
	bw   *bufio.Writer
	sim  *engine.Sim
	opts Options
	err  error

	start, until int64
	begun        bool // the window has started: events are written
	stopped      bool // MaxBytes reached: nothing more is written
	stopNs       int64
	lastNs       int64 // time of the last event seen (pending slices older are flushed)

	tracks   []track // CPU n at n; the external track last
	pendingB []int   // tracks whose slice begin is not yet written
	// inflight holds the IPIs on their way, FIFO per target CPU and kind (the
	// engine reports an arrival by target and kind only).
	inflight map[ipiKey][]pend
	nextFlow uint64
	ipiText  map[engine.IPIKind]*ipiText

	bucketEnd   int64
	bucketCount int64
	lastCount   int64 // the counter's last written value (-1: none yet)
	counterKey  []byte

	labels [][]byte          // per thread: quoted "name #id"
	sargs  [][]byte          // per thread: the slice's name and args members
	quotes map[string][]byte // quoted constant strings (reasons, kinds)

	stats Stats
}

func newWriter(w io.Writer, sim *engine.Sim, opts Options, start, until int64) *writer {
	n := sim.NumCPUs()
	tw := &writer{
		bw:        bufio.NewWriterSize(w, 64<<10),
		sim:       sim,
		opts:      opts,
		start:     start,
		until:     until,
		lastNs:    sim.NowNs(),
		tracks:    make([]track, n+1),
		inflight:  make(map[ipiKey][]pend),
		ipiText:   make(map[engine.IPIKind]*ipiText),
		quotes:    make(map[string][]byte),
		lastCount: -1,
	}
	// The state every CPU is in now (events before Observe was set are not seen).
	var snap engine.Snapshot
	sim.Snapshot(&snap)
	for i := range tw.tracks {
		t := &tw.tracks[i]
		t.tid = i + 1
		t.anchorTs = -1
		if i < n {
			c := snap.CPUs[i]
			t.cur = slice{state: c.State, thread: -1}
			if c.State == engine.CPURunning {
				t.cur.thread = int32(c.Running)
			}
		}
	}
	if b := opts.CompletionBucketNs; b > 0 {
		tw.bucketEnd = start + b
		tw.counterKey = fmt.Appendf(nil, `"per_%gus"`, float64(b)/1000)
	}
	return tw
}

// ipiKey identifies an IPI queue: target CPU and kind.
type ipiKey struct {
	to   int32
	kind engine.IPIKind
}

func (tw *writer) ext() int { return len(tw.tracks) - 1 }

// trackOf returns the track index of a CPU (-1 or out of range: external).
func (tw *writer) trackOf(cpu int32) int {
	if cpu < 0 || int(cpu) >= tw.ext() {
		return tw.ext()
	}
	return int(cpu)
}

// observe is the engine.Sim observer: every visual event, in order.
func (tw *writer) observe(e engine.VisEvent) {
	if tw.stopped {
		return
	}
	if !tw.begun && e.AtNs >= tw.start {
		tw.begin()
	}
	if tw.begun {
		if e.AtNs > tw.lastNs {
			tw.flushPending()
			tw.advanceBuckets(e.AtNs)
		}
	}
	tw.lastNs = e.AtNs
	switch e.Kind {
	case engine.VisState:
		st := engine.CPUState(e.Arg)
		th := int32(-1)
		if st == engine.CPURunning {
			th = e.Thread
		}
		tw.setSlice(int(e.CPU), slice{state: st, thread: th}, e.AtNs)
	case engine.VisRun:
		tw.setSlice(int(e.CPU), slice{state: engine.CPURunning, thread: e.Thread}, e.AtNs)
	case engine.VisIPISend:
		tw.ipiSend(e)
	case engine.VisIPIArrive:
		tw.ipiArrive(e)
	case engine.VisDecision:
		if tw.begun && !tw.opts.NoDecisions {
			tw.decision(tw.sim.DecisionAt(int(e.Arg)))
		}
	case engine.VisMigrate:
		if tw.begun && !tw.opts.NoMigrations {
			tw.migrate(e)
		}
	case engine.VisComplete:
		if tw.begun {
			tw.bucketCount++
		}
	}
	if tw.begun && tw.opts.MaxBytes > 0 && tw.stats.Bytes > tw.opts.MaxBytes {
		tw.stopped = true
		tw.stopNs = e.AtNs
		tw.stats.Truncated = true
	}
}

// begin starts the window: every CPU's current slice begins at the window start.
func (tw *writer) begin() {
	tw.begun = true
	tw.lastNs = tw.start
	for i := range tw.ext() {
		tw.tracks[i].start = tw.start
		tw.markPending(i)
	}
}

func (tw *writer) markPending(i int) {
	tw.tracks[i].pending = true
	tw.pendingB = append(tw.pendingB, i)
}

// flushPending writes the begin of every slice that began before now.
func (tw *writer) flushPending() {
	for _, i := range tw.pendingB {
		if t := &tw.tracks[i]; t.pending {
			tw.writeBegin(t)
		}
	}
	tw.pendingB = tw.pendingB[:0]
}

// setSlice makes CPU cpu show s from time at.
func (tw *writer) setSlice(cpu int, s slice, at int64) {
	if cpu < 0 || cpu >= tw.ext() {
		return
	}
	t := &tw.tracks[cpu]
	if t.cur == s {
		return
	}
	t.cur = s
	if !tw.begun {
		return
	}
	switch {
	case t.pending:
		// Began at this same instant with nothing inside: never written.
	case t.open:
		tw.writeEnd(t, at)
	}
	t.start = at
	tw.markPending(cpu)
}

// ensureOpen writes a pending slice begin before something is written inside it.
func (tw *writer) ensureOpen(t *track) {
	if t.pending {
		tw.writeBegin(t)
	}
}

// ipiSend handles an IPI leaving CPU e.CPU for e.Other.
func (tw *writer) ipiSend(e engine.VisEvent) {
	if e.Other < 0 || int(e.Other) >= tw.ext() {
		return
	}
	p := pend{from: e.CPU, thread: e.Thread}
	arrive := e.AtNs + int64(e.Arg)
	if tw.begun && arrive < tw.until {
		tw.nextFlow++
		p.flow = tw.nextFlow
		t := &tw.tracks[tw.trackOf(e.CPU)]
		tw.ensureOpen(t)
		if t.anchorTs != e.AtNs {
			tw.sendInstant(t, e)
		}
		tw.flowEvent(t, 's', e.AtNs, p.flow, e.IPI)
		tw.stats.Flows++
	} else if tw.begun {
		tw.stats.DroppedFlows++
	}
	q := ipiKey{e.Other, e.IPI}
	tw.inflight[q] = append(tw.inflight[q], p)
}

// ipiArrive handles an IPI reaching CPU e.Other (matched FIFO per target and kind).
func (tw *writer) ipiArrive(e engine.VisEvent) {
	to := int(e.Other)
	if to < 0 || to >= tw.ext() {
		return
	}
	q := ipiKey{e.Other, e.IPI}
	p := pend{from: -1, thread: -1}
	if l := tw.inflight[q]; len(l) > 0 {
		p = l[0]
		copy(l, l[1:])
		tw.inflight[q] = l[:len(l)-1]
	}
	if !tw.begun {
		return
	}
	t := &tw.tracks[to]
	tw.ensureOpen(t)
	tw.arriveInstant(t, e.AtNs, e.IPI, p, false)
	if p.flow != 0 {
		tw.flowEvent(t, 'f', e.AtNs, p.flow, e.IPI)
	} else {
		tw.stats.DroppedFlows++
	}
}

// advanceBuckets writes the completion counter for every bucket that ended by now.
func (tw *writer) advanceBuckets(now int64) {
	b := tw.opts.CompletionBucketNs
	if b == 0 || now < tw.bucketEnd {
		return
	}
	tw.counter(tw.bucketEnd-b, tw.bucketCount)
	tw.bucketCount = 0
	tw.bucketEnd += b
	if now >= tw.bucketEnd {
		// Empty buckets: one zero sample, then skip to the bucket holding now.
		tw.counter(tw.bucketEnd-b, 0)
		tw.bucketEnd += (now - tw.bucketEnd) / b * b
		tw.bucketEnd += b
	}
}

// finish ends the window at end: flows still in flight end there, every open
// slice ends there, and the JSON document is closed.
func (tw *writer) finish(end int64) {
	if !tw.begun {
		tw.begin()
	}
	// Slices that began before end are written; ones that began at end are empty.
	for _, i := range tw.pendingB {
		if t := &tw.tracks[i]; t.pending && t.start < end {
			tw.writeBegin(t)
		}
		tw.tracks[i].pending = false
	}
	tw.pendingB = tw.pendingB[:0]
	tw.lastNs = end
	if b := tw.opts.CompletionBucketNs; b > 0 {
		tw.advanceBuckets(end)
		if end > tw.bucketEnd-b {
			tw.counter(tw.bucketEnd-b, tw.bucketCount)
		}
	}
	// The engine delivers an IPI exactly Arg after its send, and sends that arrive
	// after the window get no arrow, so flows still open here come from a MaxBytes
	// cut (or an engine that changed): end them at the end, keeping the invariant
	// that every flow start has its end. In flow id order, for a stable output.
	type flight struct {
		key ipiKey
		p   pend
	}
	var open []flight
	for q, l := range tw.inflight {
		for _, p := range l {
			if p.flow != 0 {
				open = append(open, flight{q, p})
			}
		}
	}
	slices.SortFunc(open, func(a, b flight) int { return cmp.Compare(a.p.flow, b.p.flow) })
	for _, f := range open {
		t := &tw.tracks[f.key.to]
		tw.ensureOpen(t)
		tw.arriveInstant(t, end, f.key.kind, f.p, true)
		tw.flowEvent(t, 'f', end, f.p.flow, f.key.kind)
	}
	clear(tw.inflight)
	for i := range tw.ext() {
		if t := &tw.tracks[i]; t.open {
			tw.writeEnd(t, end)
		}
	}
	tw.stats.StartNs, tw.stats.EndNs = tw.start, end
	tw.trailer(end)
	if err := tw.bw.Flush(); err != nil && tw.err == nil {
		tw.err = fmt.Errorf("trace: writing: %w", err)
	}
}
