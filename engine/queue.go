package engine

// The event queue: a typed binary min-heap of value events ordered by (time,
// sequence number). container/heap would box every event in an interface and
// allocate; this heap stores events by value and never allocates once grown.

// evKind is what an event does when it fires.
type evKind uint8

const (
	evStepEnd      evKind = iota // the running thread's step ends (cpu, gen-checked)
	evIRQ                        // an interrupt reaches a CPU (arg: irqSource)
	evIRQEnd                     // a CPU finishes its interrupt handler (gen-checked)
	evSpinEnd                    // an idle spin window runs out (gen-checked)
	evSpinNotice                 // a spinning CPU sees its incoming list (gen-checked)
	evWakeDone                   // a halted vCPU is back in the guest (gen-checked)
	evPreemptTimer               // the running thread's time is up (gen-checked)
	evTimer                      // a per-CPU kernel thread's timer fires (arg: thread)
	evPacket                     // a client's request reaches the NIC (arg: client)
	evResponse                   // a response reaches its client (arg: client)
	evConnect                    // a client connects (arg: client)
	evDevice                     // a commit device write completes
	numEvKinds
)

var evKindNames = [...]string{"step_end", "irq", "irq_end", "spin_end", "spin_notice",
	"wake_done", "preempt_timer", "timer", "packet", "response", "connect", "device"}

func (k evKind) String() string {
	if int(k) < len(evKindNames) {
		return evKindNames[k]
	}
	return "event?"
}

// event is one scheduled occurrence. gen lets a CPU cancel its pending step or
// spin events cheaply: a popped event whose gen differs from the CPU's is stale.
type event struct {
	at   int64
	seq  uint64
	kind evKind
	cpu  int32
	arg  int32
	gen  uint32
}

func (a *event) before(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// eventQueue is the heap. The sequence counter breaks ties in insertion order, so
// same-time events always run in the same order.
type eventQueue struct {
	h   []event
	seq uint64
}

// push schedules e; O(log n).
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.h = append(q.h, e)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// peek returns the earliest event without removing it; ok is false when empty.
func (q *eventQueue) peek() (e event, ok bool) {
	if len(q.h) == 0 {
		return event{}, false
	}
	return q.h[0], true
}

// pop removes and returns the earliest event; O(log n). The queue must not be empty.
func (q *eventQueue) pop() event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	q.h = h[:n]
	h = q.h
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return top
}

func (q *eventQueue) len() int { return len(q.h) }
