package engine

import (
	"fmt"
	"slices"

	"schedplay/rtapp"
)

// The rt-app workload's part of a checkpoint (checkpoint_state.go). The
// tasks, their compiled events and the resources' names follow from the
// scenario's description (rtappShell); what is written is each thread's place
// in its script and the pass it is recording, the objects' queues, the shared
// timers and the statistics. The count of threads waiting for another, and of
// those done, are recomputed from the threads' states.

func (w *rtappWorkload) ckSave(c *ckWriter) {
	c.n(len(w.thr))
	c.n(w.forkRefused)
	for i := range w.thr {
		th := &w.thr[i]
		c.n(th.task)
		c.thr(th.t)
		c.byte(byte(th.wait))
		c.ref(th.res)
		c.ref(th.mutex)
		c.at(th.wakeAt)
		c.n(th.phase)
		c.n(th.phaseLoop)
		c.n(th.loop)
		c.n(th.ev)
		c.n(th.sub)
		c.bool(th.retry)
		c.iv(th.runtimeNs)
		c.iv(th.logBytes)
		c.bool(th.logFull)
		c.at(th.runStart)
		c.at(th.passStart)
		for _, v := range []int64{th.perf, th.runNs, th.cDur, th.cPeriod, th.wuLat, th.slack} {
			c.iv(v)
		}
		for _, ts := range th.timers {
			c.bool(ts.init)
			c.at(ts.next)
		}
	}
	y := &w.sync
	for _, wd := range y.word {
		c.byte(wd)
	}
	c.ints(y.owner)
	for _, qs := range [][][]int{y.futexq, y.condq, y.semq} {
		for _, q := range qs {
			c.ints(q)
		}
	}
	c.ints(y.barWaiting)
	c.ints(y.semCount)
	for _, ts := range w.timers {
		c.bool(ts.init)
		c.at(ts.next)
	}
	for _, st := range w.stats {
		for _, v := range []int64{st.loops, st.timed, st.overruns, st.runNs, st.cDurNs, st.periodNs,
			st.cPeriodNs, st.wuSum, st.wuMax, st.slackSum, st.slackMin} {
			c.iv(v)
		}
	}
	c.bool(w.deadlocked)
	c.at(w.deadlockNs)
}

// ckLoad reads what ckSave wrote into rtappShell's w, checking every index
// against the description and every queue against its threads' states.
func (w *rtappWorkload) ckLoad(r *ckReader, s *Sim) {
	started := 0
	for _, tk := range w.tasks {
		started += tk.instance
	}
	// Forks add threads after the ones every task starts with.
	n := r.n(rtappMaxThreads + 1)
	if n < started && r.err == nil {
		r.failf("%d rt-app threads, where the description starts %d", n, started)
		return
	}
	w.forkRefused = r.n(1 << 31)
	nm := &w.names
	w.thr = make([]rtThread, n)
	ti := 0
	for i := range w.thr {
		for ti < len(w.tasks) && i >= w.tasks[ti].first+w.tasks[ti].instance {
			ti++
		}
		th := &w.thr[i]
		th.task = r.n(len(w.tasks))
		if i < started && th.task != ti && r.err == nil {
			r.failf("rt-app thread %d is of task %d, where the description starts it for task %d", i, th.task, ti)
		}
		if th.task < 0 || th.task >= len(w.tasks) {
			return // intIn failed the read
		}
		tk := &w.tasks[th.task]
		th.t = r.mustThr()
		if th.wait = rtWait(r.byte()); th.wait >= numRTWaits && r.err == nil {
			r.failf("rt-app thread %d is in state %d, of %d", i, th.wait, numRTWaits)
		}
		th.res = r.ref(max(len(nm.mutexes), len(nm.conds), len(nm.sems)))
		th.mutex = r.ref(len(nm.mutexes))
		th.wakeAt = r.at()
		th.phase = r.n(len(tk.phases))
		th.phaseLoop = r.n(rtapp.MaxLoop + 1)
		th.loop = r.n(max(tk.loop+1, 1))
		th.ev = r.n(len(tk.phases[th.phase].events) + 1)
		th.sub = r.n(2)
		th.retry = r.bool()
		th.runtimeNs = r.intIn(0, rtappChunkNs*(rtapp.MaxDurationUS*1000/rtappChunkNs+1))
		th.logBytes = r.intIn(0, 1<<62)
		th.logFull = r.bool()
		th.runStart = r.at()
		th.passStart = r.past()
		for _, p := range []*int64{&th.perf, &th.runNs, &th.cDur, &th.cPeriod, &th.wuLat, &th.slack} {
			*p = r.iv()
		}
		th.timers = make([]rtTimerState, len(nm.unique))
		for j := range th.timers {
			th.timers[j].init = r.bool()
			th.timers[j].next = r.at()
		}
		if r.err == nil && (th.t.local != i || th.t.role != RoleWorker) {
			r.failf("rt-app thread %d is thread %d, of another index or role", i, th.t.id)
		}
	}
	y := &w.sync
	y.init(w)
	for j := range y.word {
		if y.word[j] = r.byte(); y.word[j] > 2 && r.err == nil {
			r.failf("mutex %d's word is %d", j, y.word[j])
		}
	}
	y.owner = r.ints(len(nm.mutexes), -1, int64(n)-1)
	for _, qs := range [][][]int{y.futexq, y.condq, y.semq} {
		for j := range qs {
			qs[j] = r.ints(n, 0, int64(n)-1)
		}
	}
	y.barWaiting = r.ints(len(nm.barriers), 0, int64(n))
	y.semCount = r.ints(len(nm.sems), 0, 1<<62)
	w.timers = make([]rtTimerState, len(nm.timers))
	for j := range w.timers {
		w.timers[j].init = r.bool()
		w.timers[j].next = r.at()
	}
	w.stats = make([]rtStats, len(w.tasks))
	for j := range w.stats {
		st := &w.stats[j]
		for _, p := range []*int64{&st.loops, &st.timed, &st.overruns, &st.runNs, &st.cDurNs, &st.periodNs,
			&st.cPeriodNs, &st.wuSum, &st.wuMax, &st.slackSum, &st.slackMin} {
			*p = r.iv()
		}
	}
	w.deadlocked = r.bool()
	w.deadlockNs = r.at()
	if r.err != nil {
		return
	}
	if len(y.owner) != len(nm.mutexes) || len(y.semCount) != len(nm.sems) || len(y.barWaiting) != len(nm.barriers) {
		r.failf("%d mutexes, %d semaphores and %d barriers, where the description has %d, %d and %d",
			len(y.owner), len(y.semCount), len(y.barWaiting), len(nm.mutexes), len(nm.sems), len(nm.barriers))
		return
	}
	if msg := w.ckConsistent(); msg != "" {
		r.failf("%s", msg)
		return
	}
	ownThreads(r, s, func(t *thread) bool { return t.local >= 0 && t.local < n && w.thr[t.local].t == t })
	workloadEvents(r, s, func(p payload) string {
		if p.kind != evRTApp {
			return "the rtapp workload has only its threads' timers"
		}
		if p.arg < 0 || int(p.arg) >= n {
			return fmt.Sprintf("rt-app thread %d does not exist", p.arg)
		}
		return ""
	})
}

// ckConsistent recounts the derived counts and checks that each thread waiting
// on an object is in that object's queue, once, and nothing else is; it
// returns what is wrong, or "".
func (w *rtappWorkload) ckConsistent() string {
	y := &w.sync
	nm := &w.names
	w.finished, y.blocked = 0, 0
	seen := make([]int, len(w.thr))
	for _, c := range []struct {
		qs  [][]int
		sts []rtWait
	}{{y.futexq, []rtWait{rtLock}}, {y.condq, []rtWait{rtCond, rtBarrier, rtSuspend}}, {y.semq, []rtWait{rtSem}}} {
		for res, q := range c.qs {
			for _, i := range q {
				th := &w.thr[i]
				seen[i]++
				if !slices.Contains(c.sts, th.wait) || th.res != res {
					return fmt.Sprintf("rt-app thread %d is queued on %s %d but is in state %s on %d", i, c.sts[0], res, th.wait, th.res)
				}
			}
		}
	}
	for i := range w.thr {
		th := &w.thr[i]
		switch {
		case th.wait == rtDone:
			w.finished++
		case th.wait.blockedOnThread():
			y.blocked++
		}
		if th.wait.blockedOnThread() != (seen[i] == 1) || seen[i] > 1 {
			return fmt.Sprintf("rt-app thread %d in state %s is queued %d times", i, th.wait, seen[i])
		}
		if (th.wait == rtCond || th.wait == rtBarrier || th.wait == rtSuspend) && (th.mutex < 0 || th.res >= len(nm.conds)) {
			return fmt.Sprintf("rt-app thread %d waits on a condition variable without its mutex", i)
		}
		if th.ev > len(w.tasks[th.task].phases[th.phase].events) {
			return fmt.Sprintf("rt-app thread %d is past its phase's events", i)
		}
	}
	for m, o := range y.owner {
		if (o >= 0) != (y.word[m] != 0) {
			return fmt.Sprintf("mutex %d has owner %d with its word at %d", m, o, y.word[m])
		}
	}
	for b, n := range y.barWaiting {
		if n >= nm.participants[b] {
			return fmt.Sprintf("barrier %d waits for %d more arrivals, of %d participants", b, n, nm.participants[b])
		}
	}
	return ""
}
