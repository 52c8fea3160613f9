package sandbox_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func uintptrOf(b *byte) uintptr { return uintptr(unsafe.Pointer(b)) }

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
