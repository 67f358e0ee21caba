package rtapp

import "testing"

// isFloat is the JSON number grammar with a fraction or an exponent.
func TestIsFloat(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"1.5", true}, {"-0.25", true}, {"1e3", true}, {"2E-7", true}, {"3.0e+2", true},
		{"10", false}, {"-7", false}, {"", false}, {"-", false}, {"1.", false}, {".5", false},
		{"1e", false}, {"1e+", false}, {"1.5x", false}, {"1..5", false}, {"--1.5", false},
	} {
		if got := isFloat(tc.s); got != tc.want {
			t.Errorf("isFloat(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
