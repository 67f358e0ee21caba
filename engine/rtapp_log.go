package engine

import (
	"fmt"
	"strconv"
)

// rt-app's log as the threads write it (thread_body and log_timing in
// src/rt-app.c and src/rt-app_utils.c): each thread opens its file with
// fopen before the run, prints a policy line and the column header, then
// one row per loop pass with fprintf. The stream is fully buffered, with
// glibc's buffer of the file's block size (st_blksize, 4096 bytes on the
// file systems rt-app's logdir is on here), so every 4096 bytes written the
// buffer goes out in one write(2), in the thread, between one pass and the
// next. What such a write costs is rtappLogWriteNs. With log_size a number
// of MB (rows kept in memory, written at the end) or "disable", a pass
// writes nothing.

// rtappLogBufferBytes is glibc's stdio buffer for rt-app's log files.
const rtappLogBufferBytes = 4096

// rtappLogWriteNs is the CPU time of the write(2) of a full 4 KB buffer to a
// log file, measured on this project's machines (KVM guests, ext4): 4 KB
// appended to a file once every 30 ms after 2 ms of busy work, as rt-app's
// passes do, take 29 µs (p10), 33 µs (p50), 37 µs (p90), as timed around
// os.write (docs/validation.md). In a tight loop, with the caches warm, the
// same write takes 3 µs: rt-app's are far apart.
const rtappLogWriteNs = 33_000

// rtappLogStart is what a thread prints before its first pass: its policy
// line and the column header (thread_body).
func rtappLogStart(policy string, prio int) int64 {
	return int64(len(fmt.Sprintf("# Policy : %s priority : %d\n", policy, prio)) + len(RTAppLogHeader()))
}

// RTAppLogHeader is the log's column header line (thread_body).
func RTAppLogHeader() string {
	return fmt.Sprintf("%s %8s %8s %8s %15s %15s %15s %10s %10s %10s %10s\n",
		"#idx", "perf", "run", "period", "start", "end", "rel_st", "slack", "c_duration", "c_period", "wu_lat")
}

// rtappLogRowBytes is the length of log_timing's row for r: "%4d %8lu %8lu
// %8lu %15llu %15llu %15llu %10ld %10lu %10lu %10lu\n", a field wider than
// its width taking what it needs. rt-app's start and end are
// CLOCK_MONOTONIC µs (the machine's uptime), which fit their 15 columns as
// the simulated times do.
func rtappLogRowBytes(r RTAppLogRow) int64 {
	n := int64(0)
	for i, f := range []struct {
		v     int64
		width int
	}{{int64(r.Idx), 4}, {r.Perf, 8}, {r.Run, 8}, {r.Period, 8}, {r.Start, 15}, {r.End, 15}, {r.RelSt, 15},
		{r.Slack, 10}, {r.CDuration, 10}, {r.CPeriod, 10}, {r.WuLat, 10}} {
		if i > 0 {
			n++ // the space before it
		}
		n += int64(max(f.width, len(strconv.FormatInt(f.v, 10))))
	}
	return n + 1 // "\n"
}

// logRow adds r to th's log stream; a row that fills the buffer sets
// th.logFull: the buffer is written before the next pass.
func (w *rtappWorkload) logRow(th *rtThread, r RTAppLogRow) {
	if !w.logsToFile {
		return
	}
	before := th.logBytes
	th.logBytes += rtappLogRowBytes(r)
	if th.logBytes/rtappLogBufferBytes > before/rtappLogBufferBytes {
		th.logFull = true
	}
}
