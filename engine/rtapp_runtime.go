package engine

import (
	"cmp"
	"fmt"

	"schedplay/rtapp"
)

// rt-app's runtime event (rtapp_runtime in run_event, src/rt-app.c) does
// work in chunks of 32 µs (loadwait(32)) and reads the clock after each,
// until its duration of wall time has passed since it began: at least one
// chunk, and the chunk under way when the time is up is finished. So
// "runtime": 10 takes a whole chunk, 32 µs, and a thread preempted during
// its runtime does less work, in whole chunks.
//
// The engine runs it as one step of the chunks it needs if it keeps its CPU
// (the duration rounded up to whole chunks, at least one), and a timer at
// the wall-time deadline cuts the step to the end of the chunk under way
// then, which is where rt-app's loop sees the time is up: at once if the
// thread is exactly at a chunk's end, else when that chunk's work is done,
// whether the thread is running then or waiting for a CPU.

// rtappChunkNs is the work between two clock reads: loadwait(32).
const rtappChunkNs = 32_000

// runtimeStart begins th's runtime event of ns of wall time: it returns the
// step's CPU time, and arms the deadline.
func (w *rtappWorkload) runtimeStart(s *Sim, th *rtThread, ns int64) int64 {
	w.setWait(th, rtRuntime)
	th.runtimeNs = max(1, (ns+rtappChunkNs-1)/rtappChunkNs) * rtappChunkNs
	th.wakeAt = s.now + ns
	s.at(th.wakeAt, evRTApp, 0, th.t.local, 0)
	return th.runtimeNs
}

// runtimeDeadline cuts th's runtime step to the end of the chunk under way,
// the deadline having come. The step is whole chunks and any switch
// overhead comes before its work, so the chunks' ends are whole chunks
// before the step's end: the chunks that have not begun are cut, keeping
// the first.
func (w *rtappWorkload) runtimeDeadline(s *Sim, th *rtThread) {
	t := th.t
	if !t.hasStep {
		return // the step is over: its end is being handled
	}
	c := s.cpus[t.cpu]
	running := c.cur == t && c.state == CPURunning
	left := t.remainingNs // waiting for a CPU, or paused by an interrupt
	if running {
		left = s.workLeft(c)
	}
	cut := min(left/rtappChunkNs, th.runtimeNs/rtappChunkNs-1) * rtappChunkNs
	if cut <= 0 {
		return // the step ends with the chunk under way anyway
	}
	th.runtimeNs -= cut
	t.remainingNs = left - cut
	if running {
		// The step's pending end (and any preemption timer) carry the old
		// generation and are dropped; runStep arms them again.
		s.runStep(c, 0)
	}
}

// moves is set_thread_affinity at the start of th's pass: a phase whose
// affinity (pin, or -1 for every CPU) leaves out the CPU th runs on takes it
// off that CPU (__set_cpus_allowed_ptr: the stopper, migration_cpu_stop,
// moves a running task), to be queued on the CPU it is pinned to at once
// (arrive); one that keeps the CPU only changes the mask. It reports
// whether th left its CPU.
func (w *rtappWorkload) moves(s *Sim, th *rtThread, pin int) bool {
	t := th.t
	switch {
	case pin < 0:
		t.pinned = false
		return false
	case t.cpu == pin:
		t.pinned = true
		return false
	}
	w.setWait(th, rtMove)
	th.wakeAt = s.now
	s.at(s.now, evRTApp, 0, t.local, 0)
	return true
}

// arrive queues th, moved off its CPU by its phase's affinity, on the CPU the
// affinity pins it to.
func (w *rtappWorkload) arrive(s *Sim, th *rtThread) {
	t := th.t
	pin := w.tasks[th.task].phases[th.phase].pin
	if t.fair.delayed {
		s.finishDelayedTask(t) // a migration dequeues for good
	}
	s.migrateCount(t, t.cpu, pin)
	t.cpu, t.pinned = pin, true
	s.wake(t, -1, false)
}

// fork is rt-app's fork event: th starts a thread of task ti, which runs its
// script from the start (its delay first). It is placed as wake_up_new_task
// places a new task: under linux on the idlest CPU (forkCPU), elsewhere on
// the forking thread's CPU, where OSv's thread::start and a sched_ext
// policy's select_cpu (SCX_WAKE_FORK) take it from. The clone's own CPU
// time is not modelled. Past the engine's limit on threads a fork starts
// nothing, and the results say how many did not start.
func (w *rtappWorkload) fork(s *Sim, th *rtThread, ti int) {
	if len(w.thr) >= rtappMaxThreads {
		w.forkRefused++
		return
	}
	tk := &w.tasks[ti]
	home := th.t.cpu
	var at int64
	if tk.delayNs > 0 {
		at = s.now + tk.delayNs
	}
	i := w.addThread(s, ti, home, at)
	nt := w.thr[i].t
	switch {
	case tk.loop == 0:
		w.finish(s, &w.thr[i])
	case at > 0:
		s.at(at+s.timerSlackNs(nt), evRTApp, 0, i, 0)
	case s.fair && !nt.pinned && nt.class == classFair:
		nt.wokenAtNs = s.now
		s.deliverWake(nt, th.t.cpu, s.forkPlacement(nt, th.t.cpu))
	default:
		s.wake(nt, th.t.cpu, false)
	}
}

// setSched is set_thread_param when a phase that sets a policy or priority
// begins a pass (th runs): sched_setattr on the running task, under the
// linux policy (rtappSched refuses it elsewhere). A policy left out keeps the
// thread's; a priority left out is the new policy's default when the class
// changes, else unchanged. Nothing happens when nothing changes.
func (w *rtappWorkload) setSched(s *Sim, th *rtThread, ps *rtapp.Sched) {
	t := th.t
	if !s.fair || s.cpus[t.cpu].cur != t {
		return
	}
	cur, prio := t.policyNow()
	pol := cmp.Or(ps.Policy, cur)
	switch {
	case ps.PrioritySet:
		prio = ps.Priority
	case pol.RealTime() != cur.RealTime():
		prio = 0 // DEFAULT_THREAD_NICE
		if pol.RealTime() {
			prio = 10 // DEFAULT_THREAD_PRIORITY
		}
	}
	if pol == cur && prio == prioNow(t) {
		return
	}
	s.setSchedRunning(s.cpus[t.cpu], t, pol, prio, w.tasks[th.task].sliceNs)
}

// addThread starts a thread of task ti homed on CPU home unless its first
// phase pins it, starting at wakeAt (0: now); it returns its index.
func (w *rtappWorkload) addThread(s *Sim, ti, home int, wakeAt int64) int {
	tk := &w.tasks[ti]
	i := len(w.thr)
	pinned := false
	if pin := tk.phases[0].pin; pin >= 0 {
		home, pinned = pin, true
	}
	t := s.newThread(fmt.Sprintf("%s-%d", tk.name, i), RoleWorker, home, pinned)
	t.local = i
	switch {
	case tk.policy == rtapp.SchedDeadline:
		s.setDLPolicy(t, tk.sliceNs, tk.dlDeadlineNs, tk.dlPeriodNs)
	case tk.policy.RealTime():
		s.setRTPolicy(t, tk.policy, tk.nice)
	default:
		t.fair.setPolicy(tk.policy, tk.nice, tk.sliceNs)
	}
	if s.fair {
		// rt-app moves the thread into its first phase's group, else its
		// task's, before it runs anything.
		t.fair.grp = s.taskGroup(cmp.Or(tk.phases[0].taskgroup, tk.taskgroup))
	}
	th := rtThread{t: t, task: ti, res: -1, mutex: -1, wakeAt: wakeAt,
		timers: make([]rtTimerState, len(w.names.unique))}
	if w.logsToFile {
		th.logBytes = rtappLogStart(string(tk.policy), tk.nice)
	}
	w.thr = append(w.thr, th)
	return i
}

// setGroup moves th, running as its pass begins, into the task group at
// path (rt-app's set_thread_taskgroup, writing the thread into the cgroup:
// sched_move_task).
func (w *rtappWorkload) setGroup(s *Sim, th *rtThread, path string) {
	t := th.t
	switch g := s.taskGroup(path); {
	case t.fair.grp == g:
	case t.class != classFair:
		t.fair.grp = g // a real-time or deadline task keeps it for its fair days
	case s.cpus[t.cpu].cur == t:
		s.moveTaskGroup(s.cpus[t.cpu], t, g)
	}
}
