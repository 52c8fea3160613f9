package sandbox_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func uintptrOf(b *byte) uintptr { return uintptr(unsafe.Pointer(b)) }

// assertNoProcessWithArg fails if a live process has arg in its command
// line (and kills it).
func assertNoProcessWithArg(t *testing.T, arg string) {
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

// assertNoZombieChildren fails if a child of the test process is a zombie.
func assertNoZombieChildren(t *testing.T) {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+2:]))
		if len(f) > 1 && f[1] == self && f[0] == "Z" {
			t.Errorf("zombie child %s", e.Name())
		}
	}
}
