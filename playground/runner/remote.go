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
// at Pump. A worker that fails (it would not load, crashed, or sent a message
// that cannot be read) is dead for good: its arms answer with the reason, and new
// arms go to the workers still alive, or answer with the reason when none is.
type Remote struct {
	t     Transport
	where map[ArmID]int // worker of each arm
	dec   map[ArmID]*frameDecoder
	next  int
	batch [][]byte // per worker, the commands not yet posted

	mu     sync.Mutex // guards inbox, failed and dead: Deliver and Fail run in JavaScript callbacks
	inbox  []delivery
	failed []Frame
	dead   []string // per worker, why it failed, or ""
}

// delivery is a message as a worker posted it.
type delivery struct {
	w   int
	msg []byte
}

// NewRemote returns a runner over t.
func NewRemote(t Transport) *Remote {
	n := max(t.Workers(), 1)
	return &Remote{t: t, where: map[ArmID]int{}, dec: map[ArmID]*frameDecoder{}, batch: make([][]byte, n), dead: make([]string, n)}
}

// Parallel reports whether arms run side by side: there are two workers or
// more.
func (r *Remote) Parallel() bool { return len(r.batch) > 1 }

// Start implements Runner.
func (r *Remote) Start(id ArmID, sc engine.Scenario, background bool) {
	r.start(id, func(b []byte) []byte { return encodeStart(b, id, sc, background) })
}

// StartFrom implements Runner: the checkpoint's bytes go to the worker with
// the scenario.
func (r *Remote) StartFrom(id ArmID, sc engine.Scenario, checkpoint []byte) {
	r.start(id, func(b []byte) []byte { return encodeStartFrom(b, id, sc, checkpoint) })
}

// start places a new arm on the next live worker and queues its start command
// (enc appends it).
func (r *Remote) start(id ArmID, enc func([]byte) []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.batch)
	w := r.next % n
	for k := 1; k < n && r.dead[w] != ""; k++ {
		w = (r.next + k) % n
	}
	r.next = w + 1
	r.where[id] = w
	r.dec[id] = &frameDecoder{}
	if why := r.dead[w]; why != "" {
		r.failed = append(r.failed, Frame{Arm: id, Err: why})
		return
	}
	r.batch[w] = enc(r.batch[w])
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
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.where[id]; ok {
		r.batch[w] = encodeStop(r.batch[w], id)
		delete(r.where, id)
		delete(r.dec, id)
		r.next = w // an arm started in its place (a replay) keeps its worker
	}
}

// Rewind implements Runner: arm to takes id's place on its worker, where
// id's marks are.
func (r *Remote) Rewind(id, to ArmID, atNs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.where[id]; ok {
		delete(r.where, id)
		delete(r.dec, id)
		r.where[to], r.dec[to] = w, &frameDecoder{}
		if why := r.dead[w]; why != "" {
			r.failed = append(r.failed, Frame{Arm: to, Err: why})
			return
		}
		r.batch[w] = encodeRewind(r.batch[w], id, to, atNs)
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

// Deliver takes a message worker w posted (safe to call from any goroutine).
func (r *Remote) Deliver(w int, msg []byte) {
	r.mu.Lock()
	r.inbox = append(r.inbox, delivery{w, msg})
	r.mu.Unlock()
}

// Fail reports that worker w is gone (it failed to load or crashed): every arm
// on it answers its next request with msg, so the page says so instead of
// waiting forever, and no new arm is started on it.
func (r *Remote) Fail(w int, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail(w, msg)
}

func (r *Remote) fail(w int, msg string) {
	if w < 0 || w >= len(r.dead) {
		return
	}
	r.dead[w] = msg
	for id, ww := range r.where {
		if ww == w {
			r.failed = append(r.failed, Frame{Arm: id, Err: msg})
		}
	}
}

// Receive implements Runner. Frames of stopped arms are dropped. A message that
// cannot be read fails its worker: the arms on it could not trust what follows.
func (r *Remote) Receive(dst []Frame) []Frame {
	r.mu.Lock()
	msgs := r.inbox
	r.inbox = nil
	r.mu.Unlock()
	for _, d := range msgs {
		start := len(dst)
		var err error
		dst, err = decodeFrames(d.msg, r.decoderFor, dst)
		if err != nil {
			r.mu.Lock()
			r.fail(d.w, "the engine worker sent a message the page cannot read ("+err.Error()+")")
			r.mu.Unlock()
		}
		kept := dst[:start]
		for _, f := range dst[start:] {
			if _, ok := r.where[f.Arm]; ok {
				kept = append(kept, f)
			}
		}
		dst = kept
	}
	r.mu.Lock()
	failed := r.failed
	r.failed = nil
	r.mu.Unlock()
	for _, f := range failed {
		if _, ok := r.where[f.Arm]; ok {
			dst = append(dst, f)
		}
	}
	return dst
}

func (r *Remote) decoderFor(id ArmID) *frameDecoder {
	if d := r.dec[id]; d != nil {
		return d
	}
	return &frameDecoder{}
}

// Unavailable is the Runner of a page that could not start its workers: every
// arm answers every request with the reason, which the page shows.
type Unavailable struct {
	Reason string
	out    []Frame
}

// Start implements Runner.
func (u *Unavailable) Start(ArmID, engine.Scenario, bool) {}

// StartFrom implements Runner.
func (u *Unavailable) StartFrom(ArmID, engine.Scenario, []byte) {}

// Advance implements Runner: the answer is the reason.
func (u *Unavailable) Advance(id ArmID, a Advance) {
	u.out = append(u.out, Frame{Arm: id, Seq: a.Seq, Err: u.Reason})
}

// Cancel implements Runner.
func (u *Unavailable) Cancel(id ArmID, seq uint32) { u.Advance(id, Advance{Seq: seq}) }

// Stop implements Runner.
func (u *Unavailable) Stop(ArmID) {}

// Rewind implements Runner.
func (u *Unavailable) Rewind(ArmID, ArmID, int64) {}

// Pump implements Runner.
func (u *Unavailable) Pump(float64) {}

// Receive implements Runner.
func (u *Unavailable) Receive(dst []Frame) []Frame {
	dst = append(dst, u.out...)
	u.out = u.out[:0]
	return dst
}
