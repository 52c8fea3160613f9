package sandboxtest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// AssertNoProcessWithArg fails t if a live process has arg in its command
// line, and kills each one it finds.
func AssertNoProcessWithArg(t testing.TB, arg string) {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(cmdline), arg) {
			t.Errorf("process %d (%q) outlived the command", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
