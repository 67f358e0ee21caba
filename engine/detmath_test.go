package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// seriesExpLdexp is detExp as first written: the same series as a loop over its
// coefficients, scaled by math.Ldexp. detExp must give its bits exactly, or every
// recorded result (calibration, golden runs) would move.
func seriesExpLdexp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 709.78:
		return math.Inf(1)
	case x < -745.1:
		return 0
	}
	k := math.Floor(float64(x*log2e) + 0.5)
	r := float64(x-float64(k*ln2Hi)) - float64(k*ln2Lo)
	p := 1.0 / 6227020800.0
	for _, c := range [...]float64{1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880,
		1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1, 1} {
		p = float64(p*r) + c
	}
	return math.Ldexp(p, int(k))
}

func TestDetExpBitsAndAccuracy(t *testing.T) {
	xs := []float64{0, -0.0, 1, -1, 0.5 * math.Ln2, -0.5 * math.Ln2, 20, -20, 709.78, 709.7, -708.39, -709, -744, -745.1,
		-745.0999, 1e-300, -1e-300, math.Inf(-1)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		xs = append(xs, rng.Float64()*40-20)      // the engine's decay range
		xs = append(xs, rng.Float64()*1455-745.1) // the whole finite range
	}
	for _, x := range xs {
		got, want := detExp(x), seriesExpLdexp(x)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("detExp(%v) = %v (%#x), the series with Ldexp gives %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if x > -700 && x < 700 {
			if ref := math.Exp(x); math.Abs(got-ref) > 1e-15*ref {
				t.Fatalf("detExp(%v) = %v, math.Exp %v: relative error %g", x, got, ref, math.Abs(got-ref)/ref)
			}
		}
	}
}
