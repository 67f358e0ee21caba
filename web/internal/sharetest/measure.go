package sharetest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ReportLatency reports the median and 99th percentile of lat (milliseconds) as
// benchmark metrics.
func ReportLatency(b *testing.B, lat []time.Duration) {
	b.Helper()
	if len(lat) == 0 {
		return
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	at := func(q float64) float64 {
		return float64(s[min(len(s)-1, int(q*float64(len(s))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ, 100 on
// every Linux that matters).
const clockTick = 10 * time.Millisecond

// GroupCPU sums the user+system CPU time of every live process in process group
// pgid, from /proc (Linux only). The resolution is a clock tick, so measure over
// many requests.
func GroupCPU(pgid int) (time.Duration, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, err
	}
	var ticks int64
	found := false
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // the process exited meanwhile
		}
		// The command name (field 2) may hold spaces; fields after its ')' are fixed.
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		// f[0] is field 3 (state): pgrp is field 5, utime 14, stime 15.
		if len(f) < 13 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		u, err1 := strconv.ParseInt(f[11], 10, 64)
		s, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("%s: bad utime/stime", p)
		}
		ticks += u + s
		found = true
	}
	if !found {
		return 0, fmt.Errorf("no process in group %d", pgid)
	}
	return time.Duration(ticks) * clockTick, nil
}
