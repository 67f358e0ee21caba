package engine

import (
	"slices"
	"strconv"
)

// What a sched_ext policy left waiting: the tasks runnable and not running
// when the results are taken, and where each waits. A policy that parks tasks
// in a DSQ nothing consumes ends a run with no work done and no ejection when
// the run is shorter than the watchdog's timeout (30 s by default); the
// results then name the tasks it parked, since when, and on which DSQ.

// ScxWaitingListed is how many of the waiting tasks Results lists, the
// longest-waiting first: enough to show where a policy parks them, few enough
// that a 10,000-task run does not list 10,000; Count says how many wait.
const ScxWaitingListed = 10

// ScxWaiting are the tasks a sched_ext policy (sched.policy=scx) has left
// runnable and not running when the results were taken. The zero value is a
// run with none waiting, an ejected policy (its tasks are the fair class's),
// or another scheduler.
type ScxWaiting struct {
	// Count is every task waiting; Tasks lists the ScxWaitingListed that have
	// waited longest (the earliest SinceNs first, then by pid).
	Count int              `json:"count"`
	Tasks []ScxWaitingTask `json:"tasks,omitzero"`
}

// ScxWaitingTask is one task waiting to run.
type ScxWaitingTask struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
	// SinceNs is when it last became runnable (woken, or requeued when its
	// slice ran out), the time the watchdog measures from; -1 when the engine
	// does not know it.
	SinceNs int64 `json:"since_ns"`
	// DSQ is where it waits, as a policy names it: a user DSQ's id,
	// ScxDSQGlobal, or ScxDSQLocalOn|cpu for a CPU's local DSQ (a task on its
	// way to that CPU counts as in it, as dsq_nr_queued counts it).
	DSQ int64 `json:"dsq"`
	// Where says DSQ in words: "DSQ 5", "the global DSQ", "CPU 3's local DSQ".
	Where string `json:"where"`
}

// waiting lists the tasks runnable and not running. It only reads: growing
// the task table here would change what a checkpoint taken later saves.
func (k *ScxKernel) waiting() ScxWaiting {
	var w ScxWaiting
	for _, t := range k.s.threads {
		if t.state != ThreadQueued && t.state != ThreadIncoming {
			continue
		}
		w.Count++
		since := t.wokenAtNs
		if since < 0 {
			since = t.requeuedAtNs
		}
		wt := ScxWaitingTask{PID: t.id, Name: t.name, SinceNs: since}
		dsq := int64(scxNoDSQ)
		if t.id < len(k.tasks) {
			dsq = k.tasks[t.id].dsq
		}
		switch {
		case t.state == ThreadQueued && dsq == ScxDSQGlobal:
			wt.DSQ, wt.Where = dsq, "the global DSQ"
		case t.state == ThreadQueued && dsq != scxNoDSQ:
			wt.DSQ, wt.Where = dsq, "DSQ "+strconv.FormatInt(dsq, 10)
		default:
			wt.DSQ, wt.Where = ScxDSQLocalOn|int64(t.cpu), "CPU "+strconv.Itoa(t.cpu)+"'s local DSQ"
		}
		// Keep the longest-waiting ScxWaitingListed, in order: an insertion
		// into a short list, not a sort of every waiting task.
		i, _ := slices.BinarySearchFunc(w.Tasks, wt, waitedLonger)
		if i < ScxWaitingListed {
			w.Tasks = slices.Insert(w.Tasks, i, wt)
			if len(w.Tasks) > ScxWaitingListed {
				w.Tasks = w.Tasks[:ScxWaitingListed]
			}
		}
	}
	return w
}

// waitedLonger orders waiting tasks: the earliest known since first (an
// unknown one, -1, last), then by pid.
func waitedLonger(a, b ScxWaitingTask) int {
	ka, kb := a.SinceNs, b.SinceNs
	if ka < 0 {
		ka = 1<<63 - 1
	}
	if kb < 0 {
		kb = 1<<63 - 1
	}
	switch {
	case ka != kb:
		if ka < kb {
			return -1
		}
		return 1
	case a.PID < b.PID:
		return -1
	case a.PID > b.PID:
		return 1
	}
	return 0
}
