package engine

// What the metrics come to: a window's Results, the task fairness, and the
// latency histogram the page draws.

import (
	"math/bits"
)

// Results computes the metrics over the scenario's measured window so far.
func (s *Sim) Results() Results { return s.ResultsWindow(0) }

// ResultsWindow computes the metrics over measured window i (0 is the
// scenario's; see AddWindow) so far, with the run's whole series.
func (s *Sim) ResultsWindow(i int) Results {
	m := &s.m
	m.settle(s) // the integrals up to now
	w := &m.win[i]
	winNs := min(s.now, w.to) - w.from
	r := Results{SimSeconds: float64(s.now) / 1e9, Events: s.events, Completed: w.completed}
	if s.finishedNs >= 0 {
		r.ElapsedS = float64(s.finishedNs) / 1e9
	}
	if k, ok := s.pol.(*ScxKernel); ok && k.exitNs >= 0 {
		r.ScxExit = ScxExit{AtNs: k.exitNs, Reason: k.exit}
	} else if ok && s.sc.Sched.Policy == "scx" {
		// A policy of the user's, which may park tasks where nothing runs
		// them; the engine's own scx_simple does not, and its results (which
		// the calibration's fingerprint digests) stay as they were.
		r.ScxWaiting = k.waiting()
	}
	if winNs > 0 {
		sec := float64(winNs) / 1e9
		cpuNs := float64(winNs) * float64(len(s.cpus))
		r.ThroughputPerS = float64(w.completed) / sec
		r.BusyVCPUsMean = float64(w.busyNs) / float64(winNs)
		r.BusyVCPUsHostMean = float64(w.busyNs+w.spinNs+w.hostPollNs) / float64(winNs)
		r.IdleWhileOverloadedFrac = float64(w.idleOverNs) / cpuNs
		total := w.ipis[IPIWakeup] + w.ipis[IPIPull] + w.ipis[IPIDonate]
		r.IPIsPerS = IPIRates{Total: float64(total) / sec, Wakeup: float64(w.ipis[IPIWakeup]) / sec,
			Pull: float64(w.ipis[IPIPull]) / sec, Donate: float64(w.ipis[IPIDonate]) / sec}
		r.SuppressedIPIsPerS = float64(w.suppressed) / sec
		r.HaltExitsPerS = float64(w.halts) / sec
		r.SpinCPUFrac = float64(w.spinNs) / cpuNs
		r.HostCPUFrac = float64(w.busyNs+w.spinNs+w.hostPollNs) / cpuNs
		r.MigrationsPerS = float64(w.migrations) / sec
		if s.sc.Machine.Topology != "" {
			r.Topology.MigrationsByLevel = MigrationLevels{SMT: float64(w.migLevel[migSMT]) / sec, Core: float64(w.migLevel[migCore]) / sec,
				LLC: float64(w.migLevel[migLLC]) / sec, Node: float64(w.migLevel[migNode]) / sec}
			if w.smtBusyNs > 0 {
				r.Topology.SMTContendedFrac = float64(w.smtContNs) / float64(w.smtBusyNs)
			}
		}
		r.SpinWindowMean = w.spinWindowNsSum / cpuNs
	}
	r.LatencyUs = LatencySummary{P50: w.lat.quantile(0.5) / 1e3, P99: w.lat.quantile(0.99) / 1e3,
		P999: w.lat.quantile(0.999) / 1e3, Mean: w.lat.mean() / 1e3}
	r.WakeToRunUs = WakeSummary{Mean: w.w2r.mean() / 1e3, P99: w.w2r.quantile(0.99) / 1e3}
	open := w.openAtEnd
	if w.runTo == nil {
		open = longestOpenWait(s, s.now)
	}
	r.RunnableWaitUs = WaitSummary{P50: w.ready.quantile(0.5) / 1e3, P99: w.ready.quantile(0.99) / 1e3,
		Max: float64(max(w.readyMax, open)) / 1e3}
	r.TaskFairness = s.taskFairness(w)
	if rw, ok := s.wl.(*rtappWorkload); ok {
		r.RTApp = rw.results(s)
	}
	if tw, ok := s.wl.(*traceWorkload); ok {
		r.Trace = tw.results(s)
	}
	if len(s.groups) > 0 {
		r.TaskGroups = s.taskGroupResults()
	}
	if sb, ok := s.wl.(*schbench); ok && i == 0 {
		r.Schbench = sb.results(s)
	}
	if wl := &s.sc.Workload; wl.Kind == WorkloadRequestServer && wl.TPCBScale > 0 {
		r.RowLocks = rowLockResults(w, winNs, wl.TPCBScale)
	}
	for i := range m.series {
		start := int64(i) * m.bucketNs
		if start >= s.now {
			break
		}
		width := min(m.bucketNs, s.now-start)
		sec := float64(width) / 1e9
		b := &m.series[i]
		r.Series = append(r.Series, SeriesPoint{
			StartMs:          float64(start) / 1e6,
			ThroughputPerS:   float64(b.completed) / sec,
			BusyVCPUs:        float64(b.busyNs) / float64(width),
			BusyVCPUsHost:    float64(b.hostBusyNs) / float64(width),
			IPIsPerS:         float64(b.ipis) / sec,
			HaltExitsPerS:    float64(b.halts) / sec,
			IdleOverloadFrac: float64(b.idleOverNs) / (float64(width) * float64(len(s.cpus))),
		})
	}
	return r
}

// rowLockResults summarises window w's row locks, modelled at scale, over winNs
// of it so far.
func rowLockResults(w *window, winNs int64, scale int) RowLockResults {
	rl := RowLockResults{TPCBScale: scale}
	if w.lockTxns > 0 {
		rl.WaitedTxnFrac = float64(w.lockTxnsWaited) / float64(w.lockTxns)
	}
	if winNs > 0 {
		rl.WaitsPerS = float64(w.lockWaits) / (float64(winNs) / 1e9)
	}
	if w.lockWaits > 0 {
		rl.WaitMeanUs = float64(w.lockWaitNs) / float64(w.lockWaits) / 1e3
	}
	if w.lockHolds > 0 {
		rl.HoldMeanUs = float64(w.lockHoldNs) / float64(w.lockHolds) / 1e3
	}
	return rl
}

// taskFairness is Jain's index over the CPU time each worker thread received in
// window w so far: (Σx)² / (n·Σx²), 1 when all got the same, 1/n when one got
// it all. Workers are the workload's own tasks of one kind (RoleWorker: backends,
// writers, hackbench's children, saturated_sync's tasks); the wakers, spawners
// and kernel threads do other jobs and are left out. 0 when no worker ran.
func (s *Sim) taskFairness(w *window) float64 {
	var sum, sq float64
	n := 0
	for i, t := range s.threads {
		if t.role != RoleWorker {
			continue
		}
		var x float64
		switch {
		case w.runTo == nil:
			x = runNsAt(s, t, s.now)
		case i < len(w.runTo):
			x = w.runTo[i]
		default:
			continue // created after the window ended
		}
		if i < len(w.runFrom) {
			x -= w.runFrom[i]
		}
		sum += x
		sq += x * x
		n++
	}
	if n == 0 || sq == 0 {
		return 0
	}
	return sum * sum / (float64(n) * sq)
}

// histogram is a log-linear histogram of non-negative durations (ns): 32 linear
// sub-buckets per power of two, so quantiles are within ~3% and memory is fixed.
type histogram struct {
	counts [64 * 32]int64
	n      int64
	sum    float64
}

const histSub = 5 // log2 of sub-buckets per octave

func histIndex(v int64) int {
	if v < 1<<histSub {
		return int(max(v, 0))
	}
	e := bits.Len64(uint64(v)) - 1 // v in [2^e, 2^(e+1))
	sub := int(v>>(e-histSub)) & (1<<histSub - 1)
	return (e-histSub+1)<<histSub + sub
}

// histLow is the smallest value that maps to bucket i.
func histLow(i int) int64 {
	if i < 1<<histSub {
		return int64(i)
	}
	e := i>>histSub + histSub - 1
	sub := int64(i & (1<<histSub - 1))
	return (1<<histSub + sub) << (e - histSub)
}

func (h *histogram) add(v int64) {
	h.counts[histIndex(v)]++
	h.n++
	h.sum += float64(v)
}

func (h *histogram) mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// quantile returns the midpoint of the bucket holding the q-quantile.
func (h *histogram) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n-1)) + 1
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := histLow(i), histLow(i+1)
			return float64(lo+hi) / 2
		}
	}
	return 0
}

// LatencyBucket is one bucket of a latency histogram, in microseconds.
type LatencyBucket struct {
	LowUs, HighUs float64
	Count         int64
}

// LatencyHistogram appends the non-empty buckets of measured window i's latency
// histogram (request or operation latency, the one the results' quantiles come
// from) to dst, in increasing order. Buckets are about 3% wide.
func (s *Sim) LatencyHistogram(dst []LatencyBucket, i int) []LatencyBucket {
	h := &s.m.win[i].lat
	for b, c := range h.counts {
		if c > 0 {
			dst = append(dst, LatencyBucket{LowUs: float64(histLow(b)) / 1e3, HighUs: float64(histLow(b+1)) / 1e3, Count: c})
		}
	}
	return dst
}
