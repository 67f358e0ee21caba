package engine

import (
	"fmt"

	"schedplay/rtapp"
)

// The rt-app workload's synchronisation objects (rtapp_workload.go), as the
// threads of rt-app reach them through glibc: mutexes with default
// attributes, condition variables, rt-app's barrier built of a mutex and a
// condition variable, suspend and resume built of the same, and POSIX
// semaphores. What a thread sleeps on is a queue of thread indexes
// (thread.local), oldest first, so who is woken never depends on anything
// but the order threads arrived in.
//
// Mutexes are glibc's low-level lock (nptl/lowlevellock.c,
// __lll_lock_wait; lll_unlock in lowlevellock.h), a word that is 0 (free),
// 1 (held) or 2 (held, and someone may sleep on it):
//   - lock takes a free word by compare-and-swap 0→1 (the fast path);
//     otherwise it swaps in 2 and, if the word was not 0, sleeps on it
//     (futex_wait). Woken, it swaps 2 in again and sleeps again if the lock
//     was taken meanwhile: nothing is handed over.
//   - unlock swaps in 0 and, if the word was 2, wakes one sleeper
//     (futex_wake 1: the kernel wakes its futex queue's first waiter of the
//     best priority, oldest first among equals; every rt-app thread here is
//     SCHED_OTHER, so oldest first). The woken thread must run before it can
//     take the lock, and the unlocking thread, still on its CPU, or any
//     other may take it first: the lock goes to whoever asks when it is free.
//
// Condition variables are glibc 2.25's (nptl/pthread_cond_wait.c):
// pthread_cond_wait releases the mutex and sleeps; pthread_cond_signal wakes
// the oldest waiter, pthread_cond_broadcast every waiter, and no waiter is
// moved to the mutex: each woken waiter takes the mutex back itself when it
// runs (__pthread_mutex_cond_lock, which always leaves the word at 2). A
// signal or broadcast with no waiter is lost.
//
// rt-app's own objects are built of those (run_event in src/rt-app.c):
//   - barrier: lock the barrier's mutex; if `waiting` is 0, broadcast;
//     else decrement it and wait; once woken (the mutex retaken) increment
//     it; unlock. `waiting` starts at the participants less one
//     (init_barrier_resource, parse_task_event_data), so the last to arrive
//     broadcasts; and since each woken waiter restores its count only after
//     retaking the mutex, a thread that comes back at once may find it 0
//     again and pass alone.
//   - suspend NAME: lock the mutex NAME, wait on the condition variable NAME,
//     unlock. resume NAME: lock the mutex NAME, broadcast on NAME, unlock.
//     Both objects are those of that name that lock, wait and signal use.
//   - sem_wait and sem_post are glibc's semaphores (nptl/sem_waitcommon.c,
//     sem_post.c): post adds one and, if a thread sleeps on the semaphore,
//     wakes the oldest; wait takes one if there is one, and otherwise sleeps
//     and tries again when woken (a thread that comes first may take it).
//
// Locking and waking take no simulated time of their own: the wakes go
// through the engine's wake path (Sim.wake), which charges what the
// platform charges for waking a thread.

// rtSync holds the objects' state, by resource index.
type rtSync struct {
	word   []uint8 // by mutex: glibc's lock word, 0, 1 or 2
	owner  []int   // by mutex: the holder, or -1
	futexq [][]int // by mutex: threads asleep on its word
	condq  [][]int // by condition variable: waiters, oldest first
	// barWaiting is each barrier's `waiting` (rt-app's
	// res.barrier.waiting): arrivals still to come before one broadcasts.
	barWaiting []int
	semCount   []int   // by semaphore
	semq       [][]int // by semaphore: threads asleep on it
	// blocked counts the threads in a wait another thread must end
	// (rtWait.blockedOnThread).
	blocked int
}

func (y *rtSync) init(w *rtappWorkload) {
	nm := &w.names
	y.word = make([]uint8, len(nm.mutexes))
	y.owner = make([]int, len(nm.mutexes))
	for i := range y.owner {
		y.owner[i] = -1
	}
	y.futexq = make([][]int, len(nm.mutexes))
	y.condq = make([][]int, len(nm.conds))
	y.barWaiting = make([]int, len(nm.barriers))
	for b := range y.barWaiting {
		y.barWaiting[b] = nm.participants[b] - 1
	}
	y.semCount = make([]int, len(nm.sems))
	y.semq = make([][]int, len(nm.sems))
}

// syncEvent runs th's lock, unlock, wait, signal, broad, sync, barrier,
// suspend, resume, sem_post or sem_wait event e from where th is in it
// (th.sub: the events made of several steps resume after a sleep at the
// step that slept); it reports whether th sleeps. A thread woken from a
// sleep comes back here (rtGranted) and tries the step again.
func (w *rtappWorkload) syncEvent(s *Sim, th *rtThread, e *rtEvent) bool {
	y := &w.sync
	switch e.kind {
	case rtapp.Lock:
		if !w.lock(s, th, e.mutex) {
			return true
		}
	case rtapp.Unlock:
		w.unlock(s, th, e.mutex)
	case rtapp.Signal:
		w.wakeCond(s, th, e.res, false)
	case rtapp.Broad:
		w.wakeCond(s, th, e.res, true)
	case rtapp.Wait, rtapp.Sync:
		if th.sub == 0 {
			if e.kind == rtapp.Sync {
				w.wakeCond(s, th, e.res, false)
			}
			w.condWait(s, th, e.res, e.mutex, rtCond)
			th.sub = 1
			return true
		}
		if !w.condLock(s, th, e.mutex) {
			return true
		}
	case rtapp.Suspend:
		switch th.sub {
		case 0:
			if !w.lock(s, th, e.mutex) {
				return true
			}
			w.condWait(s, th, e.res, e.mutex, rtSuspend)
			th.sub = 1
			return true
		case 1:
			if !w.condLock(s, th, e.mutex) {
				return true
			}
			w.unlock(s, th, e.mutex)
		}
	case rtapp.Resume:
		if !w.lock(s, th, e.mutex) {
			return true
		}
		w.wakeCond(s, th, e.res, true)
		w.unlock(s, th, e.mutex)
	case rtapp.Barrier:
		b := e.res
		m, c := w.names.barMutex[b], w.names.barCond[b]
		switch th.sub {
		case 0:
			if !w.lock(s, th, m) {
				return true
			}
			if y.barWaiting[b] > 0 {
				y.barWaiting[b]--
				w.condWait(s, th, c, m, rtBarrier)
				th.sub = 1
				return true
			}
			w.wakeCond(s, th, c, true) // the last to arrive
		case 1:
			if !w.condLock(s, th, m) {
				return true
			}
			y.barWaiting[b]++
		}
		w.unlock(s, th, m)
	case rtapp.SemPost:
		y.semCount[e.res]++
		if q := y.semq[e.res]; len(q) > 0 {
			var i int
			i, y.semq[e.res] = popFront(q)
			w.grant(s, th, i)
		}
	case rtapp.SemWait:
		if y.semCount[e.res] == 0 {
			w.sleepOn(s, th, rtSem, e.res, &y.semq[e.res])
			return true
		}
		y.semCount[e.res]--
	}
	th.sub = 0
	return false
}

// lock is pthread_mutex_lock on mutex m (lll_lock): it reports whether th
// holds m now; if not, th sleeps on m's word and tries again when woken.
// A thread woken from the word takes the lock with the word at 2, as
// __lll_lock_wait's swap does.
func (w *rtappWorkload) lock(s *Sim, th *rtThread, m int) bool {
	y := &w.sync
	if y.word[m] == 0 {
		y.word[m] = 1
		if th.retry {
			y.word[m] = 2
		}
		y.owner[m] = th.t.local
		th.retry = false
		return true
	}
	y.word[m] = 2
	w.sleepOn(s, th, rtLock, m, &y.futexq[m])
	return false
}

// condLock takes back mutex m after a condition wait
// (__pthread_mutex_cond_lock): as lock, but the word is left at 2 whoever
// else wants it.
func (w *rtappWorkload) condLock(s *Sim, th *rtThread, m int) bool {
	th.retry = true
	return w.lock(s, th, m)
}

// unlock is pthread_mutex_unlock on m (lll_unlock): the word goes to 0, and
// if it was 2 the oldest sleeper on it is woken to try again.
func (w *rtappWorkload) unlock(s *Sim, th *rtThread, m int) {
	y := &w.sync
	contended := y.word[m] == 2
	y.word[m], y.owner[m] = 0, -1
	if q := y.futexq[m]; contended && len(q) > 0 {
		var i int
		i, y.futexq[m] = popFront(q)
		w.grant(s, th, i)
	}
}

// condWait is pthread_cond_wait's first half: release mutex m, sleep on
// condition variable c in state st.
func (w *rtappWorkload) condWait(s *Sim, th *rtThread, c, m int, st rtWait) {
	w.unlock(s, th, m)
	th.mutex = m
	w.sleepOn(s, th, st, c, &w.sync.condq[c])
}

// wakeCond wakes condition variable c's oldest waiter (all of them: a
// broadcast); each takes its mutex back when it runs.
func (w *rtappWorkload) wakeCond(s *Sim, th *rtThread, c int, all bool) {
	y := &w.sync
	for len(y.condq[c]) > 0 {
		var i int
		i, y.condq[c] = popFront(y.condq[c])
		w.grant(s, th, i)
		if !all {
			return
		}
	}
}

// sleepOn puts th to sleep in state st on resource res, at the end of q.
func (w *rtappWorkload) sleepOn(s *Sim, th *rtThread, st rtWait, res int, q *[]int) {
	w.setWait(th, st)
	th.res = res
	*q = append(*q, th.t.local)
	w.checkEnd(s)
}

// grant wakes thread i from its sleep: by is the waking thread. The woken
// thread runs its event's step again (th.sub), as a woken futex waiter
// returns into the loop that slept.
func (w *rtappWorkload) grant(s *Sim, by *rtThread, i int) {
	o := &w.thr[i]
	if o.wait == rtLock {
		o.retry = true
	}
	w.setWait(o, rtGranted)
	o.res = -1
	s.wake(o.t, by.t.cpu, false)
}

// popFront returns q's first element and the rest, in q's backing array.
func popFront(q []int) (int, []int) {
	v := q[0]
	copy(q, q[1:])
	return v, q[:len(q)-1]
}

// deadlockReport names every thread that waits for another.
func (w *rtappWorkload) deadlockReport(s *Sim) RTAppDeadlock {
	d := RTAppDeadlock{AtMs: float64(w.deadlockNs) / 1e6}
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
	e := &w.tasks[th.task].phases[th.phase].events[th.ev]
	switch th.wait {
	case rtLock:
		holder := "nobody"
		if o := w.sync.owner[th.res]; o >= 0 {
			holder = w.thr[o].t.name
		}
		what := fmt.Sprintf("lock %q", nm.mutexes[th.res])
		switch e.kind {
		case rtapp.Barrier:
			what = fmt.Sprintf("barrier %q's mutex", nm.barriers[e.res])
		case rtapp.Suspend, rtapp.Resume:
			what = fmt.Sprintf("%s %q's mutex", e.kind, nm.mutexes[th.res])
		}
		return fmt.Sprintf("%s (held by %s)", what, holder)
	case rtCond:
		return fmt.Sprintf("wait %q (mutex %q): no signal can come", nm.conds[th.res], nm.mutexes[th.mutex])
	case rtBarrier:
		b := e.res
		return fmt.Sprintf("barrier %q (%d of %d arrived)", nm.barriers[b], len(w.sync.condq[th.res]), nm.participants[b])
	case rtSuspend:
		return fmt.Sprintf("suspend on %q: no resume of %q can come", nm.conds[th.res], nm.conds[th.res])
	case rtSem:
		return fmt.Sprintf("sem_wait %q: no sem_post can come", nm.sems[th.res])
	}
	return th.wait.String()
}

var rtWaitNames = [...]string{"start", "running", "run", "runtime", "yield", "spin", "log write", "sleep", "timer", "moving", "woken",
	"lock", "wait", "barrier", "suspend", "sem_wait", "done"}

func (w rtWait) String() string {
	if int(w) < len(rtWaitNames) {
		return rtWaitNames[w]
	}
	return "wait?"
}
