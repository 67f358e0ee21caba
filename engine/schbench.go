package engine

// The schbench workload (docs/mechanisms.md, schbench; Chris Mason's
// schbench.c, which scx reviews quote). Each message thread starts its
// workers. A worker posts itself on its message thread's list and waits
// (msg_and_wait: the futex post wakes the message thread if it sleeps);
// the message thread, woken, takes the whole list and wakes every worker on
// it (xlist_wake_all), stamping them all with the time it started the walk;
// a woken worker records its wakeup latency (now less that stamp), then
// serves a request: usleep(sleep_us) (simulated network or disk) and
// `operations` multiplications of square matrices filling footprint_kb
// (do_work), whose length from the start of the usleep is its request
// latency; then it posts itself again. With rps > 0 the message thread
// instead hands out rps requests each second, round robin, each to the
// worker's own list (run_rps_thread), and sleeps out the second; a worker
// serves what its list holds before it waits again.
//
// Modelled as schbench -L (no per-CPU lock around the matrix math: the
// preemption penalty it adds is not modelled), and -M auto pins message
// thread i to CPU i while the workers stay free to run anywhere (the engine
// pins a thread to one CPU or to none; schbench keeps workers off the
// message threads' CPUs).

// Schbench is the schbench workload's command line.
type Schbench struct {
	// MessageThreads is -m; Workers is -t, per message thread (0: enough
	// to cover the CPUs, schbench's default).
	MessageThreads int `json:"message_threads"`
	Workers        int `json:"workers"`
	// Operations is -n, the matrix multiplications per request;
	// FootprintKB is -F, the three matrices' size; SleepUs is -s, the
	// usleep that starts each request.
	Operations  int   `json:"operations"`
	FootprintKB int64 `json:"footprint_kb"`
	SleepUs     int64 `json:"sleep_us"`
	// RPS is -R, requests per second in all (0: each worker asks for work
	// as soon as it is done).
	RPS int `json:"rps"`
	// PinMessage is -M auto: message thread i runs on CPU i.
	PinMessage bool `json:"pin_message"`
	// MaddPs is the CPU time of one multiply-add of the matrix math;
	// FutexWakeNs the CPU time of a futex post that wakes a waiting thread
	// (docs/mechanisms.md, schbench, says where each comes from).
	MaddPs      int64 `json:"madd_ps"`
	FutexWakeNs int64 `json:"futex_wake_ns"`
}

// WorkloadSchbench is the schbench workload's kind.
const WorkloadSchbench = "schbench"

// MaxSchbenchThreads bounds message threads times workers.
const MaxSchbenchThreads = 4096

// schbenchBatch is run_rps_thread's batch: a worker with more requests
// pending than this gets none for 100 µs.
const schbenchBatch = 128

// sbWorker is one worker's state.
type sbWorker struct {
	t        *thread
	msg      int   // its message thread
	wakeAt   int64 // td->wake_time: the stamp its wakeup latency counts from
	workAt   int64 // when its request began (work_start)
	pending  int   // requests handed to it and not yet taken (rps)
	queued   int   // requests it took and has not served (rps)
	phase    sbPhase
	waiting  bool // blocked in fwait (a post wakes it)
	sleeping bool // in its usleep
	// released: its message thread woke it while its post was under way
	// (its futex already FUTEX_RUNNING), so its fwait returns at once.
	released bool
}

type sbPhase uint8

const (
	sbPost  sbPhase = iota // posts itself (or takes its requests) and waits
	sbWoken                // just woken: latency, then the request's usleep
	sbWork                 // the matrix math
)

// sbMessage is one message thread's state.
type sbMessage struct {
	t       *thread
	list    []int // workers posted and not yet woken (xlist)
	walk    []int // the list it is waking now
	walkAt  int64 // the walk's stamp
	armed   bool  // its futex is FUTEX_BLOCKED: a post costs a wake syscall
	waiting bool  // blocked in fwait
	// rps: the second's start, how many of its requests are handed out,
	// the next worker (cur_tid), and whether it sleeps out the second.
	secAt        int64
	sent, cur    int
	sleeping     bool
	backoffUntil int64
}

type schbench struct {
	cfg     *Schbench
	workers []sbWorker // by thread.local; message threads are locals after them
	msgs    []sbMessage
	opNs    int64 // one operation's CPU time
	wakeLat histogram
	reqLat  histogram
	done    int64
}

// sbPhases: where a worker is (sbPost, sbWoken, sbWork above), and:
const (
	sbPosting sbPhase = iota + sbWork + 1 // its post's futex syscall
	sbWait                                // blocked until its message thread wakes it
	sbSleep                               // in the request's usleep
)

func newSchbench(s *Sim) *schbench {
	cfg := &s.sc.Workload.Schbench
	n := len(s.cpus)
	m := max(cfg.MessageThreads, 1)
	per := cfg.Workers
	if per == 0 {
		per = (n + m - 1) / m // main(): worker_threads = ceil(nprocs / message_threads)
	}
	h := &schbench{cfg: cfg, opNs: schbenchOpNs(cfg)}
	h.workers = make([]sbWorker, m*per)
	for i := range h.workers {
		t := s.newThread("schbench-worker", RoleWorker, i%n, false)
		t.local = i
		h.workers[i] = sbWorker{t: t, msg: i / per}
	}
	for i := range m {
		t := s.newThread("schbench-msg", RoleWaker, i%n, cfg.PinMessage)
		t.local = len(h.workers) + i
		h.msgs = append(h.msgs, sbMessage{t: t})
	}
	// Each message thread starts, then its workers post themselves.
	for i := range h.msgs {
		s.wake(h.msgs[i].t, -1, false)
	}
	for i := range h.workers {
		s.wake(h.workers[i].t, -1, false)
	}
	return h
}

// schbenchOpNs is one operation's CPU time: a naive multiplication of
// square matrices whose three fill footprint_kb (do_some_math: side
// sqrt(KB·1024 / 3 / 8) unsigned longs), side³ multiply-adds.
func schbenchOpNs(cfg *Schbench) int64 {
	side := int64(sqrt(float64(cfg.FootprintKB * 1024 / 3 / 8)))
	return side * side * side * cfg.MaddPs / 1000
}

func (h *schbench) next(s *Sim, t *thread) (int64, bool) {
	if t.local >= len(h.workers) {
		m := &h.msgs[t.local-len(h.workers)]
		if h.cfg.RPS > 0 {
			return h.rpsNext(s, m)
		}
		return h.msgNext(s, m)
	}
	w := &h.workers[t.local]
	switch w.phase {
	case sbWait:
		// Woken by its message thread (fwait returns): the latency since
		// the stamp, then a request (with rps, msg_and_wait again, which
		// takes the requests handed to it).
		h.sample(s, &h.wakeLat, s.now-w.wakeAt)
		if h.cfg.RPS > 0 {
			return h.post(s, w)
		}
		return h.request(s, w)
	case sbSleep:
		w.sleeping = false
		w.phase = sbWork
		if work := int64(h.cfg.Operations) * h.opNs; work > 0 {
			return work, false
		}
		return h.finish(s, w)
	case sbWork:
		return h.finish(s, w)
	case sbPosting:
		if m := &h.msgs[w.msg]; m.waiting {
			m.waiting = false
			s.wake(m.t, t.cpu, false)
		}
		if w.released {
			w.released = false
			h.sample(s, &h.wakeLat, s.now-w.wakeAt)
			return h.request(s, w)
		}
		w.phase, w.waiting = sbWait, true
		return 0, true
	}
	return h.post(s, w)
}

// request starts a request: work_start, then the usleep.
func (h *schbench) request(s *Sim, w *sbWorker) (int64, bool) {
	w.workAt = s.now
	w.phase = sbSleep
	if h.cfg.SleepUs == 0 {
		return h.next(s, w.t)
	}
	w.sleeping = true
	s.at(s.now+h.cfg.SleepUs*1000+s.timerSlackNs(w.t), evSchbench, 0, w.t.local, 0)
	return 0, true
}

// finish ends a request: its latency, then the next one the worker holds
// (rps), or a post.
func (h *schbench) finish(s *Sim, w *sbWorker) (int64, bool) {
	lat := s.now - w.workAt
	h.sample(s, &h.reqLat, lat)
	s.m.complete(s, lat)
	h.done++
	if w.queued > 0 {
		w.queued--
		return h.request(s, w)
	}
	return h.post(s, w)
}

// post is msg_and_wait: with rps, take the requests handed out (and serve
// them without waiting); otherwise go on the message thread's list. Then
// fpost the message thread: a futex syscall when its futex is armed
// (FUTEX_BLOCKED), which wakes it if it waits; then fwait.
func (h *schbench) post(s *Sim, w *sbWorker) (int64, bool) {
	m := &h.msgs[w.msg]
	if h.cfg.RPS > 0 {
		if w.queued, w.pending = w.pending, 0; w.queued > 0 {
			w.queued--
			return h.request(s, w)
		}
		w.phase, w.waiting = sbWait, true // the rps thread's futex is never armed
		return 0, true
	}
	m.list = append(m.list, w.t.local)
	if !m.armed {
		w.phase, w.waiting = sbWait, true
		return 0, true
	}
	m.armed = false
	w.phase = sbPosting
	return h.cfg.FutexWakeNs, false
}

// msgNext is run_msg_thread: arm the futex, wake every worker on the list
// (xlist_wake_all, one futex wake each, all stamped with the walk's start),
// then wait unless a worker posted meanwhile.
func (h *schbench) msgNext(s *Sim, m *sbMessage) (int64, bool) {
	if len(m.walk) > 0 { // a wake's syscall ended
		w := &h.workers[m.walk[0]]
		m.walk = m.walk[1:]
		w.wakeAt = m.walkAt
		if w.waiting {
			w.waiting = false
			s.wake(w.t, m.t.cpu, false)
		} else {
			w.released = true
		}
		if len(m.walk) > 0 {
			return h.cfg.FutexWakeNs, false
		}
		if m.armed { // nobody posted during the walk: fwait blocks
			m.waiting = true
			return 0, true
		}
	}
	m.armed = true
	m.walk = append(m.walk[:0], m.list...)
	m.list = m.list[:0]
	m.walkAt = s.now
	if len(m.walk) == 0 {
		m.waiting = true
		return 0, true
	}
	return h.cfg.FutexWakeNs, false
}

// rpsNext is run_rps_thread: hand out the second's requests round robin,
// each one a futex wake of its worker if it waits (a worker holding more
// than schbenchBatch makes the thread usleep 100 µs and skip it), then
// usleep out the second.
func (h *schbench) rpsNext(s *Sim, m *sbMessage) (int64, bool) {
	if m.sleeping {
		m.sleeping = false
		if s.now >= m.secAt+1e9 || m.sent == 0 {
			m.secAt, m.sent = s.now, 0
		}
	}
	if len(m.walk) > 0 { // a post's syscall ended
		w := &h.workers[m.walk[0]]
		m.walk = m.walk[:0]
		if w.waiting {
			w.waiting = false
			s.wake(w.t, m.t.cpu, false)
		}
	}
	for m.sent < h.cfg.RPS {
		m.sent++
		w := &h.workers[m.cur%len(h.workers)]
		m.cur++
		if w.pending > schbenchBatch {
			return h.rpsSleep(s, m, s.now+100_000)
		}
		w.pending++
		w.wakeAt = s.now
		if w.waiting {
			m.walk = append(m.walk[:0], w.t.local)
			return h.cfg.FutexWakeNs, false
		}
	}
	return h.rpsSleep(s, m, m.secAt+1e9)
}

// rpsSleep is the rps thread's usleep until at.
func (h *schbench) rpsSleep(s *Sim, m *sbMessage, at int64) (int64, bool) {
	m.sleeping = true
	s.at(max(at, s.now)+s.timerSlackNs(m.t), evSchbench, 0, m.t.local, 0)
	return 0, true
}

// sample records d in hist when now is in the scenario's measured window.
func (h *schbench) sample(s *Sim, hist *histogram, d int64) {
	if len(s.m.win) > 0 && s.m.win[0].contains(s.now) {
		hist.add(d)
	}
}

// event is a usleep's end: the hrtimer's interrupt on the CPU where the
// thread sleeps wakes it.
func (h *schbench) event(s *Sim, e event) {
	if e.kind != evSchbench || int(e.arg) >= len(s.threads) {
		return
	}
	var t *thread
	switch i := int(e.arg); {
	case i < len(h.workers) && h.workers[i].sleeping:
		t = h.workers[i].t
	case i >= len(h.workers) && h.msgs[i-len(h.workers)].sleeping:
		t = h.msgs[i-len(h.workers)].t
	default:
		return
	}
	if t.state == ThreadBlocked {
		s.raiseIRQ(s.cpus[t.cpu], t, irqTimer)
	}
}
