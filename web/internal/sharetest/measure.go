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
	procs, err := groupProcs(pgid)
	if err != nil {
		return 0, err
	}
	var ticks int64
	for _, p := range procs {
		ticks += p.ticks
	}
	return time.Duration(ticks) * clockTick, nil
}

// proc is one process of a group, as /proc/PID/stat shows it.
type proc struct {
	pid   int
	ticks int64 // utime+stime, in clock ticks
}

// groupProcs lists the live processes of process group pgid.
func groupProcs(pgid int) ([]proc, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	var procs []proc
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
		pid, err3 := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("%s: bad pid, utime or stime", p)
		}
		procs = append(procs, proc{pid: pid, ticks: u + s})
	}
	if len(procs) == 0 {
		return nil, fmt.Errorf("no process in group %d", pgid)
	}
	return procs, nil
}

// Thread names one thread of a process.
type Thread struct {
	PID, TID int
	Name     string // /proc/PID/task/TID/comm
}

// ThreadCPU returns the CPU time of every thread of every live process in process
// group pgid (Linux only). It reads the first field of
// /proc/PID/task/TID/schedstat: the scheduler's count of nanoseconds the thread
// ran, fine enough for single requests, where utime and stime count 10 ms ticks.
// Per thread, because one thread of workerd runs the Cloudflare Worker's isolate
// (and wrangler's own routing scripts), while V8's compiler and GC helpers run on
// others, which a request's CPU limit does not count.
func ThreadCPU(pgid int) (map[Thread]time.Duration, error) {
	procs, err := groupProcs(pgid)
	if err != nil {
		return nil, err
	}
	cpu := map[Thread]time.Duration{}
	for _, p := range procs {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*", p.pid))
		if err != nil {
			return nil, err
		}
		for _, task := range tasks {
			stat, err1 := os.ReadFile(filepath.Join(task, "schedstat"))
			comm, err2 := os.ReadFile(filepath.Join(task, "comm"))
			if err1 != nil || err2 != nil {
				continue // the thread exited meanwhile
			}
			f := strings.Fields(string(stat))
			tid, err1 := strconv.Atoi(filepath.Base(task))
			if len(f) == 0 || err1 != nil {
				return nil, fmt.Errorf("%s: bad schedstat %q", task, stat)
			}
			ns, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: bad schedstat %q", task, stat)
			}
			cpu[Thread{PID: p.pid, TID: tid, Name: strings.TrimSpace(string(comm))}] = time.Duration(ns)
		}
	}
	return cpu, nil
}

// Busiest returns the thread whose CPU time grew most from before to after, and
// by how much.
func Busiest(before, after map[Thread]time.Duration) (Thread, time.Duration) {
	var top Thread
	var most time.Duration = -1
	for th, t := range after {
		if d := t - before[th]; d > most {
			top, most = th, d
		}
	}
	return top, max(most, 0)
}
