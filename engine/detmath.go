package engine

import "math"

// Deterministic elementary functions.
//
// The standard library's math.Exp and math.Log use assembly on amd64 and pure Go
// on js/wasm; the two can differ in the last bit. The engine promises byte-identical
// results natively and in wasm, so every transcendental it needs goes through these
// functions, which use only IEEE-754 +, -, *, / (correctly rounded everywhere) and
// explicit float64 conversions that forbid fused multiply-add.

const (
	ln2Hi = 6.93147180369123816490e-01 // high bits of ln 2
	ln2Lo = 1.90821492927058770002e-10 // ln 2 - ln2Hi
	log2e = 1.44269504088896338700e+00
)

// detExp returns e**x, deterministic across platforms, relative error below 1e-15
// for |x| < 700. Values below -745 return 0, above 709 return +Inf.
func detExp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 709.78:
		return math.Inf(1)
	case x < -745.1:
		return 0
	}
	// x = k*ln2 + r with |r| <= ln2/2.
	k := math.Floor(float64(x*log2e) + 0.5)
	r := float64(x-float64(k*ln2Hi)) - float64(k*ln2Lo)
	// Taylor series of e**r to degree 13: |r| <= 0.35 gives error < 1e-17. Horner's
	// rule written out: a loop over a coefficient array costs a third more in wasm.
	p := 1.0 / 6227020800.0
	p = float64(p*r) + 1.0/479001600
	p = float64(p*r) + 1.0/39916800
	p = float64(p*r) + 1.0/3628800
	p = float64(p*r) + 1.0/362880
	p = float64(p*r) + 1.0/40320
	p = float64(p*r) + 1.0/5040
	p = float64(p*r) + 1.0/720
	p = float64(p*r) + 1.0/120
	p = float64(p*r) + 1.0/24
	p = float64(p*r) + 1.0/6
	p = float64(p*r) + 0.5
	p = float64(p*r) + 1
	p = float64(p*r) + 1
	// p * 2**k. p is in [0.70, 1.42], so for k in [-1021, 1023] the product is a
	// normal number and multiplying by the power of two is exact, as math.Ldexp
	// is; Ldexp itself (pure Go everywhere) costs more than the series in wasm.
	if ki := int64(k); ki >= -1021 && ki <= 1023 {
		return p * math.Float64frombits(uint64(ki+1023)<<52)
	}
	return math.Ldexp(p, int(k))
}

// detLog returns the natural logarithm of x (x > 0), deterministic across platforms.
func detLog(x float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	f, e := math.Frexp(x) // x = f * 2**e, f in [0.5, 1)
	if f < math.Sqrt2/2 {
		f *= 2
		e--
	}
	// log(f) = 2*atanh(s), s = (f-1)/(f+1), |s| <= 0.1716.
	s := float64(f-1) / float64(f+1)
	s2 := float64(s * s)
	sum := 0.0
	for n := 41; n >= 1; n -= 2 {
		sum = float64(sum*s2) + 1/float64(n)
	}
	logf := float64(2 * float64(s*sum))
	return float64(float64(e)*ln2Hi) + float64(logf+float64(float64(e)*ln2Lo))
}
