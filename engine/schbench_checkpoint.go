package engine

import "fmt"

// The schbench workload's state in a checkpoint: each worker's and message
// thread's place in its program, the lists, and the latency histograms.

func (h *schbench) ckSave(w *ckWriter) {
	for i := range h.workers {
		x := &h.workers[i]
		w.thr(x.t)
		w.at(x.wakeAt)
		w.at(x.workAt)
		w.n(x.pending)
		w.n(x.queued)
		w.byte(byte(x.phase))
		w.flags(x.waiting, x.sleeping, x.released)
	}
	for i := range h.msgs {
		m := &h.msgs[i]
		w.thr(m.t)
		w.ints(m.list)
		w.ints(m.walk)
		w.at(m.walkAt)
		w.at(m.secAt)
		w.n(m.sent)
		w.n(m.cur)
		w.flags(m.armed, m.waiting, m.sleeping)
	}
	h.wakeLat.ckSave(w)
	h.reqLat.ckSave(w)
	w.iv(h.done)
}

// ckLoad reads what ckSave wrote into a shell that has the configuration
// (schbenchShell); every list names workers of its own message thread.
func (h *schbench) ckLoad(r *ckReader, s *Sim) {
	n := len(s.cpus)
	m := max(h.cfg.MessageThreads, 1)
	per := h.cfg.Workers
	if per == 0 {
		per = (n + m - 1) / m
	}
	h.opNs = schbenchOpNs(h.cfg)
	h.workers = make([]sbWorker, m*per)
	for i := range h.workers {
		x := &h.workers[i]
		x.t, x.msg = r.mustThr(), i/per
		x.wakeAt, x.workAt = r.at(), r.at()
		x.pending = r.n(1 << 30)
		x.queued = r.n(1 << 30)
		if x.phase = sbPhase(r.byte()); x.phase > sbSleep {
			r.failf("schbench worker %d is at step %d of its program, which has %d", i, x.phase, sbSleep+1)
		}
		fl := r.flags(3)
		x.waiting, x.sleeping, x.released = fl[0], fl[1], fl[2]
		if r.err == nil && (x.t.local != i || x.t.role != RoleWorker) {
			r.failf("schbench worker %d (thread %d) is not at its index", i, x.t.id)
		}
	}
	h.msgs = make([]sbMessage, m)
	for i := range h.msgs {
		x := &h.msgs[i]
		x.t = r.mustThr()
		x.list = r.ints(len(h.workers), int64(i*per), int64((i+1)*per-1))
		x.walk = r.ints(len(h.workers), 0, int64(len(h.workers)-1))
		x.walkAt, x.secAt = r.at(), r.at()
		x.sent = r.n(1 << 30)
		x.cur = r.n(1 << 62)
		fl := r.flags(3)
		x.armed, x.waiting, x.sleeping = fl[0], fl[1], fl[2]
		if r.err == nil && (x.t.local != len(h.workers)+i || x.t.role != RoleWaker) {
			r.failf("schbench message thread %d (thread %d) is not at its index", i, x.t.id)
		}
	}
	h.wakeLat.ckLoad(r)
	h.reqLat.ckLoad(r)
	h.done = r.iv()
	if r.err != nil {
		return
	}
	total := len(h.workers) + len(h.msgs)
	ownThreads(r, s, func(t *thread) bool {
		if t.local < 0 || t.local >= total {
			return false
		}
		if t.local < len(h.workers) {
			return h.workers[t.local].t == t
		}
		return h.msgs[t.local-len(h.workers)].t == t
	})
	workloadEvents(r, s, func(p payload) string {
		if p.kind != evSchbench {
			return "the schbench workload has only its threads' usleeps"
		}
		if p.arg < 0 || int(p.arg) >= total {
			return fmt.Sprintf("schbench thread %d does not exist", p.arg)
		}
		return ""
	})
}
