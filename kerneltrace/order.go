package kerneltrace

// Putting a streamed trace's events in time order without holding them
// all. Trace.finish sorts every event by (Ts, CPU), stably; a stream must
// hand the builder the same sequence while holding only the events that a
// later one could still precede. A source's lateness L is the most any
// event's time lies below the latest time read before it: then an event
// more than L before the latest time read can be released, since no later
// one can precede it. Text is in time order (L 0); Perfetto writes each
// CPU's buffer in turn, so L is about one read period; trace.dat keeps
// each CPU's pages apart, so each CPU is a source of its own (L 0) and a
// merge joins them (merge).
//
// L is known only once the file is read. The first pass guesses it from
// what it has read so far (twice the lateness seen, after a first
// stretch of events held) and checks its own output: if an event arrives
// that precedes one already released, the guess was wrong and the second
// pass uses the measured L (stream.go).

import (
	"cmp"
	"errors"
	"io"
)

// chunkSource yields a trace's events in file order, a few at a time (a
// text line, a Perfetto packet, a trace.dat page).
type chunkSource interface {
	// more appends the next events to buf; io.EOF (with the last events,
	// or none) at the end.
	more(buf []Event) ([]Event, error)
}

// eventStream yields events in (Ts, CPU) order; the event is valid until
// the next call.
type eventStream interface {
	next() (*Event, error)
}

// learnHold is how many events the first pass holds before it releases
// any, to see a Perfetto source's lateness first: a few MB. Text and a
// trace.dat CPU are in order as written, so they hold none.
const learnHold = 1 << 15

type heldKey struct {
	ts   int64
	cpu  int32
	slot int32
	seq  uint64
}

func keyLess(a, b heldKey) bool {
	if c := cmp.Compare(a.ts, b.ts); c != 0 {
		return c < 0
	}
	if a.cpu != b.cpu {
		return a.cpu < b.cpu
	}
	return a.seq < b.seq
}

// heldHeap is a min-heap by keyLess, written out rather than through
// container/heap, whose any-typed Push and Pop would allocate per event.
type heldHeap []heldKey

func (h *heldHeap) push(k heldKey) {
	*h = append(*h, k)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !keyLess(a[i], a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *heldHeap) pop() heldKey {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < n && keyLess(a[l], a[small]) {
			small = l
		}
		if r := l + 1; r < n && keyLess(a[r], a[small]) {
			small = r
		}
		if small == i {
			break
		}
		a[i], a[small] = a[small], a[i]
		i = small
	}
	*h = a
	return top
}

// orderer releases one source's events in (Ts, CPU) order.
type orderer struct {
	src   chunkSource
	chunk []Event
	pos   int
	eof   bool
	held  heldHeap
	slots []Event // held events, by heldKey.slot
	free  []int32
	seq   uint64
	out   Event
	// late is the lateness allowed; learn makes it grow with what is seen
	// (first pass) instead of being the measured one (second pass).
	late  int64
	learn bool
	hold  int // events held before the first release, when learning
	maxTs int64
	read  bool // an event was read: maxTs is set
	// last is the last event released; disorder is set when a later one
	// precedes it (the guess of late was short); orderers of one trace
	// share it.
	last     heldKey
	released bool
	disorder *bool
	// maxLate is the lateness seen; maxHeld the most events held at once.
	maxLate int64
	maxHeld int
	// seen is told of each event as it is read, in file order.
	seen func(*Event)
}

func newOrderer(src chunkSource, late int64, learn bool, hold int, seen func(*Event), disorder *bool) *orderer {
	return &orderer{src: src, late: late, learn: learn, hold: hold, seen: seen, disorder: disorder}
}

// ready says the earliest held event can go.
func (o *orderer) ready() bool {
	if len(o.held) == 0 {
		return false
	}
	if o.eof {
		return true
	}
	if o.learn && !o.released && len(o.held) < o.hold {
		return false
	}
	return o.held[0].ts < o.maxTs-o.late
}

func (o *orderer) next() (*Event, error) {
	for !o.ready() {
		if o.eof {
			return nil, io.EOF
		}
		if o.pos == len(o.chunk) {
			var err error
			o.chunk, err = o.src.more(o.chunk[:0])
			o.pos = 0
			if errors.Is(err, io.EOF) {
				o.eof = true
			} else if err != nil {
				return nil, err
			}
			continue
		}
		o.arrive(&o.chunk[o.pos])
		o.pos++
	}
	k := o.held.pop()
	o.out = o.slots[k.slot]
	o.slots[k.slot] = Event{}
	o.free = append(o.free, k.slot)
	o.last, o.released = k, true
	return &o.out, nil
}

func (o *orderer) arrive(e *Event) {
	if o.seen != nil {
		o.seen(e)
	}
	if !o.read || e.Ts > o.maxTs {
		o.maxTs, o.read = e.Ts, true
	}
	if l := o.maxTs - e.Ts; l > o.maxLate {
		o.maxLate = l
		if o.learn {
			o.late = 2 * l
		}
	}
	k := heldKey{ts: e.Ts, cpu: e.CPU, seq: o.seq}
	o.seq++
	if o.released && keyLess(heldKey{ts: e.Ts, cpu: e.CPU, seq: o.last.seq + 1}, o.last) {
		*o.disorder = true
	}
	if n := len(o.free); n > 0 {
		k.slot = o.free[n-1]
		o.free = o.free[:n-1]
		o.slots[k.slot] = *e
	} else {
		k.slot = int32(len(o.slots))
		o.slots = append(o.slots, *e)
	}
	o.held.push(k)
	o.maxHeld = max(o.maxHeld, len(o.held))
}

// merge joins streams that are each in time order and each of one CPU
// (trace.dat's), in (Ts, CPU) order: the stable sort's, since events of
// one CPU keep their stream's order.
type merge struct {
	srcs  []eventStream
	heads []Event
	h     heldHeap // slot: the stream
	begun bool
	out   Event
}

func (m *merge) pull(i int) error {
	e, err := m.srcs[i].next()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	m.heads[i] = *e
	m.h.push(heldKey{ts: e.Ts, cpu: e.CPU, slot: int32(i), seq: uint64(i)})
	return nil
}

func (m *merge) next() (*Event, error) {
	if !m.begun {
		m.begun = true
		m.heads = make([]Event, len(m.srcs))
		for i := range m.srcs {
			if err := m.pull(i); err != nil {
				return nil, err
			}
		}
	}
	if len(m.h) == 0 {
		return nil, io.EOF
	}
	k := m.h.pop()
	m.out = m.heads[k.slot]
	if err := m.pull(int(k.slot)); err != nil {
		return nil, err
	}
	return &m.out, nil
}
