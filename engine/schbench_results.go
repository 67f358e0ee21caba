package engine

// SchbenchResults is what schbench prints at its end, over the measured
// window: its two latency tables and its requests per second.
type SchbenchResults struct {
	// WakeupUs is from a message thread's wake (the start of its walk, or
	// with rps the post) to the worker running; RequestUs from a request's
	// start (its usleep) to the end of its matrix math.
	WakeupUs  Percentiles `json:"wakeup_us"`
	RequestUs Percentiles `json:"request_us"`
	// RPS is requests completed per second; Requests their count.
	RPS      float64 `json:"rps"`
	Requests int64   `json:"requests"`
	// Workers and MessageThreads are the threads it ran (-t per message
	// thread, times -m).
	Workers        int `json:"workers"`
	MessageThreads int `json:"message_threads"`
}

// Percentiles are the percentiles schbench prints, in µs, and the largest.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
	N    int64   `json:"samples"`
}

func percentiles(h *histogram) Percentiles {
	if h.n == 0 {
		return Percentiles{}
	}
	return Percentiles{P50: h.quantile(0.5) / 1e3, P90: h.quantile(0.9) / 1e3, P99: h.quantile(0.99) / 1e3,
		P999: h.quantile(0.999) / 1e3, Max: h.quantile(1) / 1e3, N: h.n}
}

// results is the measured window's figures (the scenario's, window 0).
func (h *schbench) results(s *Sim) SchbenchResults {
	r := SchbenchResults{WakeupUs: percentiles(&h.wakeLat), RequestUs: percentiles(&h.reqLat),
		Requests: h.reqLat.n, Workers: len(h.workers), MessageThreads: len(h.msgs)}
	if len(s.m.win) > 0 {
		w := &s.m.win[0]
		if span := min(s.now, w.to) - w.from; span > 0 {
			r.RPS = float64(h.reqLat.n) / (float64(span) / 1e9)
		}
	}
	return r
}
