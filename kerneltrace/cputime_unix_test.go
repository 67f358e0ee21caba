//go:build unix

package kerneltrace

import "syscall"

// cpuSeconds is the process's user and system CPU time: on a shared
// machine a benchmark's wall time says more of the load than of the code.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
