package kerneltrace

// The process filter: threads of processes not asked for are dropped, and
// the edges that named them become timers of their recorded length.

import "slices"

// filter keeps the processes opts names and returns, per kept thread in
// its new order, its old ThreadID (nil: everything kept).
func filter(m *Model, opts Options) []ThreadID {
	if len(opts.Pids) == 0 && len(opts.Names) == 0 {
		return nil
	}
	// A process matches by pid, or by a name of its leader or, when the
	// leader is not in the trace, of any of its threads.
	leader := make(map[int32]bool)
	for i := range m.Threads {
		if t := &m.Threads[i]; t.Tid == t.Tgid {
			leader[t.Tgid] = true
		}
	}
	match := make(map[int32]bool)
	for i := range m.Threads {
		t := &m.Threads[i]
		if slices.Contains(opts.Pids, t.Tgid) {
			match[t.Tgid] = true
		}
		if t.Tid == t.Tgid || !leader[t.Tgid] {
			for _, n := range t.Names {
				if slices.Contains(opts.Names, n) {
					match[t.Tgid] = true
				}
			}
		}
	}
	newID := make([]ThreadID, len(m.Threads))
	var kept []ThreadID
	for i := range m.Threads {
		newID[i] = -1
		if match[m.Threads[i].Tgid] {
			newID[i] = ThreadID(len(kept))
			kept = append(kept, ThreadID(i))
		}
	}
	out := make([]Thread, 0, len(kept))
	for _, old := range kept {
		t := m.Threads[old]
		t.Start = remapEnd(t.Start, newID, m.StartNs, true)
		segs := make([]Segment, len(t.Segments))
		for i, s := range t.Segments {
			s.End = remapEnd(s.End, newID, m.StartNs, false)
			var wakes []Wake
			for _, w := range s.Wakes {
				if newID[w.Wakee] >= 0 {
					w.Wakee = newID[w.Wakee]
					wakes = append(wakes, w)
				}
			}
			s.Wakes = wakes
			segs[i] = s
		}
		t.Segments = segs
		out = append(out, t)
	}
	m.Counts.Dropped = len(m.Threads) - len(out)
	m.Threads = out
	return kept
}

// remapEnd renames the threads an end names; an edge to a thread left out
// becomes a timer (a spawn of one left out, a zero sleep: the parent goes on).
func remapEnd(e End, newID []ThreadID, startNs int64, isStart bool) End {
	switch e.Kind {
	case EndWakeBy, EndSpawned:
		if newID[e.Waker] < 0 {
			sleep := e.SleepNs
			if isStart {
				sleep = e.AtTs - startNs
			}
			return End{Kind: EndTimer, SleepNs: sleep, AtTs: e.AtTs}
		}
		e.Waker = newID[e.Waker]
	case EndSpawn:
		if newID[e.Child] < 0 {
			return End{Kind: EndTimer, AtTs: e.AtTs}
		}
		e.Child = newID[e.Child]
	}
	return e
}
