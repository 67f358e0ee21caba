package preview

import (
	"bytes"
	"compress/gzip"
	"os"
	"testing"

	"schedplay/engine"
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

// BenchmarkComputeStates measures what keeping a share's saved states adds to
// its preview: the default preset's two arms (32 vCPUs, 64 clients) within the
// Cloudflare Worker's budget (2M events, web/cloudflare), Compute alone and
// with the states, and the states' size.
//
//	go test ./preview -run '^$' -bench ComputeStates
func BenchmarkComputeStates(b *testing.B) {
	data, err := os.ReadFile("../examples/tpcb-32vcpu.json")
	if err != nil {
		b.Fatal(err)
	}
	sc, err := engine.DecodeScenario(data)
	if err != nil {
		b.Fatal(err)
	}
	const budget = 2_000_000
	b.Run("preview", func(b *testing.B) {
		for b.Loop() {
			if _, err := Compute(sc, budget); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("with-states", func(b *testing.B) {
		var pack []byte
		for b.Loop() {
			if _, pack, err = ComputeStates(sc, budget); err != nil {
				b.Fatal(err)
			}
		}
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(pack)
		zw.Close()
		b.ReportMetric(float64(len(pack)), "states-bytes")
		b.ReportMetric(float64(z.Len()), "states-gzip-bytes")
	})
}
