package tool

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// procStat is what escapees need of /proc/<pid>/stat.
type procStat struct {
	state byte   // R, S, D, Z, ...
	ppid  int    // parent pid
	pgrp  int    // process group
	start uint64 // start time, clock ticks since boot
}

// readProcStat parses /proc/<pid>/stat; ok is false if the process is gone.
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name (field 2) is in parentheses and may hold anything;
	// the fields after the last ')' are plain numbers.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+2:])
	// f[0] is field 3 (state); field n is f[n-3].
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var st procStat
	st.state = f[0][0]
	st.ppid, _ = strconv.Atoi(string(f[1]))
	st.pgrp, _ = strconv.Atoi(string(f[2]))
	st.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	return st, true
}

// scanMarked returns the live processes (pid → start time) that started at
// or after since and carry needle ("NAME=VALUE\x00") in their environment.
// Processes of other users and zombies (whose environment is gone) are not
// seen.
func scanMarked(needle []byte, since uint64) map[int]uint64 {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	out := map[int]uint64{}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		st, ok := readProcStat(pid)
		if !ok || st.start < since || st.state == 'Z' {
			continue
		}
		env, err := os.ReadFile("/proc/" + name + "/environ")
		if err != nil {
			continue
		}
		if bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...)) {
			out[pid] = st.start
		}
	}
	return out
}

// MarkedProcesses returns the live processes of this user whose
// environment holds name=value (a marker such as MarkerEnv's), for code
// that must find processes which left their process group.
func MarkedProcesses(name, value string) []int {
	found := scanMarked([]byte(name+"="+value+"\x00"), 0)
	out := make([]int, 0, len(found))
	for pid := range found {
		out = append(out, pid)
	}
	return out
}

// startTicks returns pid's start time, or 0 if it is gone.
func startTicks(pid int) uint64 {
	st, _ := readProcStat(pid)
	return st.start
}

// escapeeState reports whether the process pid (started at start) is still
// around: gone (exited and reaped, or the pid now names another process),
// a zombie, or alive; and whether it is our child.
func escapeeState(pid int, start uint64) (alive, zombie, ours bool) {
	st, ok := readProcStat(pid)
	if !ok || st.start != start {
		return false, false, false
	}
	ours = st.ppid == os.Getpid()
	if st.state == 'Z' {
		return false, true, ours
	}
	return true, false, ours
}

// reapPid collects the exit status of our child pid if it has exited; it
// waits on that pid only, never on "any child" (which would steal statuses
// from exec.Cmd.Wait of unrelated children).
func reapPid(pid int) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if err != syscall.EINTR {
			return
		}
	}
}
