package view

import (
	"math"

	"schedplay/engine"
)

// Histogram counts latencies in the latency chart's logarithmic bins,
// BinsPerDecade per factor of ten from HistMinUs up, so microsecond wakes and
// 100 ms stalls share one readable axis. The counts come from the engine's own
// latency histogram (LatencyHistogram), the one its quantiles are read from, so
// the chart and the p99 card describe the same requests.
type Histogram struct {
	Counts [HistBins]int64
	N      int64
}

// Histogram bins: 1 µs to 10 s, five per decade (each about 58% wide, fine enough
// to see two modes, coarse enough that a few thousand requests fill them);
// latencies outside go to the end bins.
const (
	HistMinUs     = 1.0
	BinsPerDecade = 5
	HistBins      = 7 * BinsPerDecade
)

// HistBin returns the bin of a latency in microseconds.
func HistBin(us float64) int {
	if !(us > HistMinUs) { // also catches NaN
		return 0
	}
	i := int(math.Floor(math.Log10(us/HistMinUs) * BinsPerDecade))
	return min(max(i, 0), HistBins-1)
}

// HistEdge is the lower edge of bin i in microseconds.
func HistEdge(i int) float64 { return HistMinUs * math.Pow(10, float64(i)/BinsPerDecade) }

// LatencyHistogram regroups the engine's latency buckets (Sim.LatencyHistogram,
// each about 3% wide) into the chart's bins. A bucket counts whole in the bin
// holding its midpoint, the value the engine's quantiles give a bucket: a bucket
// that straddles a bin edge goes to the side holding more of it, which moves a
// bin edge by at most half a bucket.
func LatencyHistogram(buckets []engine.LatencyBucket) Histogram {
	var h Histogram
	for _, b := range buckets {
		h.Counts[HistBin((b.LowUs+b.HighUs)/2)] += b.Count
		h.N += b.Count
	}
	return h
}
