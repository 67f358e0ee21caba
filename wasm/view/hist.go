package view

import "math"

// Histogram counts latencies in logarithmic bins, BinsPerDecade per factor of ten
// from HistMinUs up, so microsecond wakes and 100 ms stalls share one readable axis.
// Bins are fine (about 12% wide) so quantiles are usable; charts group them by
// ChartGroup.
type Histogram struct {
	Counts [HistBins]int64
	N      int64
}

// Histogram bins: 1 µs to 10 s, twenty per decade; values outside go to the end
// bins. Charts show groups of ChartGroup bins (five per decade).
const (
	HistMinUs     = 1.0
	BinsPerDecade = 20
	HistBins      = 7 * BinsPerDecade
	ChartGroup    = 4
)

// NewHistogram returns an empty histogram.
func NewHistogram() Histogram { return Histogram{} }

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

// Add counts one latency in microseconds.
func (h *Histogram) Add(us float64) {
	h.Counts[HistBin(us)]++
	h.N++
}

// Range returns the first and last non-empty bins over several histograms, or
// ok=false when all are empty.
func Range(hs ...*Histogram) (lo, hi int, ok bool) {
	lo, hi = HistBins, -1
	for _, h := range hs {
		for i, c := range h.Counts {
			if c > 0 {
				lo, hi = min(lo, i), max(hi, i)
			}
		}
	}
	return lo, hi, hi >= 0
}

// Quantile returns the q-quantile in microseconds (the geometric middle of the bin
// holding it), or NaN when empty.
func (h *Histogram) Quantile(q float64) float64 {
	if h.N == 0 {
		return math.NaN()
	}
	rank := int64(math.Ceil(q * float64(h.N)))
	rank = min(max(rank, 1), h.N)
	var seen int64
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			return math.Sqrt(HistEdge(i) * HistEdge(i+1))
		}
	}
	return HistEdge(HistBins)
}

// Grouped returns the counts summed over groups of ChartGroup bins.
func (h *Histogram) Grouped() [HistBins / ChartGroup]int64 {
	var g [HistBins / ChartGroup]int64
	for i, c := range h.Counts {
		g[i/ChartGroup] += c
	}
	return g
}
