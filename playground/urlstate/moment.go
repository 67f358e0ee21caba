package urlstate

// Moments: the t= key, a simulated time the page runs ahead to on opening.

import (
	"fmt"
	"strconv"
	"strings"

	"schedplay/engine"
)

// MaxMomentNs is the latest moment t= may name: the engine's longest horizon.
const MaxMomentNs = engine.MaxDurationMs * 1_000_000

// momentUnits are the units t= accepts, in nanoseconds.
func momentUnits() map[string]int64 {
	return map[string]int64{"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
}

// ParseMoment reads a simulated moment: a decimal number with a unit, such as
// "12s", "250ms", "1.5s" or "800us", at most MaxMomentNs, to the nanosecond. It is
// read exactly (no floating point), so a moment written by FormatMoment reads back
// as the same nanosecond.
func ParseMoment(tok string) (int64, error) {
	bad := fmt.Errorf("%s is not a moment like 12s, 250ms or 800us", quote(tok))
	i := strings.IndexFunc(tok, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, bad
	}
	mult, ok := momentUnits()[tok[i:]]
	whole, frac, _ := strings.Cut(tok[:i], ".")
	if !ok || strings.Contains(frac, ".") || whole == "" && frac == "" || len(whole) > 15 {
		return 0, bad
	}
	w, _ := strconv.ParseInt("0"+whole, 10, 64)
	frac = strings.TrimRight(frac, "0")
	if len(frac) > 9 {
		return 0, fmt.Errorf("%s is finer than a nanosecond", quote(tok))
	}
	f, _ := strconv.ParseInt("0"+frac, 10, 64)
	pow := int64(1)
	for range frac {
		pow *= 10
	}
	if w > MaxMomentNs/mult || w*mult+f*mult/pow > MaxMomentNs {
		return 0, fmt.Errorf("%s is past the longest run, %d s", quote(tok), MaxMomentNs/1_000_000_000)
	}
	if f*mult%pow != 0 {
		return 0, fmt.Errorf("%s is finer than a nanosecond", quote(tok))
	}
	return w*mult + f*mult/pow, nil
}

// FormatMoment writes a moment in the largest unit that keeps it whole.
func FormatMoment(ns int64) string {
	for _, u := range []struct {
		name string
		ns   int64
	}{{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}} {
		if ns%u.ns == 0 {
			return strconv.FormatInt(ns/u.ns, 10) + u.name
		}
	}
	return strconv.FormatInt(ns, 10) + "ns"
}
