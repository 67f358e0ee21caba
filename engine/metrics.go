package engine

import (
	"fmt"
)

// Metrics: time integrals of CPU states, counters and latency histograms over
// each measured window (the scenario's [warmup, duration) and any added with
// AddWindow), plus running totals for live display and a per-bucket series over
// the whole run (throughput over time).

type metrics struct {
	bucketNs int64

	nState      [5]int // CPUs in each CPUState
	nOverloaded int    // CPUs running a thread with another queued behind it
	overloaded  []bool // by CPU
	// nSharedWaiting counts the tasks a sched_ext policy keeps waiting in a
	// shared DSQ that any CPU may run (scx_dsq.go): while one does, an idle
	// CPU idles while there is work it could run, as beside an overloaded CPU.
	nSharedWaiting int

	spinWindowTotal int64 // Σ spin window over CPUs, kept current

	// win holds the measured windows: win[0] is the scenario's [warmup,
	// duration); AddWindow adds more, so one run can be measured over several.
	win []window

	live   LiveMetrics
	series []seriesAcc
	// curBucket is the series bucket the last advance ended in.
	curBucket int64

	// Deferred integration. The integrals (live, series, windows) are
	// accounted up to owedFrom; [owedFrom, now) is owed, at the state counts
	// in force since, which have not changed. An advance to a time up to
	// deferTo adds to what is owed instead of integrating: most events change
	// no count, and one integration of the sum equals the ones of its parts
	// (integer sums; the one float sum is deferred only while it adds zeros).
	// deferTo stops before anything an integration must do at its exact time:
	// a series bucket's end, a window's start or end. settle pays what is
	// owed before a count changes and before anything reads the integrals.
	owedFrom, deferTo int64
}

// window accumulates the metrics of one measured time range [from, to).
type window struct {
	from, to int64

	// integrals (ns of CPU time)
	busyNs, spinNs, idleOverNs, hostPollNs int64
	spinWindowNsSum                        float64 // ∫ Σ spin window dt, for the mean window

	completed  int64
	ipis       [numIPIKinds]int64
	halts      int64
	migrations int64
	// migLevel counts the migrations by how far they went (a topology's):
	// to an SMT sibling, another core of the LLC, another LLC of the node,
	// another node. smtBusyNs and smtContNs are busy CPU time on an SMT
	// machine, and the part of it with a sibling busy too (smt.go).
	migLevel             [4]int64
	smtBusyNs, smtContNs int64
	suppressed           int64
	lat                  histogram
	w2r                  histogram
	// ready is each runnable wait (woken, or requeued after a preemption, to
	// switched in); readyMax the longest, exactly; openAtEnd the longest wait
	// still under way when the window ended (taken with runTo).
	ready               histogram
	readyMax, openAtEnd int64
	// runFrom and runTo are each thread's CPU time (by thread id) at the
	// window's start and end, taken as the clock crosses them (runSnapshot);
	// nil until then. A thread created later is missing: it had none.
	runFrom, runTo []float64

	// Row locks (rowlock.go): transactions committed, and those of them that
	// waited for a row; waits granted and their total length; locks released
	// and their total hold.
	lockTxns, lockTxnsWaited int64
	lockWaits, lockWaitNs    int64
	lockHolds, lockHoldNs    int64
}

func (w *window) contains(t int64) bool { return t >= w.from && t < w.to }

type seriesAcc struct {
	completed, ipis, halts int64
	busyNs, idleOverNs     int64
	// hostBusyNs is vCPU time busy as the host sees it: running guest code
	// (threads, interrupts, the idle loop's spin) or halt-polling in the host.
	hostBusyNs int64
}

func (m *metrics) init(s *Sim) {
	m.bucketNs = s.sc.SeriesIntervalMs * 1e6
	end := s.sc.DurationMs * 1e6
	m.series = make([]seriesAcc, (end+m.bucketNs-1)/m.bucketNs)
	m.overloaded = make([]bool, s.sc.Machine.VCPUs)
	m.nState[CPUSpinning] = s.sc.Machine.VCPUs
	m.spinWindowTotal = int64(s.sc.Machine.VCPUs) * s.sc.Sched.IdleSpin.Cap
	m.win = []window{{from: s.sc.WarmupMs * 1e6, to: end}}
}

// AddWindow measures the run over [fromMs, toMs) too (clipped to the horizon);
// ResultsWindow(i) reads it, with i the returned index. Call it before the
// simulation has passed fromMs, or the window misses what came before.
func (s *Sim) AddWindow(fromMs, toMs int64) int {
	s.m.settle(s) // what is owed was before the window was asked for
	s.m.win = append(s.m.win, window{from: fromMs * 1e6, to: min(toMs*1e6, s.end)})
	s.m.deferTo = s.now // the next advance integrates, and sees the new window's edges
	return len(s.m.win) - 1
}

// settle integrates what is owed, [owedFrom, now).
func (m *metrics) settle(s *Sim) {
	if m.owedFrom < s.now {
		m.integrateFrom(s, m.owedFrom, s.now)
	}
	if s.smtThreads() > 1 {
		for _, c := range s.cpus {
			s.smtAccount(c) // SMT busy and contended time up to now
		}
	}
}

// advance integrates the state counts over [owedFrom, t), t at or after now;
// Sim.advanceTo calls it only for a t it may not defer (see owedFrom).
func (m *metrics) advance(s *Sim, t int64) {
	if t <= s.now {
		if t < s.now {
			panic(fmt.Sprintf("engine.advanceTo: time going backwards %d < %d", t, s.now))
		}
		return
	}
	m.integrateFrom(s, m.owedFrom, t)
}

// integrateFrom integrates the state counts over [from, t), then sets how far
// the next advances may defer.
func (m *metrics) integrateFrom(s *Sim, from, t int64) {
	busy := int64(m.nState[CPURunning] + m.nState[CPUIRQ])
	hostBusy := busy + int64(m.nState[CPUSpinning])
	idle := int64(m.nState[CPUSpinning] + m.nState[CPUHalted] + m.nState[CPUWaking])
	var over int64
	if m.nOverloaded > 0 || m.nSharedWaiting > 0 {
		over = idle
	}
	dt := t - from
	m.live.BusyNs += busy * dt
	m.live.SpinNs += int64(m.nState[CPUSpinning]) * dt
	m.live.IdleOverNs += over * dt
	// Series buckets, split at bucket edges. Most advances stay inside the bucket
	// the previous one ended in; only a crossing pays for a division.
	if cur := m.curBucket; from >= cur*m.bucketNs && t <= (cur+1)*m.bucketNs && cur < int64(len(m.series)) {
		b := &m.series[cur]
		b.busyNs += busy * dt
		b.hostBusyNs += hostBusy * dt
		b.idleOverNs += over * dt
	} else {
		for a := from; a < t; {
			i := a / m.bucketNs
			b := min(t, (i+1)*m.bucketNs)
			if i < int64(len(m.series)) {
				m.series[i].busyNs += busy * (b - a)
				m.series[i].hostBusyNs += hostBusy * (b - a)
				m.series[i].idleOverNs += over * (b - a)
			}
			m.curBucket = i
			a = b
		}
	}
	for i := range m.win {
		w := &m.win[i]
		if lo, hi := max(from, w.from), min(t, w.to); hi > lo {
			d := hi - lo
			w.busyNs += busy * d
			w.spinNs += int64(m.nState[CPUSpinning]) * d
			w.idleOverNs += over * d
			w.spinWindowNsSum += float64(m.spinWindowTotal) * float64(d)
			// The clock crosses the window's start or end in exactly one
			// advance each: take the threads' CPU time there (task_fairness).
			if from <= w.from {
				w.runFrom = runSnapshot(s, w.from, w.runFrom)
			}
			if t >= w.to {
				w.runTo = runSnapshot(s, w.to, w.runTo)
				w.openAtEnd = longestOpenWait(s, w.to)
			}
		}
	}
	m.owedFrom = t
	m.deferTo = t // no deferral: the float sum must add every interval
	if m.spinWindowTotal != 0 {
		return
	}
	// Up to the end of t's series bucket, short of any window's edge.
	d := (t/m.bucketNs + 1) * m.bucketNs
	for i := range m.win {
		w := &m.win[i]
		if w.from >= t {
			d = min(d, w.from) // an interval that passes it takes the threads' CPU time there
		}
		if w.to > t {
			d = min(d, w.to-1) // one that reaches it takes it there
		}
	}
	m.deferTo = d
}

// runSnapshot writes into dst (reused) every thread's CPU time at time at, which
// lies in the interval being advanced over: nothing changes state inside it, so
// a running thread's is what it had plus its current segment up to at.
func runSnapshot(s *Sim, at int64, dst []float64) []float64 {
	if cap(dst) < len(s.threads) {
		dst = make([]float64, 0, len(s.threads))
	}
	dst = dst[:0]
	for _, t := range s.threads {
		dst = append(dst, runNsAt(s, t, at))
	}
	return dst
}

// longestOpenWait is the longest wait, at time at, of a task runnable but not
// yet switched in: a task that never gets the CPU has no finished wait to show.
func longestOpenWait(s *Sim, at int64) int64 {
	var longest int64
	for _, t := range s.threads {
		if t.state != ThreadQueued && t.state != ThreadIncoming {
			continue
		}
		since := t.wokenAtNs
		if since < 0 {
			since = t.requeuedAtNs
		}
		if since >= 0 {
			longest = max(longest, at-since)
		}
	}
	return longest
}

// runNsAt is t's CPU time at time at (now or later, with no event in between),
// including the segment it is running, as chargeRuntime will charge it.
func runNsAt(s *Sim, t *thread, at int64) float64 {
	if t.state == ThreadRunning {
		if c := s.cpus[t.cpu]; c.cur == t {
			return t.runNs + float64(at-c.segStartNs)
		}
	}
	return t.runNs
}

func (m *metrics) cpuState(s *Sim, c *cpu, st CPUState) {
	m.settle(s)
	m.nState[c.state]--
	m.nState[st]++
}

// queueChanged recomputes whether c is overloaded (a thread runs and another waits).
func (m *metrics) queueChanged(s *Sim, c *cpu) {
	o := c.cur != nil && len(c.rq)+len(c.incoming) > 0
	if o != m.overloaded[c.id] {
		m.setOverloaded(s, c, o)
	}
}

// sharedWaiting adds delta to the tasks waiting in shared DSQs. The
// integrals depend only on whether any waits, so only a change of that
// settles them (a DSQ push or pop is as frequent as a wake).
func (m *metrics) sharedWaiting(s *Sim, delta int) {
	n := m.nSharedWaiting + delta
	if (n > 0) != (m.nSharedWaiting > 0) {
		m.settle(s)
	}
	m.nSharedWaiting = n
}

// setOverloaded records that c became overloaded (o) or stopped being. Not
// inlined, so that queueChanged is.
//
//go:noinline
func (m *metrics) setOverloaded(s *Sim, c *cpu, o bool) {
	m.settle(s)
	m.overloaded[c.id] = o
	if o {
		m.nOverloaded++
	} else {
		m.nOverloaded--
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
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisComplete, CPU: -1, Other: -1, Thread: -1, Arg: int32(min(latNs/1000, 1<<30))})
	m.bucket(s).completed++
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			w.completed++
			w.lat.add(latNs)
		}
	}
}

// switchedIn records, as t is switched in, how long it waited runnable: since its
// wake (a wake-to-run as well) or since it was requeued after a preemption.
func (m *metrics) switchedIn(s *Sim, t *thread) {
	woken := t.wokenAtNs >= 0
	wait := s.now - t.requeuedAtNs
	if woken {
		wait = s.now - t.wokenAtNs
		m.live.WakeToRunSum += wait
		m.live.WakeToRunN++
	}
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			if woken {
				w.w2r.add(wait)
			}
			w.ready.add(wait)
			w.readyMax = max(w.readyMax, wait)
		}
	}
}

func (m *metrics) ipi(s *Sim, k IPIKind) {
	m.live.IPIs[k]++
	m.bucket(s).ipis++
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			w.ipis[k]++
		}
	}
}

func (m *metrics) suppressedIPI(s *Sim) {
	m.live.SuppressedIPI++
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			w.suppressed++
		}
	}
}

func (m *metrics) halt(s *Sim) {
	m.live.HaltExits++
	m.bucket(s).halts++
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			w.halts++
		}
	}
}

func (m *metrics) migration(s *Sim, from, to int) {
	m.live.Migrations++
	level := s.migrationLevel(from, to)
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			w.migrations++
			w.migLevel[level]++
		}
	}
}

// smtTime counts [t0, t1) of a CPU's busy time on an SMT machine, contended
// when a sibling was busy too, into the windows it overlaps.
func (m *metrics) smtTime(t0, t1 int64, contended bool) {
	for i := range m.win {
		w := &m.win[i]
		if d := min(t1, w.to) - max(t0, w.from); d > 0 {
			w.smtBusyNs += d
			if contended {
				w.smtContNs += d
			}
		}
	}
}

// rowLockTxn counts a transaction whose row locks its commit released, and
// whether it waited for any.
func (m *metrics) rowLockTxn(s *Sim, waited bool) {
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			w.lockTxns++
			if waited {
				w.lockTxnsWaited++
			}
		}
	}
}

// rowLockGranted counts a row-lock wait as it ends, granted at the holder's
// commit after waitNs.
func (m *metrics) rowLockGranted(s *Sim, waitNs int64) {
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			w.lockWaits++
			w.lockWaitNs += waitNs
		}
	}
}

// rowLockReleased counts a row lock released at its transaction's commit after
// being held for holdNs.
func (m *metrics) rowLockReleased(s *Sim, holdNs int64) {
	for i := range m.win {
		if w := &m.win[i]; w.contains(s.now) {
			w.lockHolds++
			w.lockHoldNs += holdNs
		}
	}
}

// hostPoll accounts a host halt poll over [from, to), known when the halt ends.
func (m *metrics) hostPoll(s *Sim, from, to int64) {
	if to <= from {
		return
	}
	m.live.HostPollNs += to - from
	for a := from; a < to; {
		b := min(to, (a/m.bucketNs+1)*m.bucketNs)
		if i := a / m.bucketNs; i < int64(len(m.series)) {
			m.series[i].hostBusyNs += b - a
		}
		a = b
	}
	for i := range m.win {
		w := &m.win[i]
		if lo, hi := max(from, w.from), min(to, w.to); hi > lo {
			w.hostPollNs += hi - lo
		}
	}
}
