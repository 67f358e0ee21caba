package engine

// rt-app's runtime event (rtapp_runtime in run_event, src/rt-app.c) busy-loops
// in 32 µs chunks of work until its duration of wall time has passed since it
// began, however much of that time the thread was preempted. The engine runs
// it as a step of that much CPU time, which ends on time when the thread
// keeps its CPU, and a timer at the wall-time deadline ends the step early
// when it did not: at once if the thread is running then, or as soon as it
// runs again if it is waiting for a CPU (rt-app would finish the chunk under
// way, up to 32 µs more).

// runtimeStart begins th's runtime event of ns: the step, and its deadline.
func (w *rtappWorkload) runtimeStart(s *Sim, th *rtThread, ns int64) {
	w.setWait(th, rtRuntime)
	th.wakeAt = s.now + ns
	s.at(th.wakeAt, evRTApp, 0, th.t.local, 0)
}

// runtimeDeadline ends th's runtime step, the deadline having come.
func (w *rtappWorkload) runtimeDeadline(s *Sim, th *rtThread) {
	t := th.t
	if !t.hasStep {
		return // the step is over: its end is being handled
	}
	if c := s.cpus[t.cpu]; c.cur == t && c.state == CPURunning {
		// Running: the step ends now. Its pending end (and any preemption
		// timer) carry the old generation and are dropped.
		c.gen++
		c.stepEndNs = s.now
		s.at(s.now, evStepEnd, c.id, 0, c.gen)
		return
	}
	// Waiting for a CPU, or paused by an interrupt: nothing is left of the
	// step when it resumes.
	t.remainingNs = 0
}
