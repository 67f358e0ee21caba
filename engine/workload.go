package engine

import "slices"

// Workloads: the threads and what each does at the end of every step.
//
// request_server models a database server behind virtio-net (nic.go): an RX
// thread wakes the backend of each request. It is virtio-net's RX thread
// (drivers/virtio-net.cc, net::net()): priority_infinity (workload.rx_priority), so
// it runs whenever it is runnable. With one queue (OSv master) it is not pinned
// (the rxq constructor only names it): it starts on workload.waker_cpu, and the
// balancer or idle pull may move it like any thread. The NIC's MSI-X vector
// follows it: the interrupt is raised where the vector points, and its handler
// (drivers/msi.cc, set_affinity_and_wake()) points the vector at the RX thread's
// CPU of the moment before waking it. With several queues (workload.rx_queues)
// each has its own RX thread, pinned, and a client's connection is one flow. Backends are created by one spawner thread (the application's
// main thread, core/app.cc: not pinned) that starts on workload.spawn_cpu; a new
// thread starts on its creator's CPU (thread::start()). N closed-loop clients send
// a request, wait for the response, and send the next, with a network round trip
// outside the guest. Optionally each request ends with a durable commit through a
// log-commit thread (a ZFS taskq thread, bsd/porting/kthread.cc kthread_add(): not
// pinned either) whose storage interrupt follows it the same way. With
// workload.tpcb_scale the backends also take pgbench's row locks and hold them
// until the commit (rowlock.go).
//
// commit models a durable-write benchmark: N writers each do some work, then wait
// for a log-commit thread that batches all waiting writers into one device write and
// wakes them as a serial chain (OSv's condvar wake_all hands waiters to the mutex one
// at a time, grouped by CPU) or a fan-out.
//
// idle has only the per-CPU kernel threads (balancers, housekeeping wake sources).

// workload is a thread program plus its external events.
type workload interface {
	// next runs at the end of t's step (or when a woken t first runs with no step in
	// progress): it performs the step's actions (wakes, responses) and returns the
	// next step's CPU time, or blocks.
	next(s *Sim, t *thread) (durNs int64, blocks bool)
	// event handles a workload event (packets, responses, connects, device).
	event(s *Sim, e event)
	// ckSave writes the workload's state into a checkpoint; ckLoad reads it
	// back into workloadShell's empty workload and checks it
	// (checkpoint_state.go).
	ckSave(w *ckWriter)
	ckLoad(r *ckReader, s *Sim)
}

// threadNext routes a thread to its program: kernel threads or the workload.
func (s *Sim) threadNext(t *thread) (int64, bool) {
	if t.role == RoleBalancer || t.role == RoleKernel {
		return s.kernelNext(t)
	}
	return s.wl.next(s, t)
}

type idleWorkload struct{}

func (idleWorkload) next(s *Sim, t *thread) (int64, bool) { return 0, true }
func (idleWorkload) event(s *Sim, e event)                {}

// backendPC is where a backend (or writer) is in its program.
type backendPC uint8

const (
	pcIdle       backendPC = iota // blocked waiting for a request (or starting an operation)
	pcServing                     // service step in progress
	pcCommitWait                  // blocked waiting for the log commit
	pcUnlock                      // woken by the commit: re-taking the mutex
	pcInit                        // newly created: start-up work
	pcInitDone
	pcRowWait // blocked on a row lock another transaction holds (rowlock.go)
)

// commitLog is the log-commit thread and its batch state, shared by both workloads.
// A chain broadcast is OSv's condvar::wake_all() (core/condvar.cc): waiters are
// handed the mutex one at a time, each waking the next as it passes it on, in
// wake_all's order (wakeAllOrder).
type commitLog struct {
	thr     *thread
	waiting []*thread // writers waiting for the next batch
	batch   []*thread // writers of the batch being written
	next    []int     // next waiter in the wake chain, by thread id (-1: none)
	chain   bool
	writing bool // a device write is in flight (the committer waits for its interrupt)
	phase   commitPhase
	vec     msixVector // the storage device's completion interrupt
	// wakeAllOrder's scratch: the batch in hand-off order, and per-CPU counts.
	ordered  []*thread
	cpuCount []int
	cpuSeen  []int
}

// msixVector is a device's MSI-X vector bound to a service thread with
// interrupt_manager::easy_register (drivers/msi.cc). setup_entry() first points
// it at APIC id 0 (vCPU 0); from then on each interrupt's handler,
// set_affinity_and_wake(), points it at the thread's current CPU before waking
// the thread, so the next interrupt lands there.
type msixVector struct{ cpu int }

// raise delivers the vector's interrupt, whose handler wakes t.
func (v *msixVector) raise(s *Sim, t *thread) {
	c := s.cpus[v.cpu]
	// t is blocked until the handler runs, and nothing moves a blocked thread, so
	// its CPU is the one the handler will read.
	v.cpu = t.cpu
	s.raiseIRQ(c, t, irqDevice)
}

// commitPhase is where the log-commit thread is in its program.
type commitPhase uint8

const (
	commitLook   commitPhase = iota // take the waiting writers as a batch, if any
	commitSubmit                    // submit the batch's device write
	commitWake                      // the write is durable: wake the batch
)

// newCommitLog creates the log-commit thread, started on cpuID and not pinned.
func newCommitLog(s *Sim, cpuID int) *commitLog {
	n := s.sc.Machine.VCPUs
	l := &commitLog{chain: s.sc.Workload.Broadcast == "chain", cpuCount: make([]int, n), cpuSeen: make([]int, 0, n)}
	l.thr = s.newThread("log-commit", RoleWaker, cpuID, false)
	return l
}

// wakeAllOrder puts l.batch (the waiters in arrival order) in condvar::wake_all's
// order: the oldest waiter, then every other waiter homed on its CPU, in arrival
// order, then the oldest of the rest and its CPU's waiters, and so on ("queue all
// the threads that will likely wake on the same CPU one after another, as
// same-CPU wakeup is faster"). A waiter's CPU is its home, tcpu().
func (l *commitLog) wakeAllOrder() {
	seen := l.cpuSeen[:0]
	for _, w := range l.batch {
		if l.cpuCount[w.cpu] == 0 {
			seen = append(seen, w.cpu)
		}
		l.cpuCount[w.cpu]++
	}
	pos := 0
	for _, c := range seen {
		n := l.cpuCount[c]
		l.cpuCount[c] = pos // from here on: the next slot of CPU c's group
		pos += n
	}
	out := slices.Grow(l.ordered[:0], len(l.batch))[:len(l.batch)]
	for _, w := range l.batch {
		out[l.cpuCount[w.cpu]] = w
		l.cpuCount[w.cpu]++
	}
	for _, c := range seen {
		l.cpuCount[c] = 0
	}
	l.cpuSeen = seen
	clear(l.batch)
	l.batch, l.ordered = out, l.batch[:0]
}

// request adds writer t to the next batch and wakes the committer.
func (l *commitLog) request(s *Sim, t *thread) {
	l.waiting = append(l.waiting, t)
	if !l.writing {
		s.wake(l.thr, t.cpu, false)
	}
}

// committerNext is the log-commit thread's program.
func (l *commitLog) committerNext(s *Sim, t *thread) (int64, bool) {
	switch l.phase {
	case commitLook:
		if len(l.waiting) == 0 {
			return 0, true
		}
		l.batch, l.waiting = l.waiting, l.batch[:0]
		l.phase = commitSubmit
		return s.sc.Workload.CommitCostNs + 1, false
	case commitSubmit: // submit the device write and wait for its completion interrupt
		l.phase = commitWake
		l.writing = true
		s.at(s.now+s.sc.Workload.CommitDeviceUs*1000, evDevice, t.cpu, 0, 0)
		return 0, true
	default: // commitWake
		l.phase = commitLook
		l.wakeAllOrder()
		if l.chain {
			for i, w := range l.batch {
				if i+1 < len(l.batch) {
					l.next[w.id] = l.batch[i+1].id
				} else {
					l.next[w.id] = -1
				}
			}
			s.wake(l.batch[0], t.cpu, false)
		} else {
			for _, w := range l.batch {
				l.next[w.id] = -1
				s.wake(w, t.cpu, false)
			}
		}
		clear(l.batch)
		l.batch = l.batch[:0]
		return s.sc.Workload.CommitWakeNs, false
	}
}

// wokenByCommit is a waiter's unlock step end: hand the mutex to the next waiter.
func (l *commitLog) wokenByCommit(s *Sim, t *thread) {
	if n := l.next[t.id]; n >= 0 {
		l.next[t.id] = -1
		s.wake(s.threads[n], t.cpu, false)
	}
}

func (l *commitLog) deviceDone(s *Sim) {
	l.writing = false
	l.vec.raise(s, l.thr)
}

func (l *commitLog) sizeNext(n int) {
	for len(l.next) < n {
		l.next = append(l.next, -1)
	}
}

// requestServer is the request_server workload.
type requestServer struct {
	nic      *nic // the RX queues; a client's packets are its connection's flow
	spawner  *thread
	forking  int         // the client the spawner is forking a backend for, or -1
	backends []*thread   // by client (thread.local is the client)
	pc       []backendPC // by client
	log      *commitLog
	spawnq   ring      // clients waiting to be given a backend
	sentAt   []int64   // by client: when its current request was sent
	ready    []int     // connected clients held back until all are (StartTogether)
	stmt     []int     // by client: statements of the current transaction answered so far
	locks    *rowLocks // pgbench's row locks (workload.tpcb_scale), or nil
}

func newRequestServer(s *Sim) *requestServer {
	w := &s.sc.Workload
	r := &requestServer{
		backends: make([]*thread, w.Clients),
		pc:       make([]backendPC, w.Clients),
		forking:  -1,
		sentAt:   make([]int64, w.Clients),
		stmt:     make([]int, w.Clients),
	}
	r.spawnq.init(w.Clients)
	r.nic = newNIC(s, w.Clients)
	r.spawner = s.newThread("spawner", RoleSpawner, max(w.SpawnCPU, 0), false)
	if w.CommitDeviceUs > 0 {
		cpuID := w.CommitCPU
		if cpuID < 0 {
			cpuID = max(w.SpawnCPU, 0)
		}
		r.log = newCommitLog(s, cpuID)
		if w.TPCBScale > 0 {
			r.locks = newRowLocks(w.TPCBScale, w.Clients)
		}
	}
	for i := range w.Clients {
		s.at(int64(i)*w.ConnectIntervalUs*1000, evConnect, 0, i, 0)
	}
	return r
}

func (r *requestServer) event(s *Sim, e event) {
	w := &s.sc.Workload
	switch e.kind {
	case evConnect:
		r.spawnq.push(int(e.arg))
		s.raiseIRQ(s.cpus[r.spawner.cpu], r.spawner, irqDevice)
	case evPacket:
		r.nic.receive(s, int(e.arg), int(e.arg))
	case evResponse:
		c := int(e.arg)
		r.stmt[c]++
		if r.stmt[c] < w.StatementsPerTxn {
			s.at(s.now+w.NetworkRTTUs*500, evPacket, 0, c, 0) // next statement
			return
		}
		r.stmt[c] = 0
		s.m.complete(s, s.now-r.sentAt[c])
		r.send(s, c, s.now)
	case evDevice:
		r.log.deviceDone(s)
	}
}

// send starts client c's next request at time t (it reaches the NIC half a round
// trip later).
func (r *requestServer) send(s *Sim, c int, t int64) {
	r.sentAt[c] = t
	s.at(t+s.sc.Workload.NetworkRTTUs*500, evPacket, 0, c, 0)
}

func (r *requestServer) next(s *Sim, t *thread) (int64, bool) {
	w := &s.sc.Workload
	if q := r.nic.queueOf(t); q >= 0 {
		// One NAPI poll: the packets taken at the start of the step are processed
		// in it, and their backends are woken at its end, in arrival order.
		rq := &r.nic.queues[q]
		for _, c := range rq.batch {
			s.wake(r.backends[c], t.cpu, false)
		}
		return rq.poll(w)
	}
	switch {
	case t == r.spawner:
		if c := r.forking; c >= 0 {
			// Fork done: the new backend starts on its creator's CPU.
			b := s.newThread("backend", RoleWorker, t.cpu, false)
			b.local = c
			r.pc[c] = pcInit
			r.backends[c] = b
			if r.log != nil {
				r.log.sizeNext(len(s.threads))
			}
			s.wake(b, t.cpu, false)
			r.forking = -1
		}
		c, ok := r.spawnq.pop()
		if !ok {
			return 0, true
		}
		r.forking = c
		return s.sc.Workload.SpawnUs * 1000, false
	case r.log != nil && t == r.log.thr:
		return r.log.committerNext(s, t)
	}
	// A backend, serving client c.
	c := t.local
	switch r.pc[c] {
	case pcInit:
		r.pc[c] = pcInitDone
		return s.sc.Workload.SpawnUs * 1000, false
	case pcInitDone:
		// Connected: the client sends its first request (or waits for the others).
		r.pc[c] = pcIdle
		if !w.StartTogether {
			r.send(s, c, s.now)
			return 0, true
		}
		r.ready = append(r.ready, c)
		if len(r.ready) == w.Clients {
			for _, c := range r.ready {
				r.send(s, c, s.now)
			}
		}
		return 0, true
	case pcIdle:
		r.pc[c] = pcServing
		return s.drawDist(w.Service), false
	case pcServing:
		if r.log != nil && r.stmt[c] == w.StatementsPerTxn-1 {
			r.pc[c] = pcCommitWait
			r.log.request(s, t)
			return 0, true
		}
		if r.locks != nil && !r.locks.update(s, c, r.stmt[c]) {
			r.pc[c] = pcRowWait
			return 0, true
		}
		r.respond(s, t)
		return 0, true
	case pcRowWait:
		// The holder's commit granted the row and woke this backend: its UPDATE
		// completes.
		r.respond(s, t)
		return 0, true
	case pcCommitWait:
		r.pc[c] = pcUnlock
		return s.sc.Workload.CommitWakeNs, false
	default: // pcUnlock
		r.log.wokenByCommit(s, t)
		if r.locks != nil {
			// The commit is durable: the transaction ends and its row locks go.
			r.locks.commit(s, t, r.backends)
		}
		r.respond(s, t)
		return 0, true
	}
}

// respond sends backend t's response; it reaches the client half a round trip later.
func (r *requestServer) respond(s *Sim, t *thread) {
	r.pc[t.local] = pcIdle
	s.at(s.now+s.sc.Workload.NetworkRTTUs*500, evResponse, 0, t.local, 0)
}

// commitWorkload is the commit (durable-write) workload.
type commitWorkload struct {
	log     *commitLog
	writers []*thread   // by writer index (thread.local)
	pc      []backendPC // by writer index
	startAt []int64     // by writer index: when its current operation began
}

func newCommitWorkload(s *Sim) *commitWorkload {
	w := &s.sc.Workload
	cw := &commitWorkload{startAt: make([]int64, w.Clients), pc: make([]backendPC, w.Clients)}
	cw.log = newCommitLog(s, w.WakerCPU)
	for i := range w.Clients {
		home := w.SpawnCPU
		if home < 0 {
			home = i % s.sc.Machine.VCPUs // writers started by threads on every CPU
		}
		t := s.newThread("writer", RoleWorker, home, false)
		t.local = i
		cw.writers = append(cw.writers, t)
	}
	cw.log.sizeNext(len(s.threads))
	for _, t := range cw.writers {
		s.wake(t, -1, false)
	}
	return cw
}

func (cw *commitWorkload) event(s *Sim, e event) {
	if e.kind == evDevice {
		cw.log.deviceDone(s)
	}
}

func (cw *commitWorkload) next(s *Sim, t *thread) (int64, bool) {
	if t == cw.log.thr {
		return cw.log.committerNext(s, t)
	}
	i := t.local
	switch cw.pc[i] {
	case pcIdle: // start an operation: the write work
		cw.startAt[i] = s.now
		cw.pc[i] = pcServing
		return s.drawDist(s.sc.Workload.Service), false
	case pcServing: // wait for durability
		cw.pc[i] = pcCommitWait
		cw.log.request(s, t)
		return 0, true
	case pcCommitWait:
		cw.pc[i] = pcUnlock
		return s.sc.Workload.CommitWakeNs, false
	default: // pcUnlock: hand on the mutex, the operation is complete
		cw.log.wokenByCommit(s, t)
		s.m.complete(s, s.now-cw.startAt[i])
		cw.startAt[i] = s.now
		cw.pc[i] = pcServing
		return s.drawDist(s.sc.Workload.Service), false
	}
}

// ring is a FIFO of ints with fixed capacity, allocation-free after init.
type ring struct {
	buf        []int
	head, size int
}

func (q *ring) init(n int) { q.buf = make([]int, max(n, 1)) }

func (q *ring) push(v int) {
	if q.size == len(q.buf) {
		nb := make([]int, 2*len(q.buf))
		for i := range q.size {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = v
	q.size++
}

func (q *ring) pop() (int, bool) {
	if q.size == 0 {
		return 0, false
	}
	v := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return v, true
}
