package preview

import (
	"testing"

	"schedplay/view"
)

// BenchmarkCompute is a share's preview computation for a scenario that
// completes: two arms of a small request server.
func BenchmarkCompute(b *testing.B) {
	sc := scenario(b)
	for b.Loop() {
		if _, err := Compute(sc, DefaultEventBudget); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCard draws and encodes a card of 32 vCPUs per arm.
func BenchmarkCard(b *testing.B) {
	p := tiled("running", "spinning", 32)
	var size int
	for b.Loop() {
		data, err := p.PNG()
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size), "png-bytes")
}

// BenchmarkSVG renders the chart.
func BenchmarkSVG(b *testing.B) {
	p := tiled("running", "spinning", 32)
	for b.Loop() {
		p.SVG(view.Dark())
	}
}
