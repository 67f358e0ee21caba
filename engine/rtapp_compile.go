package engine

import "schedplay/rtapp"

// Compiling the scenario's rt-app description for the engine
// (rtapp_workload.go runs it): tasks with their compiled events, and the
// resources' tables, each name given an index in the order of first use.

// rtappShell compiles the scenario's description: everything but the
// threads and the state. Validate has already decoded and checked it.
func rtappShell(s *Sim) *rtappWorkload {
	d, err := decodeRTApp(&s.sc.Workload, s.sc.Machine.VCPUs, s.sc.DurationMs, s.sc.Sched)
	if err != nil {
		panic("engine: rtapp workload of an invalid scenario: " + err.Error())
	}
	w := &rtappWorkload{desc: d}
	idx := map[string]map[string]int{} // kind -> name -> index; looked up, never ranged over
	index := func(kind string, list *[]string, name string) int {
		m := idx[kind]
		if m == nil {
			m = map[string]int{}
			idx[kind] = m
		}
		if i, ok := m[name]; ok {
			return i
		}
		m[name] = len(*list)
		*list = append(*list, name)
		return len(*list) - 1
	}
	nm := &w.names
	first := 0
	taskIndex := map[string]int{}
	for i, t := range d.Tasks {
		taskIndex[t.Name] = i
	}
	for _, t := range d.Tasks {
		tk := rtTask{name: t.Name, instance: t.Instance, loop: t.Loop, delayNs: t.Delay * 1000,
			pin: pinnedCPU(t.CPUs, s.sc.Machine.VCPUs), first: first, scxWeight: ScxWeightOfNice(t.Sched.Priority), nice: t.Sched.Priority, policy: otherIfEmpty(t.Sched.Policy), sliceNs: t.Sched.DLRuntime * 1000,
			dlDeadlineNs: t.Sched.DLDeadline * 1000, dlPeriodNs: t.Sched.DLPeriod * 1000, taskgroup: t.Taskgroup}
		first += t.Instance
		for _, ph := range t.Phases {
			cpus := ph.CPUs
			if cpus == nil {
				cpus = t.CPUs // a phase without cpus runs on its task's
			}
			p := rtPhase{loop: ph.Loop, pin: pinnedCPU(cpus, s.sc.Machine.VCPUs), sched: ph.Sched, taskgroup: ph.Taskgroup}
			for _, e := range ph.Events {
				ev := rtEvent{kind: e.Kind, ns: e.Duration * 1000, res: -1, mutex: -1}
				switch e.Kind {
				case rtapp.Lock, rtapp.Unlock:
					ev.mutex = index("mutex", &nm.mutexes, e.Ref)
				case rtapp.Wait, rtapp.Sync:
					ev.res = index("cond", &nm.conds, e.Ref)
					ev.mutex = index("mutex", &nm.mutexes, e.Mutex)
				case rtapp.Signal, rtapp.Broad:
					ev.res = index("cond", &nm.conds, e.Ref)
				case rtapp.Suspend, rtapp.Resume:
					// A condition variable and a mutex of that name
					// (rtapp_wait and rtapp_mutex resources).
					ev.res = index("cond", &nm.conds, e.Ref)
					ev.mutex = index("mutex", &nm.mutexes, e.Ref)
				case rtapp.Barrier:
					ev.res = index("barrier", &nm.barriers, e.Ref)
				case rtapp.SemPost, rtapp.SemWait:
					ev.res = index("sem", &nm.sems, e.Ref)
				case rtapp.Fork:
					ev.res = taskIndex[e.Ref] // the decoder checked it names a task
				case rtapp.Timer:
					ev.unique, ev.relative = e.Unique, e.Mode != rtapp.Absolute
					if e.Unique {
						ev.res = index("unique", &nm.unique, e.Ref)
					} else {
						ev.res = index("timer", &nm.timers, e.Ref)
					}
				}
				p.events = append(p.events, ev)
			}
			tk.phases = append(tk.phases, p)
		}
		w.tasks = append(w.tasks, tk)
	}
	nm.participants = make([]int, len(nm.barriers))
	for _, b := range d.Barriers {
		if i, ok := idx["barrier"][b.Name]; ok {
			nm.participants[i] = b.Participants
		}
	}
	// Each barrier's own mutex and condition variable, after the
	// description's (whose names they cannot take: these are not looked
	// up by name).
	for _, b := range nm.barriers {
		nm.barMutex = append(nm.barMutex, len(nm.mutexes))
		nm.mutexes = append(nm.mutexes, "barrier "+b)
		nm.barCond = append(nm.barCond, len(nm.conds))
		nm.conds = append(nm.conds, "barrier "+b)
	}
	w.logsToFile = d.Global.LogsToFile()
	w.pLoad = 1
	if d.Global.CalibrationNs > 0 {
		w.pLoad = int64(d.Global.CalibrationNs)
	}
	return w
}
