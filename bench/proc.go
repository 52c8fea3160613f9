package main

import (
	"agenthub/app/apptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cpuTime is the CPU time (user + system, all threads) a process has used,
// from /proc/PID/task/*/schedstat (nanoseconds; the first field is time on
// the CPU). Threads that exited meanwhile are lost, which undercounts a
// little; /proc/PID/stat's 10 ms ticks would be too coarse for a 5k burst.
func cpuTime(pid int) time.Duration {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	var sum int64
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += n
		}
	}
	return time.Duration(sum)
}

// statCPU is utime+stime from /proc/PID/stat, including exited threads, in
// clock ticks converted at 100 Hz.
func statCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	s = s[strings.LastIndexByte(s, ')')+2:]
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k) * 10 * time.Millisecond
}

// cpuSample is a process's CPU time read both ways.
type cpuSample struct{ fine, coarse time.Duration }

func sampleCPU(pid int) cpuSample { return cpuSample{cpuTime(pid), statCPU(pid)} }

// since is the CPU used between s0 and s: the per-thread nanoseconds,
// unless threads exited meanwhile (then the ticks say more).
func (s cpuSample) since(s0 cpuSample) time.Duration {
	fine, coarse := s.fine-s0.fine, s.coarse-s0.coarse
	if coarse > fine+20*time.Millisecond {
		return coarse
	}
	return fine
}

// rss is the resident set size of a process in bytes.
func rss(pid int) int64 { return apptest.ProcKB(pid, "status", "VmRSS:") }
