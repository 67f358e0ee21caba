package runner

import (
	"sync"

	"schedplay/engine"
)

// Transport carries command batches to workers; the page's JavaScript layer
// implements it with postMessage and hands what the workers post back to
// Remote.Deliver.
type Transport interface {
	// Workers is the number of workers (at least one).
	Workers() int
	// Post sends one message to worker w; the message is the transport's.
	Post(w int, msg []byte)
}

// Remote is the Runner whose simulations run in workers, each a Server. Arms are
// spread over the workers in turn, so the two arms of a comparison run in parallel
// when there are two. Commands of one page frame go out as one message per worker
// at Pump.
type Remote struct {
	t     Transport
	where map[ArmID]int // worker of each arm
	dec   map[ArmID]*frameDecoder
	next  int
	batch [][]byte // per worker, the commands not yet posted

	mu     sync.Mutex // guards inbox and failed: Deliver runs in JavaScript callbacks
	inbox  [][]byte
	failed []Frame
	// problem is the last malformed message's error, for the page to log.
	problem string
}

// NewRemote returns a runner over t.
func NewRemote(t Transport) *Remote {
	return &Remote{t: t, where: map[ArmID]int{}, dec: map[ArmID]*frameDecoder{}, batch: make([][]byte, max(t.Workers(), 1))}
}

// Start implements Runner.
func (r *Remote) Start(id ArmID, sc engine.Scenario, background bool) {
	w := r.next % len(r.batch)
	r.next++
	r.where[id] = w
	r.dec[id] = &frameDecoder{}
	r.batch[w] = encodeStart(r.batch[w], id, sc, background)
}

// Advance implements Runner.
func (r *Remote) Advance(id ArmID, a Advance) {
	if w, ok := r.where[id]; ok {
		r.batch[w] = encodeAdvance(r.batch[w], id, a)
	}
}

// Cancel implements Runner.
func (r *Remote) Cancel(id ArmID, seq uint32) {
	if w, ok := r.where[id]; ok {
		r.batch[w] = encodeCancel(r.batch[w], id, seq)
	}
}

// Stop implements Runner.
func (r *Remote) Stop(id ArmID) {
	if w, ok := r.where[id]; ok {
		r.batch[w] = encodeStop(r.batch[w], id)
		delete(r.where, id)
		delete(r.dec, id)
	}
}

// Pump implements Runner: it posts the commands queued since the last call; the
// workers do the work.
func (r *Remote) Pump(float64) {
	for w, b := range r.batch {
		if len(b) > 0 {
			r.t.Post(w, b)
			r.batch[w] = nil
		}
	}
}

// Deliver takes a message a worker posted (safe to call from any goroutine).
func (r *Remote) Deliver(msg []byte) {
	r.mu.Lock()
	r.inbox = append(r.inbox, msg)
	r.mu.Unlock()
}

// Fail reports that worker w is gone (it failed to load or crashed): every arm
// on it answers its next checkpoint with msg, so the page says so instead of
// waiting forever.
func (r *Remote) Fail(w int, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, ww := range r.where {
		if ww == w {
			r.failed = append(r.failed, Frame{Arm: id, Err: msg})
		}
	}
}

// Receive implements Runner. Frames of stopped arms are dropped.
func (r *Remote) Receive(dst []Frame) []Frame {
	r.mu.Lock()
	msgs, failed := r.inbox, r.failed
	r.inbox, r.failed = nil, nil
	r.mu.Unlock()
	for _, msg := range msgs {
		start := len(dst)
		var err error
		dst, err = decodeFrames(msg, r.decoderFor, dst)
		if err != nil {
			r.problem = err.Error()
		}
		kept := dst[:start]
		for _, f := range dst[start:] {
			if _, ok := r.where[f.Arm]; ok {
				kept = append(kept, f)
			}
		}
		dst = kept
	}
	for _, f := range failed {
		if _, ok := r.where[f.Arm]; ok {
			dst = append(dst, f)
		}
	}
	return dst
}

// Problem returns the error of the last malformed message received, or "".
func (r *Remote) Problem() string { return r.problem }

func (r *Remote) decoderFor(id ArmID) *frameDecoder {
	if d := r.dec[id]; d != nil {
		return d
	}
	return &frameDecoder{}
}

// Unavailable is the Runner of a page that could not start its workers: every
// arm answers every checkpoint with the reason, which the page shows.
type Unavailable struct {
	Reason string
	out    []Frame
}

// Start implements Runner.
func (u *Unavailable) Start(ArmID, engine.Scenario, bool) {}

// Advance implements Runner: the answer is the reason.
func (u *Unavailable) Advance(id ArmID, a Advance) {
	u.out = append(u.out, Frame{Arm: id, Seq: a.Seq, Err: u.Reason})
}

// Cancel implements Runner.
func (u *Unavailable) Cancel(id ArmID, seq uint32) { u.Advance(id, Advance{Seq: seq}) }

// Stop implements Runner.
func (u *Unavailable) Stop(ArmID) {}

// Pump implements Runner.
func (u *Unavailable) Pump(float64) {}

// Receive implements Runner.
func (u *Unavailable) Receive(dst []Frame) []Frame {
	dst = append(dst, u.out...)
	u.out = u.out[:0]
	return dst
}
