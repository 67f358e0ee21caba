package rtapp

import (
	"strings"
)

// --- events ---

// eventNames in the order parse_task_event_data tests them; rt-app matches
// a key to the first name that is a prefix of it (obj_is_event uses strncmp
// too), so "runtime" is tested inside "run", and "memrun" before "mem".
var eventNames = []string{
	"runtime", "run", "sleep", "memrun", "mem", "iorun", "lock", "unlock",
	"signal", "broad", "wait", "sync", "barrier", "timer", "resume",
	"suspend", "yield", "fork", "sem_post", "sem_wait",
}

// eventKind resolves a key to an event kind: the key without its trailing
// digits must be an event name. rt-app accepts any key an event name is a
// prefix of ("runfast" is a run); that is refused here with a message, since
// it is more often a typo than a choice.
func eventKind(m member, path string, isTask bool) (Kind, error) {
	base := strings.TrimRight(m.name, "0123456789")
	for _, e := range eventNames {
		if base == e {
			return Kind(e), nil
		}
	}
	for _, e := range eventNames {
		if strings.HasPrefix(m.name, e) {
			return "", errorAt(m.pos, path, "unknown event: rt-app would read it as %q by its prefix; write %q or %q followed by digits", e, e, e)
		}
	}
	where := "phase"
	if isTask {
		where = "task"
	}
	if k, ok := keyInfo(m.name, "global"); ok {
		return "", errorAt(m.pos, path, "%q is a global key, not a %s key", k.Key, where)
	}
	if !isTask && isProp(m.name, true) {
		return "", errorAt(m.pos, path, "%q is a task key, not a phase key (rt-app ignores it here)", m.name)
	}
	return "", errorAt(m.pos, path, "unknown event or %s key", where)
}

func decodeEvent(path string, m member, kind Kind, taskName string) (Event, error) {
	ev := Event{Key: m.name, Kind: kind, Pos: m.pos}
	v := m.val
	var err error
	switch kind {
	case Run, Runtime, Sleep:
		ev.Duration, err = integer(v, path, "an integer number of µs", 0, MaxDurationUS)
	case Timer:
		err = eventObject(v, path, map[string]bool{"ref": true, "period": true, "mode": false}, func(k string, fv *node) error {
			var e error
			switch k {
			case "ref":
				ev.Ref, e = name(fv, join(path, k), "a timer name")
				ev.Unique = strings.HasPrefix(ev.Ref, "unique")
			case "period":
				ev.Duration, e = integer(fv, join(path, k), "an integer number of µs", 0, MaxDurationUS)
			case "mode":
				var s string
				s, e = str(fv, join(path, k), `"relative" or "absolute"`)
				if e == nil && s != string(Relative) && s != string(Absolute) {
					e = errorAt(fv.pos, join(path, k), `want "relative" or "absolute", got %s`, fv.describe())
				}
				ev.Mode = TimerMode(s)
			}
			return e
		})
		if ev.Mode == "" {
			ev.Mode = Relative
		}
	case Wait, Sync:
		err = eventObject(v, path, map[string]bool{"ref": true, "mutex": true}, func(k string, fv *node) error {
			var e error
			switch k {
			case "ref":
				ev.Ref, e = name(fv, join(path, k), "a condition variable name")
			case "mutex":
				ev.Mutex, e = name(fv, join(path, k), "a mutex name")
			}
			return e
		})
	case Lock, Unlock:
		ev.Ref, err = name(v, path, "a mutex name")
	case Signal, Broad:
		if v.kind == '{' {
			return ev, errorAt(v.pos, path, "want a condition variable name: %s takes a string; the mutex goes in lock/unlock around it", kind)
		}
		ev.Ref, err = name(v, path, "a condition variable name")
	case Barrier:
		ev.Ref, err = name(v, path, "a barrier name")
	case SemPost, SemWait:
		ev.Ref, err = name(v, path, "a semaphore name")
	case Suspend, Resume:
		// The name is a shared resource, a condition variable with a
		// mutex of the same name (rt-app 1.0's parse_task_event_data,
		// the rt-app Debian ships): suspend waits on it, resume
		// broadcasts on it, whichever threads use the name. An empty
		// name, or a suspend written with no value at all, is the
		// thread's own task: workgen fills a bare suspend with the task's
		// name, and rt-app since 2025 (commit 32fcddf, "Obsolete
		// parameter of suspend event") reads every suspend so.
		switch {
		case v.bare, kind == Suspend && v.kind == 'n':
			ev.Ref, ev.Bare = taskName, true
		case kind == Suspend:
			ev.Ref, err = str(v, path, "a name to suspend on (\"\": the task's own)")
		default:
			ev.Ref, err = str(v, path, "the name to resume (a task's, or one its threads suspend on; \"\": the task's own)")
		}
		if err == nil && ev.Ref == "" {
			ev.Ref, ev.Bare = taskName, true
		}
	case Yield:
		// rt-app ignores the value.
	case Fork:
		ev.Ref, err = str(v, path, "the name of the task to start a thread of")
	default: // mem, memrun, iorun
		k, _ := keyInfo(string(kind), "event")
		return ev, errorAt(m.pos, path, "refused: %s", k.Why)
	}
	return ev, err
}

// eventObject walks an event's object value; fields maps each allowed field
// to whether it is required.
func eventObject(v *node, path string, fields map[string]bool, f func(string, *node) error) error {
	if v.kind != '{' {
		var names []string
		for _, k := range []string{"ref", "period", "mode", "mutex"} {
			if _, ok := fields[k]; ok {
				names = append(names, k)
			}
		}
		return errorAt(v.pos, path, "want an object {%s}, got %s", strings.Join(names, ", "), v.describe())
	}
	seen := map[string]Pos{}
	for _, fm := range v.members {
		if _, ok := fields[fm.name]; !ok {
			return errorAt(fm.pos, join(path, fm.name), "unknown field")
		}
		if err := unique(seen, path, fm); err != nil {
			return err
		}
		if err := f(fm.name, fm.val); err != nil {
			return err
		}
	}
	for _, k := range []string{"ref", "period", "mutex"} {
		if fields[k] {
			if _, ok := seen[k]; !ok {
				return errorAt(v.pos, path, "missing %q (rt-app would silently use %s)", k, map[string]string{"ref": `"unknown"`, "mutex": `"unknown"`, "period": "0"}[k])
			}
		}
	}
	return nil
}
