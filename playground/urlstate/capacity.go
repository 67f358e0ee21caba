package urlstate

import (
	"fmt"
	"strconv"
	"strings"

	"schedplay/engine"
)

// CapacityKey carries machine.capacity, each CPU's capacity, which is a list
// and so no knob (--set takes single values): a big.LITTLE machine's link
// must say which CPUs are slow. The value is the list in CPU order, comma
// separated, where "NxC" stands for N CPUs of capacity C in a row:
//
//	machine.capacity=4x1024,4x512    (four big CPUs, then four little)
//	machine.capacity=1024,512,1024   (one at a time)
//
// Parse checks the form only; whether each capacity is from 1 to 1024 and
// the list has one per CPU is the engine's rule (engine.NewTopoTable), met
// when the state meets a scenario, which names the entry at fault
// (machine.capacity.5).
const CapacityKey = "machine.capacity"

// Digits a count and a capacity may have: any count above engine.MaxVCPUs
// and any capacity above engine.SchedCapacityScale is wrong already, so
// these bound the numbers, not the engine's ranges.
const (
	maxCountDigits    = 4
	maxCapacityDigits = 5
)

// ParseCapacity reads machine.capacity's value.
func ParseCapacity(v string) ([]int, error) {
	if v == "" {
		return nil, fmt.Errorf("is empty: give each CPU's capacity, e.g. 4x1024,4x512")
	}
	var out []int
	for i, item := range strings.Split(v, ",") {
		count, capText, runs := strings.Cut(item, "x")
		n := 1
		if !runs {
			capText = count
		} else {
			c, ok := number(count, maxCountDigits)
			if !ok || c < 1 {
				return nil, fmt.Errorf("item %d %s: the count before x is not a whole number from 1 (4x1024 is four CPUs of 1024)", i+1, quote(item))
			}
			n = c
		}
		c, ok := number(capText, maxCapacityDigits)
		if !ok {
			return nil, fmt.Errorf("item %d %s is not a capacity: a whole number, or NxC for N CPUs of capacity C", i+1, quote(item))
		}
		if len(out)+n > engine.MaxVCPUs {
			return nil, fmt.Errorf("gives more than %d CPUs, the most a machine has", engine.MaxVCPUs)
		}
		for range n {
			out = append(out, c)
		}
	}
	return out, nil
}

// number reads plain decimal digits, at most max of them, without a leading
// zero (one spelling per value, so a round trip keeps the text).
func number(s string, max int) (int, bool) {
	if s == "" || len(s) > max || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// FormatCapacity writes a capacity list as ParseCapacity reads it, runs of
// one capacity as NxC: 64 CPUs in two speeds are a dozen bytes, not 320.
func FormatCapacity(caps []int) string {
	var b strings.Builder
	for i := 0; i < len(caps); {
		j := i
		for j < len(caps) && caps[j] == caps[i] {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j-i > 1 {
			b.WriteString(strconv.Itoa(j - i))
			b.WriteByte('x')
		}
		b.WriteString(strconv.Itoa(caps[i]))
		i = j
	}
	return b.String()
}
