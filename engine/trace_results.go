package engine

import "schedplay/kerneltrace"

// A replayed trace's results: per thread and per process, the figures the
// trace recorded (kerneltrace's, from the model) beside the ones the replay
// measured (trace_workload.go's per-thread accounting), in the same units, so
// that a review reads "what would this scheduler have done with my machine's
// work?" off one row.

func (w *traceWorkload) results(s *Sim) TraceResults {
	m := w.model
	r := TraceResults{CPUs: m.CPUs, AllTimed: w.allTimed, Counts: m.Counts,
		Threads: make([]TraceThreadResult, len(w.thr))}
	for i := range w.thr {
		th, mt := &w.thr[i], &m.Threads[i]
		r.Threads[i] = TraceThreadResult{Name: mt.Name(), Tid: mt.Tid, Gen: mt.Gen, Pid: mt.Tgid,
			Recorded: mt.Recorded, Replayed: th.figures(s), Done: th.state == trDone}
		if th.state != trDone {
			r.Unfinished++
		}
	}
	for _, p := range m.Processes {
		pr := TraceProcessResult{Name: p.Name, Pid: p.Pid, Threads: len(p.Threads), Recorded: p.Recorded}
		var lat []int64
		for _, id := range p.Threads {
			if id < 0 || int(id) >= len(w.thr) {
				continue
			}
			f := r.Threads[id].Replayed
			pr.Replayed.CPUMs += f.CPUMs
			pr.Replayed.RunnableMs += f.RunnableMs
			pr.Replayed.Migrations += f.Migrations
			pr.Replayed.Wakeups += f.Wakeups
			lat = append(lat, w.thr[id].lat...)
		}
		pr.Replayed.WakeLatP50Us, pr.Replayed.WakeLatP99Us = kerneltrace.PercentileUs(lat, 50), kerneltrace.PercentileUs(lat, 99)
		r.Processes = append(r.Processes, pr)
	}
	return r
}

// figures are th's replayed figures: its CPU time as the engine counts it.
func (th *trThread) figures(s *Sim) kerneltrace.Figures {
	return kerneltrace.Figures{
		CPUMs:        th.t.runNs / 1e6,
		WakeLatP50Us: kerneltrace.PercentileUs(th.lat, 50),
		WakeLatP99Us: kerneltrace.PercentileUs(th.lat, 99),
		RunnableMs:   float64(th.runnableNs) / 1e6,
		Migrations:   th.migrations,
		Wakeups:      th.wakeups,
	}
}
