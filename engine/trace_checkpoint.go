package engine

import (
	"fmt"
	"slices"

	"schedplay/kerneltrace"
)

// The trace workload's part of a checkpoint (checkpoint_state.go). The model
// and the all-timed switch are the scenario's (traceShell); what is written
// is each thread's place in its segments, its tokens of early wakeups and
// its replayed figures. The count of threads done is recomputed from their
// states.

func (w *traceWorkload) ckSave(c *ckWriter) {
	c.n(len(w.thr))
	for i := range w.thr {
		th := &w.thr[i]
		c.thr(th.t)
		c.byte(byte(th.state))
		c.ref(th.seg)
		c.iv(th.prog)
		c.iv(th.stepNs)
		c.n(th.wi)
		c.at(th.wakeAt)
		c.n(len(th.early))
		for _, k := range th.early {
			c.ref(int(k))
		}
		c.n(len(th.lat))
		for _, v := range th.lat {
			c.iv(v)
		}
		c.iv(th.runnableNs)
		c.iv(int64(th.migrations))
		c.iv(int64(th.wakeups))
		c.ref(th.lastCPU)
		c.iv(th.workNs)
	}
}

// ckLoad reads what ckSave wrote into traceShell's w, checking every index
// against the model.
func (w *traceWorkload) ckLoad(r *ckReader, s *Sim) {
	m := w.model
	n := len(m.Threads)
	if got := r.uv(); got != uint64(n) && r.err == nil {
		r.failf("%d trace threads, where the model has %d", got, n)
		return
	}
	w.thr = make([]trThread, n)
	w.finished = 0
	for i := range w.thr {
		th := &w.thr[i]
		segs := m.Threads[i].Segments
		th.t = r.mustThr()
		if th.state = trState(r.byte()); th.state >= numTrStates && r.err == nil {
			r.failf("trace thread %d is in state %d, of %d", i, th.state, numTrStates)
		}
		th.seg = r.ref(len(segs) + 1) // -1 to len(segs)
		th.prog = r.intIn(0, maxTraceNs)
		th.stepNs = r.intIn(0, maxTraceNs)
		th.wi = r.n(maxTraceSegWakes(segs) + 1)
		th.wakeAt = r.at()
		early := r.count(1, len(segs)+1)
		for range early {
			th.early = append(th.early, int32(r.ref(len(segs))))
		}
		lat := r.count(1, 1<<30)
		th.lat = make([]int64, 0, lat)
		for range lat {
			th.lat = append(th.lat, r.intIn(0, 1<<62))
		}
		th.runnableNs = r.intIn(0, 1<<62)
		th.migrations = int(r.intIn(0, 1<<31))
		th.wakeups = int(r.intIn(0, 1<<31))
		th.lastCPU = r.ref(len(s.cpus))
		th.workNs = r.intIn(0, 1<<62)
		if r.err != nil {
			return
		}
		if th.t.local != i || th.t.role != RoleWorker {
			r.failf("trace thread %d is thread %d, of another index or role", i, th.t.id)
			return
		}
		if msg := th.ckConsistent(segs); msg != "" {
			r.failf("trace thread %d: %s", i, msg)
			return
		}
		if th.state == trDone {
			w.finished++
		}
	}
	ownThreads(r, s, func(t *thread) bool { return t.local >= 0 && t.local < n && w.thr[t.local].t == t })
	workloadEvents(r, s, func(p payload) string {
		if p.kind != evTrace {
			return "the trace workload has only its threads' timers"
		}
		if p.arg < 0 || int(p.arg) >= n {
			return fmt.Sprintf("trace thread %d does not exist", p.arg)
		}
		return ""
	})
}

// ckConsistent checks a loaded thread against its segments; it returns
// what is wrong, or "".
func (th *trThread) ckConsistent(segs []kerneltrace.Segment) string {
	switch {
	case th.seg >= 0 && th.seg < len(segs) && (th.prog > segs[th.seg].RunNs || th.wi > len(segs[th.seg].Wakes)):
		return fmt.Sprintf("progress %d ns or wake %d is past segment %d", th.prog, th.wi, th.seg)
	case th.state == trRunning && th.seg < 0:
		return "runs before its start"
	case !slices.IsSorted(th.early) || len(slices.Compact(slices.Clone(th.early))) != len(th.early):
		return "its early wakeups are not a sorted set"
	}
	return ""
}

// maxTraceSegWakes is the most wakes a segment of segs has.
func maxTraceSegWakes(segs []kerneltrace.Segment) int {
	most := 0
	for i := range segs {
		most = max(most, len(segs[i].Wakes))
	}
	return most
}
