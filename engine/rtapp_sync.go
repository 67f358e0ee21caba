package engine

import (
	"fmt"

	"schedplay/rtapp"
)

// The rt-app workload's synchronisation objects (rtapp_workload.go): mutexes,
// condition variables, barriers, semaphores and suspend/resume, each a FIFO of
// thread indexes (thread.local), so who runs next never depends on anything
// but the order threads arrived in.

// rtSync holds the objects' state, by resource index.
type rtSync struct {
	owner     []int   // by mutex: the holder, or -1
	lockq     [][]int // by mutex: threads waiting to take it, oldest first
	condq     [][]int // by condition variable: waiters, oldest first
	barq      [][]int // by barrier: arrived threads waiting for the rest
	semCount  []int   // by semaphore
	semq      [][]int // by semaphore: waiters
	suspended [][]int // by task: its suspended threads
	// blocked counts the threads in a wait another thread must end
	// (rtWait.blockedOnThread).
	blocked int
}

func (y *rtSync) init(w *rtappWorkload) {
	nm := &w.names
	y.owner = make([]int, len(nm.mutexes))
	for i := range y.owner {
		y.owner[i] = -1
	}
	y.lockq = make([][]int, len(nm.mutexes))
	y.condq = make([][]int, len(nm.conds))
	y.barq = make([][]int, len(nm.barriers))
	y.semCount = make([]int, len(nm.sems))
	y.semq = make([][]int, len(nm.sems))
	y.suspended = make([][]int, len(w.tasks))
}

// syncEvent runs a lock, unlock, wait, signal, broad, sync, barrier,
// suspend, resume, sem_post or sem_wait event for th (run_event); it reports
// whether th blocks.
func (w *rtappWorkload) syncEvent(s *Sim, th *rtThread, e *rtEvent) bool {
	y := &w.sync
	me := th.t.local
	switch e.kind {
	case rtapp.Lock:
		if y.owner[e.res] < 0 {
			y.owner[e.res] = me
			return false
		}
		w.block(th, rtLock, e.res)
		y.lockq[e.res] = append(y.lockq[e.res], me)
		w.checkEnd(s)
		return true
	case rtapp.Unlock:
		w.unlock(s, th, e.res)
	case rtapp.Wait:
		w.condWait(s, th, e)
		return true
	case rtapp.Signal:
		w.signal(s, th, e.res, false)
	case rtapp.Broad:
		w.signal(s, th, e.res, true)
	case rtapp.Sync:
		w.signal(s, th, e.res, false)
		w.condWait(s, th, e)
		return true
	case rtapp.Barrier:
		// rtapp_barrier: the last of the participants to arrive broadcasts;
		// the others wait.
		if len(y.barq[e.res])+1 >= w.names.participants[e.res] {
			for _, i := range y.barq[e.res] {
				w.grant(s, th, i)
			}
			y.barq[e.res] = y.barq[e.res][:0]
			return false
		}
		w.block(th, rtBarrier, e.res)
		y.barq[e.res] = append(y.barq[e.res], me)
		w.checkEnd(s)
		return true
	case rtapp.Suspend:
		w.block(th, rtSuspend, th.task)
		y.suspended[th.task] = append(y.suspended[th.task], me)
		w.checkEnd(s)
		return true
	case rtapp.Resume:
		for _, i := range y.suspended[e.res] {
			w.grant(s, th, i)
		}
		y.suspended[e.res] = y.suspended[e.res][:0]
	case rtapp.SemPost:
		if q := y.semq[e.res]; len(q) > 0 {
			var i int
			i, y.semq[e.res] = popFront(q)
			w.grant(s, th, i)
		} else {
			y.semCount[e.res]++
		}
	case rtapp.SemWait:
		if y.semCount[e.res] > 0 {
			y.semCount[e.res]--
			return false
		}
		w.block(th, rtSem, e.res)
		y.semq[e.res] = append(y.semq[e.res], me)
		w.checkEnd(s)
		return true
	}
	return false
}

// block puts th in wait st on resource res.
func (w *rtappWorkload) block(th *rtThread, st rtWait, res int) {
	w.setWait(th, st)
	th.res = res
}

// grant ends thread i's wait: by gives it what it waited for and wakes it.
func (w *rtappWorkload) grant(s *Sim, by *rtThread, i int) {
	o := &w.thr[i]
	w.setWait(o, rtGranted)
	o.res, o.mutex = -1, -1
	s.wake(o.t, by.t.cpu, false)
}

// unlock releases mutex m, handing it to its longest waiter.
func (w *rtappWorkload) unlock(s *Sim, th *rtThread, m int) {
	y := &w.sync
	q := y.lockq[m]
	if len(q) == 0 {
		y.owner[m] = -1
		return
	}
	i, rest := popFront(q)
	y.lockq[m] = rest
	y.owner[m] = i
	w.grant(s, th, i)
}

// condWait is pthread_cond_wait: release the mutex, wait on the condition.
func (w *rtappWorkload) condWait(s *Sim, th *rtThread, e *rtEvent) {
	w.unlock(s, th, e.mutex)
	w.block(th, rtCond, e.res)
	th.mutex = e.mutex
	w.sync.condq[e.res] = append(w.sync.condq[e.res], th.t.local)
	w.checkEnd(s)
}

// signal moves condition c's longest waiter (all of them: broad) to its
// mutex: each takes it back before its wait returns.
func (w *rtappWorkload) signal(s *Sim, th *rtThread, c int, all bool) {
	y := &w.sync
	for len(y.condq[c]) > 0 {
		var i int
		i, y.condq[c] = popFront(y.condq[c])
		o := &w.thr[i]
		m := o.mutex
		if y.owner[m] < 0 {
			y.owner[m] = i
			w.grant(s, th, i)
		} else {
			w.block(o, rtLock, m)
			o.mutex = -1
			y.lockq[m] = append(y.lockq[m], i)
		}
		if !all {
			return
		}
	}
}

// popFront returns q's first element and the rest, in q's backing array.
func popFront(q []int) (int, []int) {
	v := q[0]
	copy(q, q[1:])
	return v, q[:len(q)-1]
}

// deadlockReport names every thread that waits for another.
func (w *rtappWorkload) deadlockReport(s *Sim) RTAppDeadlock {
	d := RTAppDeadlock{AtMs: float64(s.finishedNs) / 1e6}
	for i := range w.thr {
		th := &w.thr[i]
		if !th.wait.blockedOnThread() {
			continue
		}
		tk := &w.tasks[th.task]
		d.Threads = append(d.Threads, RTAppBlocked{Task: tk.name, Thread: th.t.name, On: w.waitText(th)})
	}
	return d
}

// waitText says what th waits for, as the description names it.
func (w *rtappWorkload) waitText(th *rtThread) string {
	nm := &w.names
	switch th.wait {
	case rtLock:
		holder := "nobody"
		if o := w.sync.owner[th.res]; o >= 0 {
			holder = w.thr[o].t.name
		}
		return fmt.Sprintf("lock %q (held by %s)", nm.mutexes[th.res], holder)
	case rtCond:
		return fmt.Sprintf("wait %q (mutex %q): no signal can come", nm.conds[th.res], nm.mutexes[th.mutex])
	case rtBarrier:
		return fmt.Sprintf("barrier %q (%d of %d arrived)", nm.barriers[th.res], len(w.sync.barq[th.res]), nm.participants[th.res])
	case rtSuspend:
		return fmt.Sprintf("suspend: no resume of %q can come", w.tasks[th.res].name)
	case rtSem:
		return fmt.Sprintf("sem_wait %q: no sem_post can come", nm.sems[th.res])
	}
	return th.wait.String()
}

var rtWaitNames = [...]string{"start", "running", "run", "runtime", "yield", "spin", "sleep", "timer", "granted",
	"lock", "wait", "barrier", "suspend", "sem_wait", "done"}

func (w rtWait) String() string {
	if int(w) < len(rtWaitNames) {
		return rtWaitNames[w]
	}
	return "wait?"
}
