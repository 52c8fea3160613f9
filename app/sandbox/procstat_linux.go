package sandbox

import (
	"bytes"
	"os"
	"strconv"
)

// procParent reads the parent of /proc/<name>; ok is false for non-pid
// entries and vanished processes.
func procParent(name string) (pid, ppid int, ok bool) {
	pid, err := strconv.Atoi(name)
	if err != nil {
		return 0, 0, false
	}
	b, err := os.ReadFile("/proc/" + name + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name (field 2) is in parentheses and may hold anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+2:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(string(f[1]))
	return pid, ppid, err == nil
}
