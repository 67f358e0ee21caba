package scxstar

import (
	"testing"

	"schedplay/engine"
)

// BenchmarkPolicy measures what a policy costs per engine event: the Go
// scx_simple on the core against the same policy in Starlark, on hackbench
// (wake-heavy: a select_cpu, enqueue and dispatch for most events) and
// saturated-sync. Compare the ns/event metrics; their difference is the
// Starlark callbacks' cost. Run natively and under js/wasm:
//
//	go test -run XXX -bench Policy ./scxstar
//	PATH="$(go env GOROOT)/lib/wasm:$PATH" GOOS=js GOARCH=wasm go test -run XXX -bench Policy ./scxstar
func BenchmarkPolicy(b *testing.B) {
	src := policySource(b, "scx_simple")
	for _, ex := range []string{"hackbench", "saturated-sync"} {
		for _, lang := range []string{"go", "starlark"} {
			b.Run(ex+"/"+lang, func(b *testing.B) {
				sc := readExample(b, ex, "sched.policy=scx_simple", "duration_ms=100", "warmup_ms=0")
				var compile engine.ScxCompiler
				if lang == "starlark" {
					sc, compile = withPolicy(sc, src), CompilerNamed("scx_simple.star")
				}
				var events int64
				for b.Loop() {
					s, err := engine.NewSimScx(sc, compile)
					if err != nil {
						b.Fatal(err)
					}
					s.SetVisual(false)
					res := s.Run()
					if res.ScxExit.Ejected() {
						b.Fatalf("ejected: %s", res.ScxExit.Reason)
					}
					events += res.Events
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			})
		}
	}
}
