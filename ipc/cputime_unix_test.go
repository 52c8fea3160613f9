//go:build unix

package ipc

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time so far. Benchmarks report
// CPU per event as well as events/s: on a shared machine the throughput
// moves with other load, the CPU cost much less.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
