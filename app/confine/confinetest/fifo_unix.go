//go:build unix

package confinetest

import (
	"runtime"
	"syscall"
	"testing"
)

// MakeFIFO makes a FIFO at path (mode 0600) or fails t; on Windows, which
// has no FIFOs in the file system, it skips t.
func MakeFIFO(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// NoFIFOReader runs f, which must return without opening the FIFO at path
// for reading. It synchronises on f's return, never on time: while f runs,
// it probes the FIFO with a non-blocking open for writing, which succeeds
// only once a reader waits in open(2) — a hang until some writer comes.
// The probe then lets that reader go (it reads end of file) and fails t.
func NoFIFOReader(t testing.TB, path string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		if fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
			<-done
			t.Fatalf("%s was opened for reading and waited for a writer", path)
		}
		runtime.Gosched()
	}
}
