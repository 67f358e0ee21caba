package trace

// The writer: turning the engine's visual-event stream into CPU tracks of
// slices, instants and the completion counter, within the written window.

import (
	"bufio"
	"fmt"
	"io"

	"schedplay/engine"
)

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
	tw.endFlows(end)
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
