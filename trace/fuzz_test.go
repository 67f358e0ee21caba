package trace

import (
	"bytes"
	"fmt"
	"testing"
)

// FuzzWrite writes traces of small scenarios with arbitrary options and checks
// that every one is a valid trace covering its window (or that the options are
// refused with an error).
func FuzzWrite(f *testing.F) {
	f.Add(uint64(1), uint8(1), uint8(2), false, uint16(0), uint16(3000), false, uint16(0), uint16(0))
	f.Add(uint64(7), uint8(3), uint8(2), true, uint16(250), uint16(700), true, uint16(100), uint16(0))
	f.Add(uint64(3), uint8(8), uint8(4), true, uint16(0), uint16(0), false, uint16(50), uint16(5000))
	f.Fuzz(func(t *testing.T, seed uint64, clients, vcpus uint8, pull bool, startUs, lenUs uint16, noDec bool, bucketUs, maxBytes uint16) {
		sc := loadScenario(t, "testdata/two-cpu.json",
			fmt.Sprintf("seed=%d", seed),
			fmt.Sprintf("workload.clients=%d", 1+clients%8),
			fmt.Sprintf("machine.vcpus=%d", 2+vcpus%3),
			fmt.Sprintf("sched.wake_pull=%v", pull),
			"duration_ms=3")
		opts := Options{
			StartNs:            int64(startUs) * 1000,
			UntilNs:            (int64(startUs) + int64(lenUs)) * 1000,
			NoDecisions:        noDec,
			CompletionBucketNs: int64(bucketUs) * 1000,
			MaxBytes:           int64(maxBytes),
		}
		if lenUs == 0 {
			opts.UntilNs = 0
		}
		var buf bytes.Buffer
		st, err := Write(&buf, newSim(t, sc), opts)
		if err != nil {
			if buf.Len() != 0 {
				t.Fatalf("error %v after writing %d bytes", err, buf.Len())
			}
			return // options refused (empty window)
		}
		p, err := parseTrace(buf.Bytes())
		if err != nil {
			t.Fatalf("opts %+v: %v", opts, err)
		}
		if st.EndNs > st.StartNs {
			checkCoverage(t, p, sc.Machine.VCPUs, st.StartNs, st.EndNs)
		} else if !st.Truncated || len(p.Slices) > 0 {
			// Only MaxBytes reached before time moved can make an empty window.
			t.Fatalf("empty window [%d, %d) with %d tracks of slices, truncated %v", st.StartNs, st.EndNs, len(p.Slices), st.Truncated)
		}
		if noDec {
			for _, l := range p.Instants {
				for _, e := range l {
					if e.Cat == "decision" {
						t.Fatal("decision written with NoDecisions")
					}
				}
			}
		}
	})
}
