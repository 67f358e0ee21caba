package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What a task was charged, read from the kernel while it runs: the CPU time
// the scheduler accounts to its threads (/proc/PID/task/TID/schedstat's
// first field, sum_exec_runtime), which is what CBS and cfs bandwidth budget.
// A task's own log undercounts it on a busy machine: this kernel has no
// CONFIG_IRQ_TIME_ACCOUNTING, so interrupts taken while the task runs are
// charged to it, and the work it gets done in its budget shrinks with the
// machine's interrupt load (TLB shootdowns and wakeups from other work).

// chargedShare runs cmd (already built) and returns the CPUs its process's
// threads were charged between fromS and toS seconds after it started,
// polling every 20 ms.
func chargedShare(t *testing.T, cmd *exec.Cmd, fromS, toS float64) float64 {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	from, to := time.Duration(fromS*float64(time.Second)), time.Duration(toS*float64(time.Second))
	var t1, t2 time.Duration
	var c1, c2 int64 = -1, -1
	for {
		el := time.Since(start)
		if el >= from && c1 < 0 {
			c1, t1 = charged(cmd.Process.Pid), time.Since(start)
		}
		if el >= to {
			c2, t2 = charged(cmd.Process.Pid), time.Since(start)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	if c1 < 0 || c2 <= c1 {
		t.Fatalf("no CPU time charged between %.1f s and %.1f s", fromS, toS)
	}
	return float64(c2-c1) / float64(t2-t1)
}

// charged is the CPU time, ns, charged so far to pid's threads.
func charged(pid int) int64 {
	files, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	var sum int64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that just exited
		}
		if fs := strings.Fields(string(data)); len(fs) > 0 {
			n, _ := strconv.ParseInt(fs[0], 10, 64)
			sum += n
		}
	}
	return sum
}
