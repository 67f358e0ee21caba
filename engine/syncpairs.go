package engine

// The sync_pairs workload (docs/mechanisms.md, WAKE_SYNC): the saturated machine
// the review of sched_ext's WAKE_SYNC fix was about. Spinners CPU-bound tasks
// never block; beside them, Pairs pairs of tasks ping-pong one message at a time,
// as over a pipe or a Unix socket: a task reads the message it was woken for,
// writes the reply, which wakes its partner (WAKE_SYNC: the writer is about to
// block, as hackbench's socket writes are), and blocks for the next one. So each
// pair always has exactly one task runnable, and wants one CPU.
//
// Each pair's first task starts the exchange; a completion is one round trip,
// from its message to its having read the reply and sent the next, so the
// throughput is round trips per second. All tasks start runnable at time 0, the
// spinners first (the machine is saturated before the pairs begin), homed round
// robin over the CPUs.

type syncPairs struct {
	cfg   *SyncPairs
	tasks []spTask // by thread.local
}

// spTask is one spinner or one side of a pair.
type spTask struct {
	spinner bool
	partner *thread
	first   bool  // the pair's task that starts the exchange (and counts round trips)
	reading bool  // the step under way reads a message and writes the reply
	sentNs  int64 // the first task's last message, or -1
}

func newSyncPairs(s *Sim) *syncPairs {
	cfg := &s.sc.Workload.SyncPairs
	w := &syncPairs{cfg: cfg}
	n := len(s.cpus)
	add := func(name string, task spTask) *thread {
		t := s.newThread(name, RoleWorker, len(w.tasks)%n, false)
		t.local = len(w.tasks)
		w.tasks = append(w.tasks, task)
		return t
	}
	var start []*thread
	for range cfg.Spinners {
		start = append(start, add("spinner", spTask{spinner: true}))
	}
	for range cfg.Pairs {
		ping := add("ping", spTask{first: true, sentNs: -1})
		pong := add("pong", spTask{sentNs: -1})
		w.tasks[ping.local].partner = pong
		w.tasks[pong.local].partner = ping
		start = append(start, ping)
	}
	for _, t := range start {
		s.wake(t, -1, false)
	}
	return w
}

func (w *syncPairs) event(s *Sim, e event) {}

func (w *syncPairs) next(s *Sim, t *thread) (int64, bool) {
	k := &w.tasks[t.local]
	if k.spinner {
		return w.cfg.SpinnerStepUs * 1000, false
	}
	if !k.reading {
		// Woken with a message (or, for the first task, at the start): read it and
		// write the reply.
		k.reading = true
		return w.cfg.MessageNs, false
	}
	k.reading = false
	if k.first {
		if k.sentNs >= 0 {
			s.m.complete(s, s.now-k.sentNs)
		}
		k.sentNs = s.now
	}
	s.wake(k.partner, t.cpu, true)
	return 0, true // waits for the reply
}
