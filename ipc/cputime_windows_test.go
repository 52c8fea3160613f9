package ipc

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time so far (GetProcessTimes).
func cpuTime() time.Duration {
	var c, e, k, u syscall.Filetime
	if err := syscall.GetProcessTimes(syscall.Handle(^uintptr(0)), &c, &e, &k, &u); err != nil {
		return 0
	}
	return ticks(k) + ticks(u)
}

// ticks turns a FILETIME duration (100 ns units) into a Duration.
func ticks(f syscall.Filetime) time.Duration {
	return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
}
