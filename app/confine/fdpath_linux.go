package confine

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// procFDs reports whether /proc/self/fd can be read at all.
var procFDs = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})

// fdPath is the path the kernel gives f's descriptor
// (/proc/self/fd/N); errNoProc when /proc is not mounted.
func fdPath(f *os.File) (string, error) {
	if !procFDs() {
		return "", errNoProc
	}
	ctl, err := f.SyscallConn()
	if err != nil {
		return "", err
	}
	var p string
	var rerr error
	if err := ctl.Control(func(fd uintptr) {
		p, rerr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	}); err != nil {
		return "", err
	}
	if rerr != nil {
		return "", rerr
	}
	// A file removed meanwhile keeps its last path, marked.
	return strings.TrimSuffix(p, " (deleted)"), nil
}
