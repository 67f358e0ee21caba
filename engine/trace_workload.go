package engine

import (
	"slices"

	"schedplay/kerneltrace"
	"schedplay/rtapp"
)

// The trace workload (workload.kind=trace, trace_scenario.go): the threads of
// a recorded trace's model, each running its segments in order as
// docs/mechanisms.md (Replaying a recorded trace) and kerneltrace/model.go
// describe them.
//
// Every thread of the model is an engine thread from time 0, blocked until
// its Start releases it: a timer (its recorded start, from the replay's
// start), a wake edge, or its parent's spawn. A per-CPU kernel thread
// (ksoftirqd/3, kworker/3:1) is pinned to its CPU when the machine has it,
// and runs unpinned otherwise; the others are homed round robin, as the
// engine's other workloads home theirs.
//
// A segment is CPU time, run in steps that end at each wake point of the
// segment, so that a wakee is released exactly when its waker has run as far
// as the recording saw the wakeup. Then the segment's end:
//   - wake-by: the thread blocks until its waker reaches that point. The edge
//     counts, like perf sched replay's semaphores: a waker that gets there
//     first leaves a token (trThread.early) that the wakee takes when it
//     blocks, and goes on at once. An early wakeup is never lost, as it would
//     be with rt-app's resume (rtapp_sync.go wakes only threads suspended).
//   - timer: a timed sleep of the recorded length; a timer interrupt on the
//     thread's CPU wakes it, as the hrtimer of a nanosleep does. The recorded
//     length already holds the recorded timer slack, so none is added.
//   - spawn: the child starts, placed as wake_up_new_task places a new task
//     (under linux the idlest CPU, elsewhere the parent's), and the parent
//     goes on with its next segment.
//   - exit, cut: the thread is done.
//
// With workload.trace_all_timed every wake-by is a timer of its recorded
// sleep and a spawned thread starts at its recorded time instead.
//
// The trace's prio is the thread's class under sched.policy=linux: 0-99 is
// SCHED_FIFO of rt_priority 99-prio (FIFO and RR are not told apart in sched
// events), 100-139 the fair class with nice prio-120; other policies run
// every thread as an ordinary one.
//
// When every thread is done the run ends, as a finished hackbench does.

// trState is where a replayed thread is.
type trState uint8

const (
	trNotStarted trState = iota // waiting for its Start
	trRunning                   // runnable or running its segment
	trWaitEdge                  // blocked at the end of segment seg-1 until its waker gets there
	trSleep                     // asleep until wakeAt
	trDone                      // exited, or cut at the trace's end
	numTrStates
)

// trThread is one replayed thread: where it is in its segments and what the
// replay measured of it.
type trThread struct {
	t     *thread
	state trState
	// seg is the segment it runs (-1 before its start; len(Segments) when
	// done), prog how much of it has run, stepNs the step under way, wi the
	// next of the segment's wakes to release.
	seg    int
	prog   int64
	stepNs int64
	wi     int
	// wakeAt is when its sleep (or timed start) ends.
	wakeAt int64
	// early are the ends (segment indices, -1 for its start) whose wakeup
	// came before it blocked there: tokens it takes when it gets there.
	early []int32
	// Replayed figures: wake-to-run latencies (ns), runnable time, switch-ins
	// on another CPU than the last, wakeups, and the last CPU (-1 before it ran).
	lat        []int64
	runnableNs int64
	migrations int
	wakeups    int
	lastCPU    int
	// workNs is the recorded run time the replay has run so far (steps
	// done in full). The engine charges a thread more than its steps: the
	// switch into it, a migration's warm-up, interrupts while it runs. A
	// recorded run already holds the recorded machine's such costs, so each
	// step is shortened by what the engine charged beyond workNs so far:
	// the thread's CPU time stays the recorded one, its costs now the
	// simulated machine's.
	workNs int64
	// switchNs is the switch cost of a switch-in that starts no step under
	// way, which next (called at once) counts before the engine charges it.
	switchNs int64
}

// traceWorkload replays s.sc.Workload.Trace.
type traceWorkload struct {
	model    *kerneltrace.Model
	allTimed bool
	thr      []trThread // by thread.local, as the model's ThreadIDs
	// finished counts the threads done.
	finished int
}

// traceShell is the workload with its configuration and threads' table
// unfilled: newTraceWorkload starts it, ckLoad fills it (trace_checkpoint.go).
func traceShell(s *Sim) *traceWorkload {
	return &traceWorkload{model: &s.sc.Workload.Trace, allTimed: s.sc.Workload.TraceAllTimed}
}

func newTraceWorkload(s *Sim) *traceWorkload {
	w := traceShell(s)
	n := len(s.cpus)
	w.thr = make([]trThread, len(w.model.Threads))
	home := 0
	for i := range w.model.Threads {
		mt := &w.model.Threads[i]
		cpu, pinned := home%n, false
		if p := int(mt.PinnedCPU); p >= 0 && p < n {
			cpu, pinned = p, true
		} else {
			home++
		}
		t := s.newThread(mt.Name(), RoleWorker, cpu, pinned)
		t.local = i
		if s.fair {
			switch p := int(mt.Prio); {
			case p >= 0 && p < 100:
				s.setRTPolicy(t, rtapp.SchedFIFO, min(max(99-p, 1), 99))
			case p >= 100 && p < 140:
				t.fair.setPolicy(rtapp.SchedOther, p-120, 0)
			}
		}
		w.thr[i] = trThread{t: t, seg: -1, lastCPU: -1}
	}
	for i := range w.thr {
		th := &w.thr[i]
		st := w.start(i)
		switch {
		case st.Kind == 0 || len(w.model.Threads[i].Segments) == 0:
			w.finish(th)
		case st.Kind != kerneltrace.EndTimer:
			// Released by its waker or parent.
		case st.SleepNs == 0:
			w.begin(s, i, -1)
		default:
			th.wakeAt = st.SleepNs
			s.at(th.wakeAt, evTrace, 0, i, 0)
		}
	}
	w.checkEnd(s)
	return w
}

// start is thread i's Start as replayed: all timed, a spawn or a wake edge
// is its recorded time from the trace's start.
func (w *traceWorkload) start(i int) kerneltrace.End {
	st := w.model.Threads[i].Start
	if w.allTimed && (st.Kind == kerneltrace.EndWakeBy || st.Kind == kerneltrace.EndSpawned) {
		return kerneltrace.End{Kind: kerneltrace.EndTimer, SleepNs: max(st.AtTs-w.model.StartNs, 0)}
	}
	return st
}

// end is the end of thread i's segment k as replayed: all timed, a wake-by
// is a timer of its recorded sleep.
func (w *traceWorkload) end(i, k int) kerneltrace.End {
	e := w.model.Threads[i].Segments[k].End
	if w.allTimed && e.Kind == kerneltrace.EndWakeBy {
		return kerneltrace.End{Kind: kerneltrace.EndTimer, SleepNs: e.SleepNs}
	}
	return e
}

// begin starts thread i, woken from CPU from (-1: from outside).
func (w *traceWorkload) begin(s *Sim, i, from int) {
	th := &w.thr[i]
	th.state, th.seg, th.prog, th.wi, th.stepNs = trRunning, 0, 0, 0, 0
	s.wake(th.t, from, false)
}

func (w *traceWorkload) event(s *Sim, e event) {
	if e.kind != evTrace || e.arg < 0 || int(e.arg) >= len(w.thr) {
		return
	}
	th := &w.thr[e.arg]
	if th.wakeAt != s.now {
		return
	}
	switch th.state {
	case trSleep:
		th.state = trRunning
		// The hrtimer's interrupt on the CPU where the thread went to sleep.
		s.raiseIRQ(s.cpus[th.t.cpu], th.t, irqTimer)
	case trNotStarted:
		th.state, th.seg = trRunning, 0
		s.raiseIRQ(s.cpus[th.t.cpu], th.t, irqTimer)
	}
}

func (w *traceWorkload) next(s *Sim, t *thread) (int64, bool) {
	i := t.local
	th := &w.thr[i]
	if th.state != trRunning {
		return 0, true
	}
	th.prog += th.stepNs // a step ends only when all of it has run
	th.workNs += th.stepNs
	th.stepNs = 0
	owed := int64(t.runNs) + th.switchNs - th.workNs // charged beyond the recorded work
	th.switchNs = 0
	segs := w.model.Threads[i].Segments
	for {
		if th.seg >= len(segs) {
			w.finish(th)
			w.checkEnd(s)
			return 0, true
		}
		sg := &segs[th.seg]
		for !w.allTimed && th.wi < len(sg.Wakes) && sg.Wakes[th.wi].AtNs <= th.prog {
			wk := sg.Wakes[th.wi]
			th.wi++
			w.release(s, int(wk.Wakee), int(wk.WakeeSeg), t.cpu)
		}
		if th.prog < sg.RunNs {
			// A step ends at the next wake point, and at least every tick:
			// a step's end is a reschedule point, where a policy without
			// a tick of its own (sched_ext's) notices an expired slice, as
			// sync_pairs' spinners step at the tick.
			to := min(sg.RunNs, th.prog+s.tickNs)
			if !w.allTimed && th.wi < len(sg.Wakes) {
				to = min(to, sg.Wakes[th.wi].AtNs)
			}
			th.stepNs = to - th.prog
			return th.stepNs - min(max(owed, 0), th.stepNs-1), false
		}
		k := th.seg
		e := w.end(i, k)
		th.seg, th.prog, th.wi = k+1, 0, 0
		switch e.Kind {
		case kerneltrace.EndWakeBy:
			if j := slices.Index(th.early, int32(k)); j >= 0 {
				th.early = slices.Delete(th.early, j, j+1)
				continue
			}
			th.state = trWaitEdge
			return 0, true
		case kerneltrace.EndTimer:
			if e.SleepNs > 0 {
				th.state, th.wakeAt = trSleep, s.now+e.SleepNs
				s.at(th.wakeAt, evTrace, 0, i, 0)
				return 0, true
			}
		case kerneltrace.EndSpawn:
			if c := int(e.Child); w.start(c).Kind == kerneltrace.EndSpawned {
				w.spawn(s, c, t)
			}
		default: // exit, cut
			th.seg = len(segs)
		}
	}
}

// release is the wakeup of thread j's end k (-1: its start) by a thread on
// CPU from: it wakes j if j waits there, else leaves j a token.
func (w *traceWorkload) release(s *Sim, j, k, from int) {
	wt := &w.thr[j]
	switch {
	case k == -1 && wt.state == trNotStarted:
		w.begin(s, j, from)
	case wt.state == trWaitEdge && wt.seg-1 == k:
		wt.state = trRunning
		s.wake(wt.t, from, false)
	default:
		// The wakee has not blocked there yet: the edge counts (a token).
		if i, found := slices.BinarySearch(wt.early, int32(k)); !found {
			wt.early = slices.Insert(wt.early, i, int32(k))
		}
	}
}

// spawn starts child c of parent p, placed as wake_up_new_task places a new
// task: under linux on the idlest CPU (forkPlacement), elsewhere on the
// parent's CPU, where OSv's thread::start and a sched_ext policy's select_cpu
// (SCX_WAKE_FORK) take it from.
func (w *traceWorkload) spawn(s *Sim, c int, p *thread) {
	th := &w.thr[c]
	if th.state != trNotStarted {
		return
	}
	th.state, th.seg, th.prog, th.wi, th.stepNs = trRunning, 0, 0, 0, 0
	nt := th.t
	if !nt.pinned {
		nt.cpu = p.cpu
	}
	if s.fair && !nt.pinned && nt.class == classFair {
		nt.wokenAtNs = s.now
		s.deliverWake(nt, p.cpu, s.forkPlacement(nt, p.cpu))
		return
	}
	s.wake(nt, p.cpu, false)
}

// finish marks th done.
func (w *traceWorkload) finish(th *trThread) {
	if th.state != trDone {
		th.state = trDone
		w.finished++
	}
}

// checkEnd ends the run when every thread is done.
func (w *traceWorkload) checkEnd(s *Sim) {
	if s.finishedNs < 0 && w.finished == len(w.thr) {
		s.finishedNs = s.now
	}
}

// switchedIn records, as thread t of any kind is switched in on CPU c with
// overheadNs of switch costs (before the engine clears its wake time), the
// replayed figures of a trace thread.
func (w *traceWorkload) switchedIn(s *Sim, t *thread, c int, overheadNs int64) {
	if t.role != RoleWorker || t.local < 0 || t.local >= len(w.thr) || w.thr[t.local].t != t {
		return
	}
	th := &w.thr[t.local]
	if !t.hasStep {
		th.switchNs = overheadNs
	} else {
		// A step resumed: what is left of it gives back what the engine
		// charged beyond the recorded work (workNs).
		t.remainingNs = min(max(th.workNs+th.stepNs-int64(t.runNs)-overheadNs, 1), t.remainingNs)
	}
	switch {
	case t.wokenAtNs >= 0:
		th.lat = append(th.lat, s.now-t.wokenAtNs)
		th.runnableNs += s.now - t.wokenAtNs
		th.wakeups++
	case t.requeuedAtNs >= 0:
		th.runnableNs += s.now - t.requeuedAtNs
	}
	if th.lastCPU >= 0 && th.lastCPU != c {
		th.migrations++
	}
	th.lastCPU = c
}

// progress is the run time replayed so far and the model's in all (the
// engine's estimate of a run's length, work.go).
func (w *traceWorkload) progress() (done, total int64) {
	for i := range w.thr {
		th := &w.thr[i]
		segs := w.model.Threads[i].Segments
		for k := range segs {
			total += segs[k].RunNs
			if k < th.seg {
				done += segs[k].RunNs
			}
		}
		if th.seg >= 0 && th.seg < len(segs) {
			done += th.prog
		}
	}
	return done, total
}
