package engine

// The measured windows' parts of a checkpoint (checkpoint.go): the metrics,
// their histograms and float series.

// ckSave writes the metrics, keeping the measured windows wins.
func (m *metrics) ckSave(w *ckWriter, wins []int) {
	w.n(len(wins))
	for _, i := range wins {
		x := &m.win[i]
		w.iv(x.from)
		w.iv(x.to)
		for _, v := range [...]int64{x.busyNs, x.spinNs, x.idleOverNs, x.hostPollNs, x.completed,
			x.ipis[0], x.ipis[1], x.ipis[2], x.halts, x.migrations, x.suppressed, x.readyMax, x.openAtEnd,
			x.lockTxns, x.lockTxnsWaited, x.lockWaits, x.lockWaitNs, x.lockHolds, x.lockHoldNs,
			x.migLevel[0], x.migLevel[1], x.migLevel[2], x.migLevel[3], x.smtBusyNs, x.smtContNs} {
			w.iv(v)
		}
		w.f64(x.spinWindowNsSum)
		x.lat.ckSave(w)
		x.w2r.ckSave(w)
		x.ready.ckSave(w)
		ckSaveFloats(w, x.runFrom)
		ckSaveFloats(w, x.runTo)
	}
	l := &m.live
	for _, v := range [...]int64{l.Completed, l.IPIs[0], l.IPIs[1], l.IPIs[2], l.HaltExits, l.Migrations, l.BusyNs,
		l.SpinNs, l.IdleOverNs, l.LatencySumNs, l.WakeToRunSum, l.WakeToRunN, l.HostPollNs, l.SuppressedIPI} {
		w.iv(v)
	}
	used := len(m.series)
	for used > 0 && m.series[used-1] == (seriesAcc{}) {
		used--
	}
	w.n(used)
	for _, b := range m.series[:used] {
		for _, v := range [...]int64{b.completed, b.ipis, b.halts, b.busyNs, b.idleOverNs, b.hostBusyNs} {
			w.iv(v)
		}
	}
	w.iv(m.curBucket)
}

func (m *metrics) ckLoad(r *ckReader, s *Sim) {
	m.win = make([]window, r.count(20, maxCkWindows))
	for i := range m.win {
		r.in("window", i)
		x := &m.win[i]
		x.from = r.intIn(0, s.end)
		x.to = r.intIn(x.from, s.end)
		if i == 0 && (x.from != s.sc.WarmupMs*1e6 || x.to != s.end) {
			r.failf("the first window is [%d, %d) ns, not the scenario's [%d, %d)", x.from, x.to, s.sc.WarmupMs*1e6, s.end)
		}
		for _, p := range [...]*int64{&x.busyNs, &x.spinNs, &x.idleOverNs, &x.hostPollNs, &x.completed,
			&x.ipis[0], &x.ipis[1], &x.ipis[2], &x.halts, &x.migrations, &x.suppressed, &x.readyMax, &x.openAtEnd,
			&x.lockTxns, &x.lockTxnsWaited, &x.lockWaits, &x.lockWaitNs, &x.lockHolds, &x.lockHoldNs,
			&x.migLevel[0], &x.migLevel[1], &x.migLevel[2], &x.migLevel[3], &x.smtBusyNs, &x.smtContNs} {
			*p = r.iv()
		}
		x.spinWindowNsSum = r.f64()
		x.lat.ckLoad(r)
		x.w2r.ckLoad(r)
		x.ready.ckLoad(r)
		x.runFrom = ckLoadFloats(r, len(s.threads))
		x.runTo = ckLoadFloats(r, len(s.threads))
	}
	if len(m.win) == 0 && r.err == nil {
		r.failf("no measured window")
	}
	r.in("metrics", -1)
	l := &m.live
	for _, p := range [...]*int64{&l.Completed, &l.IPIs[0], &l.IPIs[1], &l.IPIs[2], &l.HaltExits, &l.Migrations, &l.BusyNs,
		&l.SpinNs, &l.IdleOverNs, &l.LatencySumNs, &l.WakeToRunSum, &l.WakeToRunN, &l.HostPollNs, &l.SuppressedIPI} {
		*p = r.iv()
	}
	used := r.count(6, len(m.series))
	for i := range used {
		b := &m.series[i]
		for _, p := range [...]*int64{&b.completed, &b.ipis, &b.halts, &b.busyNs, &b.idleOverNs, &b.hostBusyNs} {
			*p = r.iv()
		}
	}
	m.curBucket = r.intIn(0, int64(len(m.series)))
	if r.err != nil {
		return
	}
	// What metrics keep as counts of the CPUs' state follows from the CPUs.
	m.nState, m.nOverloaded, m.spinWindowTotal = [5]int{}, 0, 0
	for _, c := range s.cpus {
		m.nState[c.state]++
		m.overloaded[c.id] = c.cur != nil && len(c.rq)+len(c.incoming) > 0
		if m.overloaded[c.id] {
			m.nOverloaded++
		}
		m.spinWindowTotal += c.spinWindow
	}
	m.owedFrom, m.deferTo = s.now, s.now // the integrals are up to the clock
}

// ckSave writes the non-empty buckets only, each as its distance from the
// previous one: a latency histogram fills a few dozen of its 2048.
func (h *histogram) ckSave(w *ckWriter) {
	w.iv(h.n)
	w.f64(h.sum)
	nz := 0
	for _, c := range h.counts {
		if c != 0 {
			nz++
		}
	}
	w.n(nz)
	prev := -1
	for i, c := range h.counts {
		if c != 0 {
			w.n(i - prev - 1)
			w.iv(c)
			prev = i
		}
	}
}

func (h *histogram) ckLoad(r *ckReader) {
	h.n = r.iv()
	h.sum = r.f64()
	nz := r.count(2, len(h.counts))
	prev := -1
	var total int64
	for range nz {
		i := prev + 1 + r.n(len(h.counts)-prev-1)
		c := r.iv()
		if r.err != nil {
			return
		}
		h.counts[i] = c
		total += c
		prev = i
	}
	if total != h.n && r.err == nil {
		r.failf("a histogram counts %d values in its buckets and %d in all", total, h.n)
	}
}

// ckSaveFloats writes nil apart from empty (a window's thread times are nil
// until the clock crosses it).
func ckSaveFloats(w *ckWriter, vs []float64) {
	if vs == nil {
		w.n(0)
		return
	}
	w.n(len(vs) + 1)
	for _, v := range vs {
		w.f64(v)
	}
}

func ckLoadFloats(r *ckReader, limit int) []float64 {
	n := r.count(1, limit+1)
	if n == 0 {
		return nil
	}
	out := make([]float64, n-1)
	for i := range out {
		out[i] = r.f64()
	}
	return out
}
