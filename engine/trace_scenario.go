package engine

import (
	"fmt"

	"schedplay/kerneltrace"
)

// The trace workload's scenario part: workload.kind "trace" replays the
// model of a recorded Linux trace (kerneltrace.Build's output) held in
// workload.trace (trace_workload.go runs it).
//
// The scenario carries the model itself, as JSON, rather than a path or a
// handle: a scenario stays one self-contained, serializable document whose
// canonical bytes (and so ScenarioKey, checkpoints and shares) say everything
// a run depends on, and a run of it is as deterministic as any other. The
// model is the data kerneltrace derives from a trace, not the trace: the
// decoders are not part of the engine. DecodeScenario's MaxScenarioBytes still
// bounds a document, so a front end with a large trace builds the model
// itself and sets it on a decoded scenario (the CLI: cmd/schedplay/tracewrap.go),
// whose WithKnobs (arms, sweeps) then takes it whatever its size; Validate
// checks the model either way, since it may come from anywhere.
//
// workload.trace_all_timed turns every wakeup into a timed sleep of its
// recorded length (LinSched) instead of a dependency on its waker (perf sched
// replay's closed loop, the default); a spawn becomes a start at its recorded
// time.

// checkTraceModel checks a model the way kerneltrace.Build makes one: every
// thread and segment an edge names exists, and each wake edge is listed on
// both of its ends, so that no replayed thread waits for a wakeup nothing will
// make, and nothing indexes out of range. Errors name workload.trace and the
// thread and segment at fault.
func checkTraceModel(m *kerneltrace.Model) error {
	const path = "workload.trace"
	n := len(m.Threads)
	if n == 0 {
		return fieldErr(path, "has no threads to replay: workload.kind %q replays the trace model held there", WorkloadTrace)
	}
	if n > MaxTraceThreads {
		return fieldErr(path+".threads", "has %d threads, above the limit %d: narrow the trace's window or its processes", n, MaxTraceThreads)
	}
	segs := 0
	for i := range m.Threads {
		segs += len(m.Threads[i].Segments)
	}
	if segs > MaxTraceSegments {
		return fieldErr(path+".threads", "has %d segments in all, above the limit %d: narrow the trace's window or its processes", segs, MaxTraceSegments)
	}
	at := func(i, k int, format string, args ...any) error {
		p := fmt.Sprintf("%s.threads.%d", path, i)
		if k >= 0 {
			p += fmt.Sprintf(".segments.%d", k)
		} else {
			p += ".start"
		}
		return fieldErr(p, format, args...)
	}
	for i := range m.Threads {
		th := &m.Threads[i]
		if err := checkTraceEnd(m, i, -1, th.Start); err != nil {
			return at(i, -1, "%v", err)
		}
		for k := range th.Segments {
			sg := &th.Segments[k]
			if sg.RunNs < 0 || sg.RunNs > maxTraceNs {
				return at(i, k, "run_ns %d is outside [0, %d]", sg.RunNs, int64(maxTraceNs))
			}
			if sg.End.Kind == kerneltrace.EndSpawned {
				return at(i, k, "ends with a spawned (a thread's start, not a segment's end)")
			}
			if err := checkTraceEnd(m, i, k, sg.End); err != nil {
				return at(i, k, "%v", err)
			}
			last := int64(0)
			for j, wk := range sg.Wakes {
				if wk.AtNs < last || wk.AtNs > sg.RunNs {
					return at(i, k, "wake %d at %d ns is out of order or past the segment's run of %d ns", j, wk.AtNs, sg.RunNs)
				}
				last = wk.AtNs
				if wk.Wakee < 0 || int(wk.Wakee) >= n {
					return at(i, k, "wake %d names thread %d, of %d", j, wk.Wakee, n)
				}
				e, ok := traceEndAt(m, int(wk.Wakee), int(wk.WakeeSeg))
				if !ok || e.Kind != kerneltrace.EndWakeBy || int(e.Waker) != i || int(e.WakerSeg) != k || e.AtNs != wk.AtNs {
					return at(i, k, "wake %d of thread %d's segment %d does not match a wake-by this segment there", j, wk.Wakee, wk.WakeeSeg)
				}
			}
		}
	}
	return nil
}

// checkTraceEnd checks one end (k: its segment, -1 for the thread's start)
// of thread i.
func checkTraceEnd(m *kerneltrace.Model, i, k int, e kerneltrace.End) error {
	n := len(m.Threads)
	switch e.Kind {
	case 0:
		if k >= 0 || len(m.Threads[i].Segments) > 0 {
			return fmt.Errorf("has no kind: want a start or an end")
		}
	case kerneltrace.EndTimer:
		if e.SleepNs < 0 || e.SleepNs > maxTraceNs {
			return fmt.Errorf("sleep_ns %d is outside [0, %d]", e.SleepNs, int64(maxTraceNs))
		}
	case kerneltrace.EndWakeBy, kerneltrace.EndSpawned:
		if e.Waker < 0 || int(e.Waker) >= n || int(e.Waker) == i {
			return fmt.Errorf("waker %d is not another of the %d threads", e.Waker, n)
		}
		if e.Kind == kerneltrace.EndSpawned && k >= 0 {
			return fmt.Errorf("spawned ends a segment")
		}
		ws := m.Threads[e.Waker].Segments
		if e.WakerSeg < 0 || int(e.WakerSeg) >= len(ws) {
			return fmt.Errorf("waker %d's segment %d does not exist", e.Waker, e.WakerSeg)
		}
		if e.SleepNs < 0 || e.SleepNs > maxTraceNs {
			return fmt.Errorf("sleep_ns %d is outside [0, %d]", e.SleepNs, int64(maxTraceNs))
		}
		w := &ws[e.WakerSeg]
		if e.Kind == kerneltrace.EndSpawned {
			if w.End.Kind != kerneltrace.EndSpawn || int(w.End.Child) != i {
				return fmt.Errorf("parent %d's segment %d does not spawn it", e.Waker, e.WakerSeg)
			}
			return nil
		}
		for _, wk := range w.Wakes {
			if int(wk.Wakee) == i && int(wk.WakeeSeg) == k {
				return nil
			}
		}
		return fmt.Errorf("waker %d's segment %d lists no wake of it", e.Waker, e.WakerSeg)
	case kerneltrace.EndSpawn:
		if k < 0 {
			return fmt.Errorf("spawn starts a thread")
		}
		if e.Child < 0 || int(e.Child) >= n || int(e.Child) == i {
			return fmt.Errorf("child %d is not another of the %d threads", e.Child, n)
		}
		if c := m.Threads[e.Child].Start; c.Kind != kerneltrace.EndSpawned || int(c.Waker) != i || int(c.WakerSeg) != k {
			return fmt.Errorf("child %d does not start by this spawn", e.Child)
		}
	case kerneltrace.EndExit, kerneltrace.EndCut:
		if k < 0 {
			return fmt.Errorf("%v starts a thread", e.Kind)
		}
	default:
		return fmt.Errorf("kind %d is unknown", e.Kind)
	}
	return nil
}

// traceEndAt is thread i's end of segment k, or its start for k = -1.
func traceEndAt(m *kerneltrace.Model, i, k int) (kerneltrace.End, bool) {
	segs := m.Threads[i].Segments
	switch {
	case k == -1:
		return m.Threads[i].Start, true
	case k >= 0 && k < len(segs):
		return segs[k].End, true
	}
	return kerneltrace.End{}, false
}
