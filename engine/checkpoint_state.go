package engine

import (
	"fmt"
	"slices"
)

// The policies' and workloads' own parts of a checkpoint (checkpoint.go): each
// kind writes its state in ckSave and reads it back in ckLoad, into the empty
// value newPolicy or workloadShell made for the same scenario, checking what
// it reads against the scenario and the threads already read. Configuration
// (what the scenario gives) is not written; nor is scratch space a call fills
// before it reads it.

// Policies.

func (osvPolicy) ckSave(w *ckWriter)            {}
func (osvPolicy) ckLoad(r *ckReader, s *Sim)    {}
func (*linuxPolicy) ckSave(w *ckWriter)         {}
func (*linuxPolicy) ckLoad(r *ckReader, s *Sim) {}

// Workloads. Each ckLoad also checks that every thread but the kernel's is one
// of the workload's, at the index its thread.local says, and that the
// workload's pending events name what exists.

func (idleWorkload) ckSave(w *ckWriter) {}

func (idleWorkload) ckLoad(r *ckReader, s *Sim) {
	ownThreads(r, s, func(t *thread) bool { return false })
	workloadEvents(r, s, func(p payload) string { return "the idle workload has none" })
}

func (rs *requestServer) ckSave(w *ckWriter) {
	rs.nic.ckSave(w)
	w.thr(rs.spawner)
	w.iv(int64(rs.forking))
	for _, b := range rs.backends {
		w.thr(b)
	}
	for _, pc := range rs.pc {
		w.byte(byte(pc))
	}
	w.bool(rs.log != nil)
	if rs.log != nil {
		rs.log.ckSave(w)
	}
	rs.spawnq.ckSave(w)
	for _, t := range rs.sentAt {
		w.at(t)
	}
	w.ints(rs.ready)
	for _, n := range rs.stmt {
		w.n(n)
	}
	w.bool(rs.locks != nil)
	if rs.locks != nil {
		rs.locks.ckSave(w)
	}
}

func (rs *requestServer) ckLoad(r *ckReader, s *Sim) {
	wl := &s.sc.Workload
	n := wl.Clients
	rs.nic = &nic{}
	rs.nic.ckLoad(r, s, n)
	rs.spawner = r.mustThr()
	rs.forking = int(r.intIn(-1, int64(n)-1))
	rs.backends = make([]*thread, n)
	for c := range rs.backends {
		rs.backends[c] = r.thr()
	}
	rs.pc = make([]backendPC, n)
	for c := range rs.pc {
		if rs.pc[c] = backendPC(r.byte()); rs.pc[c] > pcRowWait {
			r.failf("client %d's backend is at step %d of its program, which has %d", c, rs.pc[c], pcRowWait+1)
		}
	}
	if hasLog := r.bool(); hasLog != (wl.CommitDeviceUs > 0) && r.err == nil {
		r.failf("a log-commit thread saved is %v, but the scenario's commit_device_us is %d", hasLog, wl.CommitDeviceUs)
	} else if hasLog {
		rs.log = &commitLog{}
		rs.log.ckLoad(r, s)
	}
	rs.spawnq.ckLoad(r, n)
	rs.sentAt = make([]int64, n)
	for c := range rs.sentAt {
		rs.sentAt[c] = r.at()
	}
	rs.ready = r.ints(n, 0, int64(n)-1)
	rs.stmt = make([]int, n)
	for c := range rs.stmt {
		rs.stmt[c] = r.n(max(wl.StatementsPerTxn, 1))
	}
	if hasLocks := r.bool(); hasLocks != (rs.log != nil && wl.TPCBScale > 0) && r.err == nil {
		r.failf("row locks saved are %v, but the scenario's tpcb_scale is %d with commit_device_us %d", hasLocks, wl.TPCBScale, wl.CommitDeviceUs)
	} else if hasLocks {
		rs.locks = newRowLocks(wl.TPCBScale, n)
		rs.locks.ckLoad(r, func(c int) bool { return rs.pc[c] == pcRowWait })
	}
	if r.err != nil {
		return
	}
	switch {
	case rs.spawner.role != RoleSpawner:
		r.failf("the spawner %d is a %s", rs.spawner.id, rs.spawner.role)
		return
	case rs.log != nil && (rs.nic.queueOf(rs.log.thr) >= 0 || rs.log.thr == rs.spawner):
		r.failf("the log-commit thread %d is an RX thread or the spawner", rs.log.thr.id)
		return
	case rs.locks == nil && slices.Contains(rs.pc, pcRowWait):
		r.failf("a backend waits for a row lock, and there are no row locks")
		return
	}
	served := func(c int) bool { return rs.backends[c] != nil }
	for c, b := range rs.backends {
		switch {
		case b != nil && (b.local != c || b.role != RoleWorker):
			r.failf("client %d's backend, thread %d, is not a backend serving it", c, b.id)
		case b == nil && rs.pc[c] != pcIdle:
			r.failf("client %d has no backend but is at step %d", c, rs.pc[c])
		case rs.log == nil && (rs.pc[c] == pcCommitWait || rs.pc[c] == pcUnlock):
			r.failf("client %d waits for a commit, and there is no log-commit thread", c)
		case b != nil && rs.log != nil && b.id >= len(rs.log.next):
			r.failf("client %d's backend %d has no place in the commit chain", c, b.id)
		}
	}
	for _, c := range rs.nic.packets() {
		if !served(c) {
			r.failf("a packet of client %d, which has no backend", c)
		}
	}
	ownThreads(r, s, func(t *thread) bool {
		return rs.nic.queueOf(t) >= 0 || t == rs.spawner || rs.log != nil && t == rs.log.thr ||
			t.local >= 0 && t.local < n && rs.backends[t.local] == t
	})
	workloadEvents(r, s, func(p payload) string {
		switch {
		case p.kind == evDevice:
			if rs.log == nil {
				return "there is no log-commit device"
			}
		case p.arg < 0 || int(p.arg) >= n:
			return fmt.Sprintf("client %d does not exist", p.arg)
		case p.kind == evPacket && !served(int(p.arg)):
			return fmt.Sprintf("client %d has no backend", p.arg)
		}
		return ""
	})
}

func (l *commitLog) ckSave(w *ckWriter) {
	w.thr(l.thr)
	w.threads(l.waiting)
	w.threads(l.batch)
	w.ints(l.next)
	w.flags(l.writing)
	w.byte(byte(l.phase))
	w.n(l.vec.cpu)
}

func (l *commitLog) ckLoad(r *ckReader, s *Sim) {
	nt := len(s.threads)
	l.thr = r.mustThr()
	l.waiting = r.threads(nt)
	l.batch = r.threads(nt)
	l.next = r.ints(nt, -1, int64(nt)-1)
	l.writing = r.flags(1)[0]
	l.phase = commitPhase(r.byte())
	l.vec.cpu = r.n(len(s.cpus))
	l.chain = s.sc.Workload.Broadcast == "chain"
	l.cpuCount, l.cpuSeen = make([]int, len(s.cpus)), make([]int, 0, len(s.cpus))
	switch {
	case r.err != nil:
	case l.phase > commitWake:
		r.failf("the log-commit thread is at step %d of its program, which has 3", l.phase)
	case l.phase != commitLook && len(l.batch) == 0:
		r.failf("the log-commit thread is writing a batch with no writer in it")
	case l.thr.role != RoleWaker:
		r.failf("the log-commit thread %d is a %s", l.thr.id, l.thr.role)
	}
}

func (q *ring) ckSave(w *ckWriter) { w.ints(q.items()) }

// ckLoad reads what ckSave wrote into a ring of capacity n (at least): its
// values are clients, below n.
func (q *ring) ckLoad(r *ckReader, n int) {
	vs := r.ints(1<<20, 0, int64(n)-1)
	q.init(n)
	for _, v := range vs {
		q.push(v)
	}
}

// items lists what the ring holds, oldest first.
func (q *ring) items() []int {
	out := make([]int, q.size)
	for i := range out {
		out[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	return out
}

func (cw *commitWorkload) ckSave(w *ckWriter) {
	cw.log.ckSave(w)
	for i, t := range cw.writers {
		w.thr(t)
		w.byte(byte(cw.pc[i]))
		w.at(cw.startAt[i])
	}
}

func (cw *commitWorkload) ckLoad(r *ckReader, s *Sim) {
	n := s.sc.Workload.Clients
	cw.log = &commitLog{}
	cw.log.ckLoad(r, s)
	cw.writers, cw.pc, cw.startAt = make([]*thread, n), make([]backendPC, n), make([]int64, n)
	for i := range n {
		cw.writers[i] = r.mustThr()
		if cw.pc[i] = backendPC(r.byte()); cw.pc[i] > pcUnlock {
			r.failf("writer %d is at step %d of its program, which has %d", i, cw.pc[i], pcUnlock+1)
		}
		cw.startAt[i] = r.at()
		if t := cw.writers[i]; r.err == nil && (t.local != i || t.role != RoleWorker || t.id >= len(cw.log.next)) {
			r.failf("writer %d, thread %d, is not a writer at that index", i, t.id)
		}
	}
	if r.err != nil {
		return
	}
	ownThreads(r, s, func(t *thread) bool {
		return t == cw.log.thr || t.local >= 0 && t.local < n && cw.writers[t.local] == t
	})
	workloadEvents(r, s, func(p payload) string {
		if p.kind != evDevice {
			return "the commit workload has only device completions"
		}
		return ""
	})
}

func (h *hackbench) ckSave(w *ckWriter) {
	w.thr(h.parent)
	w.byte(byte(h.start))
	w.at(h.startNs)
	for _, c := range h.children {
		w.thr(c.t)
		w.n(c.done)
		w.flags(c.stepping, c.finished)
	}
	for _, sk := range h.sockets {
		w.n(sk.queued)
		w.thr(sk.reader)
		w.threads(sk.writers)
	}
}

// ckLoad reads what ckSave wrote. The children's roles and sockets follow from
// their index, as newHackbench hands them out: per group, receiver i then its
// sender, the receiver reading socket group*FDs+i, the sender writing from
// the group's first socket.
func (h *hackbench) ckLoad(r *ckReader, s *Sim) {
	hb := h.cfg
	h.parent = r.mustThr()
	if h.start = parentPhase(r.byte()); h.start > parentWaiting {
		r.failf("the hackbench parent is at step %d of its start, which has 3", h.start)
	}
	h.startNs = r.at()
	total := hb.Loops * hb.FDs
	h.children = make([]hbChild, 2*hb.Groups*hb.FDs)
	h.remaining = 0
	for j := range h.children {
		c := &h.children[j]
		g, i := j/(2*hb.FDs), j%(2*hb.FDs)/2
		c.sender = j%2 == 1
		c.socket = g*hb.FDs + i
		if c.sender {
			c.socket = g * hb.FDs
		}
		c.t = r.mustThr()
		c.done = r.n(total + 1)
		fl := r.flags(2)
		c.stepping, c.finished = fl[0], fl[1]
		if !c.finished {
			h.remaining++
		}
		if r.err == nil && (c.t.local != j || c.t.role != RoleWorker || c.finished && c.done != total) {
			r.failf("hackbench child %d (thread %d) is not at its index, or finished before its last message", j, c.t.id)
		}
	}
	h.sockets = make([]hbSocket, hb.Groups*hb.FDs)
	for i := range h.sockets {
		sk := &h.sockets[i]
		sk.queued = r.n(total + 1) // senders that passed the full-buffer test together may overfill it
		sk.reader = r.thr()
		sk.writers = r.threads(len(s.threads))
	}
	if r.err != nil {
		return
	}
	ownThreads(r, s, func(t *thread) bool {
		return t == h.parent || t.local >= 0 && t.local < len(h.children) && h.children[t.local].t == t
	})
	workloadEvents(r, s, func(p payload) string { return "hackbench has none" })
}

func (sp *syncPairs) ckSave(w *ckWriter) {
	w.n(len(sp.tasks))
	for _, k := range sp.tasks {
		w.flags(k.spinner, k.first, k.reading)
		w.thr(k.partner)
		w.iv(k.sentNs)
	}
}

func (sp *syncPairs) ckLoad(r *ckReader, s *Sim) {
	cfg := sp.cfg
	n := cfg.Spinners + 2*cfg.Pairs
	if got := r.uv(); got != uint64(n) && r.err == nil {
		r.failf("%d tasks, where the scenario has %d", got, n)
		return
	}
	sp.tasks = make([]spTask, n)
	for i := range sp.tasks {
		k := &sp.tasks[i]
		fl := r.flags(3)
		k.spinner, k.first, k.reading = fl[0], fl[1], fl[2]
		k.partner = r.thr()
		k.sentNs = r.intIn(-1, s.now)
	}
	if r.err != nil {
		return
	}
	for i, k := range sp.tasks {
		if !k.spinner && (k.partner == nil || k.partner.local < 0 || k.partner.local >= n || sp.tasks[k.partner.local].spinner) {
			r.failf("sync_pairs task %d has no partner among the pairs", i)
			return
		}
	}
	ownThreads(r, s, func(t *thread) bool { return t.local >= 0 && t.local < n && t.role == RoleWorker })
	workloadEvents(r, s, func(p payload) string { return "sync_pairs has none" })
}

// ownThreads fails r unless every thread but the per-CPU kernel threads is one
// the workload says is its own.
func ownThreads(r *ckReader, s *Sim, own func(*thread) bool) {
	for _, t := range s.threads {
		if t.role == RoleBalancer || t.role == RoleKernel {
			continue
		}
		if !own(t) && r.err == nil {
			r.failf("thread %d (%s, state %d) is not one of the workload's", t.id, t.role, t.local)
			return
		}
	}
}

// workloadEvents fails r when a pending workload event is one the workload
// would not handle: bad says why, or "".
func workloadEvents(r *ckReader, s *Sim, bad func(payload) string) {
	for _, p := range s.q.slab {
		switch p.kind {
		case evPacket, evResponse, evConnect, evDevice, evRTApp, evTrace, evSchbench:
			if why := bad(p); why != "" && r.err == nil {
				r.failf("a pending %s event: %s", p.kind, why)
				return
			}
		}
	}
}
