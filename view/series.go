package view

// Series is a metric history over simulated time whose resolution adapts: it starts
// with fine buckets and, whenever it holds more than Max, merges neighbours and
// doubles the bucket width. A run of any length (a slow-motion millisecond or two
// simulated minutes) thus keeps between Max/2 and Max points, in fixed memory.
type Series struct {
	// WidthNs is the current bucket width.
	WidthNs int64
	// Max is the bucket count that triggers a merge (even; at least 4).
	Max     int
	Buckets []Totals
	// last is the cumulative total at lastNs, the end of what has been added.
	last   Totals
	lastNs int64
}

// Totals are cumulative counters at an instant (or, in a bucket, their growth
// during it). Busy and IdleOver are CPU-nanoseconds.
type Totals struct {
	Completed, IPIs, HaltExits int64
	BusyNs, IdleOverNs         int64
}

func (t Totals) sub(u Totals) Totals {
	return Totals{t.Completed - u.Completed, t.IPIs - u.IPIs, t.HaltExits - u.HaltExits, t.BusyNs - u.BusyNs, t.IdleOverNs - u.IdleOverNs}
}

func (t Totals) add(u Totals) Totals {
	return Totals{t.Completed + u.Completed, t.IPIs + u.IPIs, t.HaltExits + u.HaltExits, t.BusyNs + u.BusyNs, t.IdleOverNs + u.IdleOverNs}
}

func (t Totals) scale(num, den int64) Totals {
	f := func(v int64) int64 { return v * num / den }
	return Totals{f(t.Completed), f(t.IPIs), f(t.HaltExits), f(t.BusyNs), f(t.IdleOverNs)}
}

// NewSeries starts a history at time 0 with the given first bucket width.
func NewSeries(widthNs int64, max int) Series {
	return Series{WidthNs: max64(widthNs, 1), Max: max64i(max&^1, 4)}
}

// Add records the cumulative totals at time t (t after the previous Add). Growth
// since the previous Add is spread evenly over the time it covers, so a frame that
// spans several buckets does not leave gaps and a spike.
func (s *Series) Add(t int64, cum Totals) {
	if t <= s.lastNs {
		s.last = cum
		return
	}
	delta := cum.sub(s.last)
	span := t - s.lastNs
	left := delta
	for a := s.lastNs; a < t; {
		i := int(a / s.WidthNs)
		b := min((int64(i)+1)*s.WidthNs, t)
		part := delta.scale(b-a, span)
		if b == t {
			part = left // the last piece takes the rounding remainder
		}
		left = left.sub(part)
		for len(s.Buckets) <= i {
			s.Buckets = append(s.Buckets, Totals{})
		}
		s.Buckets[i] = s.Buckets[i].add(part)
		a = b
		if len(s.Buckets) > s.Max {
			s.merge()
		}
	}
	s.last, s.lastNs = cum, t
}

// merge halves the resolution.
func (s *Series) merge() {
	n := (len(s.Buckets) + 1) / 2
	for i := range n {
		v := s.Buckets[2*i]
		if 2*i+1 < len(s.Buckets) {
			v = v.add(s.Buckets[2*i+1])
		}
		s.Buckets[i] = v
	}
	s.Buckets = s.Buckets[:n]
	s.WidthNs *= 2
}

// EndNs is the end of the recorded history.
func (s *Series) EndNs() int64 { return s.lastNs }

// Metric selects what a chart plots from a bucket.
type Metric int

const (
	Throughput Metric = iota // completions per simulated second
	BusyVCPUs                // mean vCPUs busy
	IPIRate                  // IPIs per simulated second
	HaltRate                 // halt VM exits per simulated second
)

// Values appends the metric of every bucket to dst. The last bucket may be
// partial; its rate uses the time it actually covers.
func (s *Series) Values(dst []float64, m Metric) []float64 {
	for i, b := range s.Buckets {
		w := s.WidthNs
		if end := int64(i+1) * s.WidthNs; end > s.lastNs {
			w = s.lastNs - int64(i)*s.WidthNs
		}
		if w <= 0 {
			dst = append(dst, 0)
			continue
		}
		sec := float64(w) / 1e9
		var v float64
		switch m {
		case Throughput:
			v = float64(b.Completed) / sec
		case BusyVCPUs:
			v = float64(b.BusyNs) / float64(w)
		case IPIRate:
			v = float64(b.IPIs) / sec
		case HaltRate:
			v = float64(b.HaltExits) / sec
		}
		dst = append(dst, v)
	}
	return dst
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func max64i(a, b int) int {
	if a > b {
		return a
	}
	return b
}
