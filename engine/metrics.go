package engine

import "math/bits"

// Metrics: time integrals of CPU states, counters and latency histograms over the
// measured window [warmup, duration), plus running totals for live display and a
// per-bucket series over the whole run (throughput over time).

type metrics struct {
	warm, end, bucketNs int64

	nState      [5]int // CPUs in each CPUState
	nOverloaded int    // CPUs running a thread with another queued behind it
	overloaded  []bool // by CPU

	// window integrals (ns of CPU time)
	busyNs, spinNs, idleOverNs, hostPollNs int64
	spinWindowNsSum                        float64 // ∫ Σ spin window dt, for the mean window
	spinWindowTotal                        int64   // Σ spin window over CPUs, kept current

	completed  int64
	ipis       [numIPIKinds]int64
	halts      int64
	migrations int64
	suppressed int64
	lat        histogram
	w2r        histogram

	live   LiveMetrics
	series []seriesAcc
}

type seriesAcc struct {
	completed, ipis, halts int64
	busyNs, idleOverNs     int64
}

func (m *metrics) init(s *Sim) {
	m.warm = s.sc.WarmupMs * 1e6
	m.end = s.sc.DurationMs * 1e6
	m.bucketNs = s.sc.SeriesIntervalMs * 1e6
	m.series = make([]seriesAcc, (m.end+m.bucketNs-1)/m.bucketNs)
	m.overloaded = make([]bool, s.sc.Machine.VCPUs)
	m.nState[CPUSpinning] = s.sc.Machine.VCPUs
	m.spinWindowTotal = int64(s.sc.Machine.VCPUs) * s.sc.Sched.IdleSpin.Cap
}

func (m *metrics) inWindow(t int64) bool { return t >= m.warm && t < m.end }

// advance integrates the state counts over [s.now, t).
func (m *metrics) advance(s *Sim, t int64) {
	from := s.now
	if t <= from {
		return
	}
	busy := int64(m.nState[CPURunning] + m.nState[CPUIRQ])
	idle := int64(m.nState[CPUSpinning] + m.nState[CPUHalted] + m.nState[CPUWaking])
	var over int64
	if m.nOverloaded > 0 {
		over = idle
	}
	dt := t - from
	m.live.BusyNs += busy * dt
	m.live.SpinNs += int64(m.nState[CPUSpinning]) * dt
	m.live.IdleOverNs += over * dt
	// Series buckets (split at bucket edges).
	for a := from; a < t; {
		b := min(t, (a/m.bucketNs+1)*m.bucketNs)
		if i := a / m.bucketNs; i < int64(len(m.series)) {
			m.series[i].busyNs += busy * (b - a)
			m.series[i].idleOverNs += over * (b - a)
		}
		a = b
	}
	// Measured window.
	lo, hi := max(from, m.warm), min(t, m.end)
	if hi > lo {
		w := hi - lo
		m.busyNs += busy * w
		m.spinNs += int64(m.nState[CPUSpinning]) * w
		m.idleOverNs += over * w
		m.spinWindowNsSum += float64(m.spinWindowTotal) * float64(w)
	}
}

func (m *metrics) cpuState(s *Sim, c *cpu, st CPUState) {
	m.nState[c.state]--
	m.nState[st]++
}

// queueChanged recomputes whether c is overloaded (a thread runs and another waits).
func (m *metrics) queueChanged(s *Sim, c *cpu) {
	o := c.cur != nil && len(c.rq)+len(c.incoming) > 0
	if o != m.overloaded[c.id] {
		m.overloaded[c.id] = o
		if o {
			m.nOverloaded++
		} else {
			m.nOverloaded--
		}
	}
}

func (m *metrics) bucket(s *Sim) *seriesAcc {
	i := s.now / m.bucketNs
	if i >= int64(len(m.series)) {
		i = int64(len(m.series)) - 1
	}
	return &m.series[i]
}

func (m *metrics) complete(s *Sim, latNs int64) {
	m.live.Completed++
	m.live.LatencySumNs += latNs
	s.vis.add(s.now, VisComplete, 0, -1, -1, -1, int(min(latNs/1000, 1<<30)))
	m.bucket(s).completed++
	if m.inWindow(s.now) {
		m.completed++
		m.lat.add(latNs)
	}
}

func (m *metrics) wakeToRun(s *Sim, ns int64) {
	m.live.WakeToRunSum += ns
	m.live.WakeToRunN++
	if m.inWindow(s.now) {
		m.w2r.add(ns)
	}
}

func (m *metrics) ipi(s *Sim, k IPIKind) {
	m.live.IPIs[k]++
	m.bucket(s).ipis++
	if m.inWindow(s.now) {
		m.ipis[k]++
	}
}

func (m *metrics) halt(s *Sim) {
	m.live.HaltExits++
	m.bucket(s).halts++
	if m.inWindow(s.now) {
		m.halts++
	}
}

func (m *metrics) migration(s *Sim) {
	m.live.Migrations++
	if m.inWindow(s.now) {
		m.migrations++
	}
}

func (m *metrics) hostPoll(s *Sim, ns int64) {
	if ns <= 0 {
		return
	}
	m.live.HostPollNs += ns
	if m.inWindow(s.now) {
		m.hostPollNs += ns
	}
}

// Results computes the metrics over the measured window so far.
func (s *Sim) Results() Results {
	m := &s.m
	m.live.SuppressedIPI = m.suppressed
	winNs := min(s.now, m.end) - m.warm
	r := Results{SimSeconds: float64(s.now) / 1e9, Events: s.events, Completed: m.completed}
	if s.finishedNs >= 0 {
		r.ElapsedS = float64(s.finishedNs) / 1e9
	}
	if winNs > 0 {
		sec := float64(winNs) / 1e9
		cpuNs := float64(winNs) * float64(len(s.cpus))
		r.ThroughputPerS = float64(m.completed) / sec
		r.BusyVCPUsMean = float64(m.busyNs) / float64(winNs)
		r.IdleWhileOverloadedFrac = float64(m.idleOverNs) / cpuNs
		total := m.ipis[IPIWakeup] + m.ipis[IPIPull] + m.ipis[IPIDonate]
		r.IPIsPerS = IPIRates{Total: float64(total) / sec, Wakeup: float64(m.ipis[IPIWakeup]) / sec,
			Pull: float64(m.ipis[IPIPull]) / sec, Donate: float64(m.ipis[IPIDonate]) / sec}
		r.SuppressedIPIsPerS = float64(m.suppressed) / sec
		r.HaltExitsPerS = float64(m.halts) / sec
		r.SpinCPUFrac = float64(m.spinNs) / cpuNs
		r.HostCPUFrac = float64(m.busyNs+m.spinNs+m.hostPollNs) / cpuNs
		r.MigrationsPerS = float64(m.migrations) / sec
		r.SpinWindowMean = m.spinWindowNsSum / cpuNs
	}
	r.LatencyUs = LatencySummary{P50: m.lat.quantile(0.5) / 1e3, P99: m.lat.quantile(0.99) / 1e3,
		P999: m.lat.quantile(0.999) / 1e3, Mean: m.lat.mean() / 1e3}
	r.WakeToRunUs = WakeSummary{Mean: m.w2r.mean() / 1e3, P99: m.w2r.quantile(0.99) / 1e3}
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
			IPIsPerS:         float64(b.ipis) / sec,
			HaltExitsPerS:    float64(b.halts) / sec,
			IdleOverloadFrac: float64(b.idleOverNs) / (float64(width) * float64(len(s.cpus))),
		})
	}
	return r
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
