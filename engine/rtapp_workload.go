package engine

import (
	"schedplay/rtapp"
)

// The rtapp workload (workload.kind=rtapp, rtapp_scenario.go): the threads an
// rt-app description starts, each following its task's script as rt-app's
// thread_body() and run_event() (src/rt-app.c) do.
//
// Every task starts `instance` threads at time 0 (rt-app's main creates them
// all before releasing them through one barrier, t_zero being the first
// thread's start). A thread pinned by its task's "cpus" (one CPU) is homed and
// pinned there; the others are homed round robin over the CPUs, as the
// engine's other workloads home theirs, and not pinned. A thread with a
// "delay" first sleeps until delay µs after time 0 (t_first = t_zero +
// delay, clock_nanosleep TIMER_ABSTIME). It then runs its phases in order,
// each phase's events `loop` times, and the whole list `loop` times (-1:
// until the run's end); a thread that is done blocks for good, and when every
// thread is done the run ends (rt-app exits), as a finished hackbench does.
//
// One pass over a phase's events is rt-app's loop iteration, run(): it makes
// one row of rt-app's log and one completion of the run's results (its
// latency is the pass's wall time, rt-app's "period" column).
//
// Events (run_event):
//   - run: a step of that much CPU time. rt-app's run is a fixed amount of
//     work, calibrated to take that long on the fastest CPU: every simulated
//     CPU has the same speed, so it is CPU time.
//   - runtime busy-loops in 32 µs chunks of work until that much wall time
//     has passed, at least one chunk (rtapp_runtime.go). For both, the log's
//     "run" column is the wall time the event took.
//   - sleep: blocks that long (nanosleep); a timer interrupt on the thread's
//     CPU wakes it, as the hrtimer that ends a nanosleep does.
//   - timer: rt-app's periodic timer (rtapp_timer). Its next expiry starts at
//     t_first (the first user's) and grows by the period at each use, so it
//     keeps its grid whatever preempts the thread; the thread sleeps until
//     it unless it is already past. Past it (an overrun), a relative timer
//     restarts its grid from now, an absolute one keeps it (later uses then
//     return at once until it catches up). slack is expiry minus the time
//     the event is reached; wu_lat, the time from the expiry to the thread
//     running again. A ref starting with "unique" is one timer per thread;
//     other refs are one timer shared by every thread that names it.
//   - lock/unlock, wait, signal, broad, sync, barrier, suspend, resume,
//     sem_post, sem_wait: glibc's mutexes, condition variables and
//     semaphores, and rt-app's barrier and suspend built of them
//     (rtapp_sync.go). An unlock wakes a sleeper but hands nothing over:
//     whoever asks first when the lock is free takes it. suspend and resume
//     name a shared condition variable (and mutex): resume wakes every
//     thread suspended on its name then, and a resume finding none is lost.
//   - yield: sched_yield. The thread gives the CPU to its runqueue's next
//     thread, if there is one, at once (Sim.yielding); alone, it goes on.
//
// A pass that took no simulated time at all (only lock, signal, post, ...)
// costs rtappIdlePassNs of CPU before the next, standing for rt-app's own
// work, so a looping thread cannot stall the clock.
//
// rt-app writes each pass's row of its log (log_timing) with fprintf to the
// thread's file (log_size "file", the default; rtapp_log.go): the stdio
// buffer is written out, a write(2), each time it fills, between a pass and
// the next. That write costs the thread rtappLogWriteNs of CPU there.
//
// A thread blocked on a mutex, condition variable, barrier, suspend or
// semaphore can be woken only by another rt-app thread. When every thread
// not yet done is blocked so, none ever will be: the run ends there and its
// results name each blocked thread and what it waits for (RTAppDeadlock).

// rtappIdlePassNs is the CPU time a loop pass that took none costs.
const rtappIdlePassNs = 1000

// rtWait is what an rt-app thread is doing, or waiting for.
type rtWait uint8

const (
	rtStart    rtWait = iota // not started: blocked until its start (delay) or woken at time 0
	rtRunning                // between events (no step, no wait)
	rtRun                    // a run step is under way
	rtRuntime                // a runtime step is under way, until wakeAt (rtapp_runtime.go)
	rtYield                  // the yield's step is under way
	rtSpin                   // rtappIdlePassNs is under way
	rtLogWrite               // its log's stdio buffer is being written (rtappLogWriteNs)
	rtSleep                  // asleep until wakeAt
	rtTimer                  // asleep until its timer's expiry, wakeAt
	rtMove                   // off its CPU for the one its phase's affinity names, queued there at wakeAt
	rtGranted                // woken by another thread: tries its event's step again when it runs
	rtLock                   // blocked on mutex res
	rtCond                   // blocked on condition variable res (its mutex released)
	rtBarrier                // waiting on barrier res's condition variable (res: the condition variable)
	rtSuspend                // suspended on condition variable res until a resume of its name
	rtSem                    // blocked on semaphore res
	rtDone                   // finished its loops
	numRTWaits
)

// blockedOnThread says the thread waits for another thread (not the clock).
func (w rtWait) blockedOnThread() bool { return w >= rtLock && w <= rtSem }

// rtEvent is an rtapp.Event compiled for the engine.
type rtEvent struct {
	kind rtapp.Kind
	ns   int64 // run, runtime, sleep: the duration; timer: the period
	// res is the index of the resource in its kind's table: the condition
	// variable of wait, signal, broad, sync, suspend and resume, the
	// barrier, the semaphore, the timer (shared or unique).
	res int
	// mutex: of lock and unlock, the one wait and sync hold, the one of
	// suspend's and resume's name.
	mutex int
	// timer only
	unique, relative bool
}

type rtPhase struct {
	loop   int
	events []rtEvent
	// pin is the CPU its affinity pins the thread to, or -1 for every CPU:
	// the phase's cpus, else its task's (set_thread_affinity).
	pin int
	// sched is the policy and priority the phase sets when its pass begins
	// (set_thread_param), nil when it sets none (the thread keeps its own).
	sched *rtapp.Sched
	// taskgroup is the task group the phase moves the thread into when its
	// pass begins, "" to keep its own.
	taskgroup string
}

// rtTask is a task of the description, compiled.
type rtTask struct {
	name     string
	instance int
	loop     int
	delayNs  int64
	pin      int // pinned CPU, or -1
	phases   []rtPhase
	first    int // its first thread's index (thread.local)
	// scxWeight is its threads' sched_ext weight (ScxTask.Weight), from
	// its nice value.
	scxWeight int64
	nice      int
	policy    rtapp.Policy // SCHED_OTHER, SCHED_BATCH or SCHED_IDLE
	sliceNs   int64        // a custom slice (sched_attr.sched_runtime), or a DEADLINE task's runtime; 0 when none
	// dlDeadlineNs and dlPeriodNs are a SCHED_DEADLINE task's D and P.
	dlDeadlineNs, dlPeriodNs int64
	// taskgroup is the task group its threads start in ("": the root).
	taskgroup string
}

// rtThread is one thread instance: where it is in its script, and the loop
// pass being recorded (rt-app's log_data_t).
type rtThread struct {
	t      *thread
	task   int
	wait   rtWait
	res    int   // the resource it waits for (rtLock..rtSem)
	mutex  int   // rtCond, rtBarrier, rtSuspend: the mutex to take back when woken
	wakeAt int64 // rtStart, rtSleep, rtTimer, rtRuntime: when its timer fires
	// sub is the step of a synchronisation event made of several (wait:
	// sleep, then take the mutex back; rtapp_sync.go) that th is at.
	sub int
	// retry: th was woken from a mutex's word and takes it, when free, as
	// __lll_lock_wait does (leaving the word at 2).
	retry bool
	// runtimeNs is the CPU time the runtime event under way runs: its
	// chunks so far, and the one under way (rtapp_runtime.go).
	runtimeNs int64
	// logBytes is what rt-app has written to the thread's log stream so far;
	// logFull says the pass just recorded filled its buffer, to be written
	// before the next pass (rtapp_log.go).
	logBytes          int64
	logFull           bool
	phase, phaseLoop  int
	loop              int // passes over all phases done (thread_loop)
	ev                int // next event of the phase
	runStart          int64
	passStart         int64
	perf, runNs, cDur int64 // this pass: run work (µs), run wall time, requested run
	cPeriod, wuLat    int64
	slack             int64
	timers            []rtTimerState // unique timers
}

type rtTimerState struct {
	init bool
	next int64
}

// rtappWorkload is the rtapp workload. Its configuration (tasks, resource
// names) is compiled from the scenario's description; its state is the
// threads', the resources' and the statistics.
type rtappWorkload struct {
	desc  *rtapp.Description
	tasks []rtTask
	names rtNames
	thr   []rtThread // by thread.local
	sync  rtSync
	// timers are the shared timers, by index.
	timers   []rtTimerState
	finished int
	// forkRefused counts forks past the engine's limit on threads, which
	// started nothing (rtapp_runtime.go).
	forkRefused int
	// stats, by task.
	stats []rtStats
	// deadlocked: every thread not done waited for another, from
	// deadlockNs on (deadlockReport describes them). Without a
	// global.duration the run ended then.
	deadlocked bool
	deadlockNs int64
	// pLoad is rt-app's calibration, ns per loop of its busy work: the
	// file's global.calibration when it is a number, else 1 (perf, the
	// log's work column: rtapp_results.go).
	pLoad int64
	// logsToFile: rt-app writes each thread's log to its file as it goes
	// (Global.LogsToFile), so full buffers cost a write.
	logsToFile bool
	// log receives every loop pass's row (Sim.SetRTAppLog), or is nil.
	log func(RTAppLogRow)
}

// rtNames are the resources' names, by kind and index (the engine's index
// is the order of first use in the file).
type rtNames struct {
	mutexes, conds, barriers, sems, timers, unique []string
	participants                                   []int // by barrier
	// barMutex and barCond are each barrier's own mutex and condition
	// variable (res.barrier.m_obj, c_obj), in the tables after the
	// description's.
	barMutex, barCond []int
}

func newRTAppWorkload(s *Sim) *rtappWorkload {
	w := rtappShell(s)
	for _, g := range w.desc.TaskGroups {
		s.groupSettings = append(s.groupSettings, TaskGroup{Path: g.Path, Weight: g.Weight, MaxUs: g.MaxUs, PeriodUs: g.PeriodUs})
	}
	n := len(s.cpus)
	for ti := range w.tasks {
		for range w.tasks[ti].instance {
			w.addThread(s, ti, len(w.thr)%n, w.tasks[ti].delayNs)
		}
	}
	w.sync.init(w)
	w.timers = make([]rtTimerState, len(w.names.timers))
	w.stats = make([]rtStats, len(w.tasks))
	for i := range w.thr {
		th := &w.thr[i]
		switch {
		case w.tasks[th.task].loop == 0:
			w.finish(s, th) // defined, started, and done at once
		case th.wakeAt > 0:
			s.at(th.wakeAt+s.timerSlackNs(th.t), evRTApp, 0, i, 0)
		default:
			s.wake(th.t, -1, false)
		}
	}
	w.checkEnd(s)
	return w
}

func (w *rtappWorkload) event(s *Sim, e event) {
	if e.kind != evRTApp || int(e.arg) >= len(w.thr) {
		return
	}
	th := &w.thr[e.arg]
	if th.wait == rtRuntime && th.wakeAt == s.now {
		w.runtimeDeadline(s, th)
		return
	}
	if th.wait == rtMove && th.wakeAt == s.now {
		w.arrive(s, th)
		return
	}
	if (th.wait == rtStart || th.wait == rtSleep || th.wait == rtTimer) && th.wakeAt+s.timerSlackNs(th.t) == s.now {
		// The hrtimer's interrupt on the CPU where the thread went to sleep.
		s.raiseIRQ(s.cpus[th.t.cpu], th.t, irqTimer)
	}
}

func (w *rtappWorkload) next(s *Sim, t *thread) (int64, bool) {
	th := &w.thr[t.local]
	yielded := false
	switch th.wait {
	case rtStart:
		th.passStart = s.now
	case rtRun:
		th.runNs += s.now - th.runStart
		th.ev++
	case rtRuntime:
		th.runNs += s.now - th.runStart
		// Each chunk is loadwait(32): 32 / p_load of work.
		th.perf += th.runtimeNs / rtappChunkNs * (rtappChunkNs / 1000 / w.pLoad)
		th.ev++
	case rtTimer:
		th.wuLat += s.now - th.wakeAt
		th.ev++
	case rtYield:
		yielded = true
		th.ev++
	case rtSleep:
		th.ev++
	case rtMove:
		// On the CPU its affinity names: the pass begins.
	case rtGranted:
		// Woken from a sleep on a synchronisation object: exec runs the
		// event's step again.
	case rtSpin, rtLogWrite:
		th.passStart = s.now
	case rtDone:
		return 0, true
	}
	w.setWait(th, rtRunning)
	ns, blocks := w.exec(s, th)
	if yielded && !blocks {
		s.yielding = t
	}
	return ns, blocks
}

// exec runs th's events from th.ev until one takes CPU time or blocks.
func (w *rtappWorkload) exec(s *Sim, th *rtThread) (int64, bool) {
	for {
		tk := &w.tasks[th.task]
		ph := &tk.phases[th.phase]
		if th.ev == 0 && w.moves(s, th, ph.pin) {
			return 0, true
		}
		if th.ev == 0 && ph.sched != nil {
			w.setSched(s, th, ph.sched)
		}
		if th.ev == 0 && ph.taskgroup != "" && s.fair {
			w.setGroup(s, th, ph.taskgroup)
		}
		if th.ev == len(ph.events) {
			if w.endPass(s, th) {
				return 0, true
			}
			if th.logFull {
				th.logFull = false
				w.setWait(th, rtLogWrite)
				return rtappLogWriteNs, false
			}
			if s.now == th.passStart {
				w.setWait(th, rtSpin)
				return rtappIdlePassNs, false
			}
			th.passStart = s.now
			continue
		}
		e := &ph.events[th.ev]
		switch e.kind {
		case rtapp.Run:
			// loadwait: the work done is exec / p_load.
			th.cDur += e.ns
			th.perf += e.ns / 1000 / w.pLoad
			th.runStart = s.now
			w.setWait(th, rtRun)
			return e.ns, false
		case rtapp.Runtime:
			th.cDur += e.ns
			th.runStart = s.now
			return w.runtimeStart(s, th, e.ns), false
		case rtapp.Sleep:
			if e.ns > 0 {
				w.sleepUntil(s, th, rtSleep, s.now+e.ns)
				return 0, true
			}
		case rtapp.Timer:
			if w.timer(s, th, e) {
				return 0, true
			}
		case rtapp.Yield:
			w.setWait(th, rtYield)
			return 0, false
		case rtapp.Fork:
			i := th.t.local
			w.fork(s, th, e.res)
			th = &w.thr[i] // the threads' table may have moved
		default:
			if w.syncEvent(s, th, e) {
				return 0, true
			}
		}
		th.ev++
	}
}

// sleepUntil blocks th until at, when its timer event wakes it: the
// hrtimer's interrupt comes up to the thread's timer slack later
// (timerSlackNs), and rt-app's wu_lat counts from at.
func (w *rtappWorkload) sleepUntil(s *Sim, th *rtThread, st rtWait, at int64) {
	w.setWait(th, st)
	th.wakeAt = at
	s.at(at+s.timerSlackNs(th.t), evRTApp, 0, th.t.local, 0)
}

// timer is rtapp_timer's case of run_event; it reports whether th sleeps.
func (w *rtappWorkload) timer(s *Sim, th *rtThread, e *rtEvent) bool {
	var ts *rtTimerState
	if e.unique {
		ts = &th.timers[e.res]
	} else {
		ts = &w.timers[e.res]
	}
	th.cPeriod += e.ns
	if !ts.init {
		ts.init = true
		ts.next = w.tasks[th.task].delayNs // t_first
	}
	ts.next += e.ns
	slack := ts.next - s.now
	if w.desc.Global.CumulativeSlack {
		th.slack += slack
	} else {
		th.slack = slack
	}
	if s.now < ts.next {
		w.sleepUntil(s, th, rtTimer, ts.next)
		return true
	}
	if e.relative {
		ts.next = s.now
	}
	th.wuLat = 0
	return false
}

// endPass ends th's loop pass (the end of run() in thread_body): it records
// the pass and moves to the next phase or loop; it reports whether th is
// done.
func (w *rtappWorkload) endPass(s *Sim, th *rtThread) bool {
	w.record(s, th)
	tk := &w.tasks[th.task]
	th.ev = 0
	th.phaseLoop++
	if th.phaseLoop == tk.phases[th.phase].loop {
		th.phaseLoop = 0
		th.phase++
		if th.phase == len(tk.phases) {
			th.phase = 0
			if tk.loop != rtapp.LoopForever {
				th.loop++
			}
		}
	}
	if tk.loop != rtapp.LoopForever && th.loop >= tk.loop {
		w.finish(s, th)
		w.checkEnd(s)
		return true
	}
	return false
}

// finish marks th done.
func (w *rtappWorkload) finish(s *Sim, th *rtThread) {
	w.setWait(th, rtDone)
	w.finished++
}

// checkEnd ends the run when every thread is done (rt-app exits) or every one
// not done waits for another (a deadlock: none ever will be woken). With a
// global.duration rt-app's main sleeps that long whatever its threads do
// (main in src/rt-app.c), so the run goes on to its horizon: a deadlock is
// recorded, not an end.
func (w *rtappWorkload) checkEnd(s *Sim) {
	if s.finishedNs >= 0 || len(w.thr) == 0 {
		return
	}
	lives := w.desc.Global.Duration > 0
	switch {
	case w.finished == len(w.thr):
		if !lives {
			s.finishedNs = s.now
		}
	case !w.deadlocked && w.finished+w.sync.blocked == len(w.thr):
		w.deadlocked, w.deadlockNs = true, s.now
		if !lives {
			s.finishedNs = s.now
		}
	}
}

// setWait changes th's state, counting the threads that wait for another.
func (w *rtappWorkload) setWait(th *rtThread, st rtWait) {
	if th.wait.blockedOnThread() {
		w.sync.blocked--
	}
	if st.blockedOnThread() {
		w.sync.blocked++
	}
	th.wait = st
}
