package rtapp

import (
	"fmt"
	"slices"
)

// check runs the checks that need the whole description: names that refer
// across tasks, mutex discipline, barrier participants, timer modes.
func check(d *Description) error {
	type where struct {
		path string
		ev   *Event
	}
	// Visit every event with its path.
	var all []where
	tasks := map[string]bool{}
	for _, t := range d.Tasks {
		tasks[t.Name] = true
	}
	phasePaths := map[*Phase]string{}
	for _, t := range d.Tasks {
		for _, ph := range t.Phases {
			pp := "tasks." + t.Name
			if !t.Inline {
				pp += ".phases." + ph.Name
			}
			phasePaths[ph] = pp
			for i := range ph.Events {
				e := &ph.Events[i]
				all = append(all, where{join(pp, e.Key), e})
				if e.Kind == Fork && !tasks[e.Ref] {
					return errorAt(e.Pos, join(pp, e.Key), "forks %q, which is not a task of this file", e.Ref)
				}
			}
		}
	}

	// Each condition variable is used with one mutex (POSIX leaves a
	// condvar waited on with two mutexes undefined). suspend and resume
	// use the condition variable of their name with the mutex of the same
	// name (rtapp_suspend, rtapp_resume in run_event).
	condMutex := map[string]where{}
	mutexOf := func(e *Event) string {
		if e.Kind == Suspend || e.Kind == Resume {
			return e.Ref
		}
		return e.Mutex
	}
	for _, w := range all {
		switch w.ev.Kind {
		case Wait, Sync, Suspend, Resume:
		default:
			continue
		}
		m := mutexOf(w.ev)
		if first, ok := condMutex[w.ev.Ref]; ok && mutexOf(first.ev) != m {
			why := ""
			if w.ev.Kind == Suspend || w.ev.Kind == Resume || first.ev.Kind == Suspend || first.ev.Kind == Resume {
				why = " (suspend and resume wait on and wake the condition variable of their name with the mutex of that name)"
			}
			return errorAt(w.ev.Pos, w.path, "condition variable %q is used with mutex %q here and with %q at %s%s", w.ev.Ref, m, mutexOf(first.ev), first.ev.Pos, why)
		} else if !ok {
			condMutex[w.ev.Ref] = w
		}
	}

	// A resume that no thread can be suspended on, or a suspend that
	// nothing can end, is legal (rt-app loses the first and blocks for
	// ever on the second) but more often a misspelt name: say so.
	wakers, sleepers := map[string]bool{}, map[string]bool{}
	for _, w := range all {
		switch w.ev.Kind {
		case Resume, Signal, Broad, Sync:
			wakers[w.ev.Ref] = true
		}
		switch w.ev.Kind {
		case Suspend, Wait, Sync:
			sleepers[w.ev.Ref] = true
		}
	}
	for _, w := range all {
		switch {
		case w.ev.Kind == Resume && !sleepers[w.ev.Ref]:
			d.Notes = append(d.Notes, Note{Path: w.path, Pos: w.ev.Pos, Msg: fmt.Sprintf("resume %q: no thread suspends or waits on %q, so it wakes nobody", w.ev.Ref, w.ev.Ref)})
		case w.ev.Kind == Suspend && !wakers[w.ev.Ref]:
			d.Notes = append(d.Notes, Note{Path: w.path, Pos: w.ev.Pos, Msg: fmt.Sprintf("suspend on %q: no resume, signal or broad names %q, so the thread never wakes", w.ev.Ref, w.ev.Ref)})
		}
	}

	// Mutex discipline within each phase: a phase's events run Loop times
	// in a row, so what a phase locks it must unlock before its end.
	for _, t := range d.Tasks {
		for _, ph := range t.Phases {
			pp := phasePaths[ph]
			var held []*Event
			holds := func(m string) int {
				return slices.IndexFunc(held, func(e *Event) bool { return e.Ref == m })
			}
			for i := range ph.Events {
				ev := &ph.Events[i]
				path := join(pp, ev.Key)
				switch ev.Kind {
				case Lock:
					if j := holds(ev.Ref); j >= 0 {
						return errorAt(ev.Pos, path, "task %s locks mutex %q again while holding it (locked at %s): the thread would deadlock", t.Name, ev.Ref, held[j].Pos)
					}
					held = append(held, ev)
				case Unlock:
					j := holds(ev.Ref)
					if j < 0 {
						return errorAt(ev.Pos, path, "task %s unlocks mutex %q, which it does not hold here", t.Name, ev.Ref)
					}
					held = slices.Delete(held, j, j+1)
				case Wait, Sync:
					if holds(ev.Mutex) < 0 {
						return errorAt(ev.Pos, path, "task %s waits on %q without holding its mutex %q: lock it before", t.Name, ev.Ref, ev.Mutex)
					}
				case Signal, Broad:
					if w, ok := condMutex[ev.Ref]; ok && holds(mutexOf(w.ev)) < 0 {
						return errorAt(ev.Pos, path, "task %s signals %q without holding its mutex %q (the waiters' mutex, %s): the wakeup can be lost", t.Name, ev.Ref, mutexOf(w.ev), w.path)
					}
				case Suspend, Resume:
					// Both lock the mutex of their name around the wait or
					// the broadcast: a thread holding it would deadlock.
					if j := holds(ev.Ref); j >= 0 {
						return errorAt(ev.Pos, path, "task %s %ss on %q while holding mutex %q (locked at %s): %s locks that mutex itself, so the thread would deadlock", t.Name, ev.Kind, ev.Ref, ev.Ref, held[j].Pos, ev.Kind)
					}
				}
			}
			if len(held) > 0 {
				e := held[0]
				return errorAt(e.Pos, join(pp, e.Key), "task %s locks mutex %q and does not unlock it before the end of the phase (whose loop would lock it again)", t.Name, e.Ref)
			}
		}
	}

	// Barriers: rt-app adds the task's instance count to a barrier for
	// every barrier event naming it (parse_task_event_data), and releases
	// the barrier when that many arrivals are waiting.
	idx := map[string]int{}
	refs := map[[2]string]where{}
	for _, t := range d.Tasks {
		for _, ph := range t.Phases {
			for i := range ph.Events {
				ev := &ph.Events[i]
				if ev.Kind != Barrier {
					continue
				}
				path := join(phasePaths[ph], ev.Key)
				key := [2]string{t.Name, ev.Ref}
				if first, ok := refs[key]; ok {
					return errorAt(ev.Pos, path, "task %s names barrier %q a second time (first at %s): rt-app counts every use as another participant, so the barrier would wait for threads that never come; use one barrier name per synchronisation point", t.Name, ev.Ref, first.path)
				}
				refs[key] = where{path, ev}
				j, ok := idx[ev.Ref]
				if !ok {
					j = len(d.Barriers)
					idx[ev.Ref] = j
					d.Barriers = append(d.Barriers, BarrierGroup{Name: ev.Ref})
				}
				b := &d.Barriers[j]
				b.Participants += t.Instance
				b.Tasks = append(b.Tasks, t.Name)
			}
		}
	}
	for _, b := range d.Barriers {
		if b.Participants < 2 {
			first := refs[[2]string{b.Tasks[0], b.Name}]
			return errorAt(first.ev.Pos, first.path, "barrier %q has %d participating thread(s) (instances of %v); a barrier needs at least 2", b.Name, b.Participants, b.Tasks)
		}
	}

	// A shared timer has one mode: rt-app makes it absolute as soon as one
	// use says so. Unique timers are per task.
	timers := map[string]where{}
	for _, t := range d.Tasks {
		for _, ph := range t.Phases {
			for i := range ph.Events {
				ev := &ph.Events[i]
				if ev.Kind != Timer {
					continue
				}
				key := ev.Ref
				if ev.Unique {
					key = t.Name + "\x00" + ev.Ref
				}
				path := join(phasePaths[ph], ev.Key)
				if first, ok := timers[key]; ok && first.ev.Mode != ev.Mode {
					return errorAt(ev.Pos, path, "timer %q is %s here but %s at %s; rt-app would make it absolute for every use", ev.Ref, ev.Mode, first.ev.Mode, first.path)
				} else if !ok {
					timers[key] = where{path, ev}
				}
			}
		}
	}
	return nil
}
