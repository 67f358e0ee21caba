package engine

// The event queue: a typed 4-ary min-heap of value events ordered by (time,
// sequence number), in the spirit of the Go runtime's timer heap. container/heap
// would box every event in an interface and allocate; this heap stores events by
// value and never allocates once grown. Four children per node halve the depth
// of a binary heap, and sifting moves a hole instead of swapping at each level:
// fewer 32-byte copies, which matters most under wasm, where the queue is a third
// of the engine's time.

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
	evDebtPaid                   // a CPU on its way to idle has spent the overhead it owed (gen-checked)
	evScxTimer                   // a sched_ext policy's timer fires (gen: the timer's)
	evScxWatchdog                // the sched_ext watchdog checks for stalled tasks (not counted)
	evRTApp                      // an rt-app thread's sleep or timer expires (arg: its index)
	evTick                       // a busy CPU's periodic scheduler tick (cpu; stale unless at its cfs.tickAt)
	evRTPeriod                   // the RT bandwidth's period timer (stale unless at Sim.rtPeriodAt)
	evDLTimer                    // a throttled deadline task's replenishment (arg: thread)
	evTrace                      // a replayed trace thread's timed sleep or start (arg: its index)
	evCFSPeriod                  // a task group's cpu.max period timer (arg: the group; stale unless at its periodAt)
	evSchbench                   // a schbench thread's usleep ends (arg: its local index)
	numEvKinds
)

var evKindNames = [...]string{"step_end", "irq", "irq_end", "spin_end", "spin_notice",
	"wake_done", "preempt_timer", "timer", "packet", "response", "connect", "device", "debt_paid", "scx_timer", "scx_watchdog", "rtapp", "tick", "rt_period", "dl_timer", "trace", "cfs_period", "schbench"}

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
	kind evKind
	cpu  int32
	arg  int32
	gen  uint32
}

// heapEntry is what the heap orders: the time and a key holding the sequence
// number above the slot of the event's payload. Sifting moves these 16 bytes,
// not the 32 of an event.
type heapEntry struct {
	at  int64
	key uint64 // seq<<slotBits | slot
}

// payload is the rest of an event, kept in a slot while the event is queued.
type payload struct {
	kind evKind
	cpu  int32
	arg  int32
	gen  uint32
}

// slotBits bounds the events queued at once (16M); the rest of the key bounds
// the events ever pushed (2^40, a thousand times engine.MaxEvents).
const slotBits = 24

func (a *heapEntry) before(b *heapEntry) bool {
	return a.at < b.at || a.at == b.at && a.key < b.key
}

// eventQueue is the heap. The sequence counter breaks ties in insertion order, so
// same-time events always run in the same order.
//
// The engine's loop takes the earliest event and, as often as not, its handler
// pushes the next one (a step's end schedules the next step's): take leaves the
// root as a hole that such a push fills, sifting down once and reusing the
// slot, where a removal and an insertion would sift twice and pass the slot
// through the free list. settle removes the hole when no push came. Pop order is
// the (time, sequence) order whatever the heap's layout, so this changes nothing
// in what runs when.
type eventQueue struct {
	h    []heapEntry
	slab []payload // by slot
	free []uint32  // slots not in use
	seq  uint64
	// hole: h[0] was taken and is no longer queued; its slot is still held.
	// Only between take and settle (or the push that fills it).
	hole bool
}

// push schedules the event p at time at; O(log n). A hole left by take is
// filled with it, in the taken event's slot: one sift down instead of a
// removal and an insertion. (Time and payload apart, as take returns them.)
func (q *eventQueue) push(at int64, p payload) {
	var slot uint32
	if q.hole {
		slot = uint32(q.h[0].key & (1<<slotBits - 1))
	} else if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		slot = uint32(len(q.slab))
		if slot >= 1<<slotBits {
			panic("engine.eventQueue.push: more than 2^24 events queued at once")
		}
		q.slab = append(q.slab, payload{})
	}
	q.slab[slot] = p
	x := heapEntry{at: at, key: q.seq<<slotBits | uint64(slot)}
	q.seq++
	if q.hole {
		q.hole = false
		q.siftDown(q.h, x)
		return
	}
	q.h = append(q.h, x)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		up := (i - 1) / 4
		if !x.before(&h[up]) {
			break
		}
		h[i] = h[up]
		i = up
	}
	h[i] = x
}

// peekAt returns the earliest event's time; ok is false when empty. Not during
// a hole.
func (q *eventQueue) peekAt() (at int64, ok bool) {
	if len(q.h) == 0 {
		return 0, false
	}
	return q.h[0].at, true
}

// pop removes and returns the earliest event; O(log n). The queue must not be empty.
func (q *eventQueue) pop() event {
	at, p := q.take()
	q.settle()
	return event{at: at, kind: p.kind, cpu: p.cpu, arg: p.arg, gen: p.gen}
}

// take returns the earliest event's time and payload and leaves its place as a
// hole for the next push (or settle) to fill. The queue must not be empty, nor
// have a hole. The payload is returned apart from the time, not as an event:
// a four-field struct stays in registers, where the wasm build keeps a
// five-field one in memory, zeroed and copied at every step.
func (q *eventQueue) take() (at int64, p payload) {
	q.hole = true
	x := q.h[0]
	return x.at, q.slab[x.key&(1<<slotBits-1)]
}

// settle removes a hole no push filled (see removeHole). Small enough to
// inline: most events leave no hole.
func (q *eventQueue) settle() {
	if q.hole {
		q.removeHole()
	}
}

// removeHole takes the hole out: the last entry takes its place, sifted down,
// and the slot is freed; O(log n).
func (q *eventQueue) removeHole() {
	q.hole = false
	h := q.h
	q.free = append(q.free, uint32(h[0].key&(1<<slotBits-1)))
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.h = h
	if n > 0 {
		q.siftDown(h, last)
	}
}

// siftDown places x at the root of h (whose root is free) and moves it down to
// where it belongs, moving the hole instead of swapping.
func (q *eventQueue) siftDown(h []heapEntry, x heapEntry) {
	n := len(h)
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		// The earliest of up to four children.
		m := c
		for k := c + 1; k < min(c+4, n); k++ {
			if h[k].before(&h[m]) {
				m = k
			}
		}
		if !h[m].before(&x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}
