package mcp_test

import (
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// killTree terminates the server's first process (what taskkill /F does);
// the rest of its job ends when the manager closes the job.
func killTree(t *testing.T, pid int) {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
}

// processGone reports whether pid has ended (or no longer exists).
func processGone(t *testing.T, pid int) bool {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true // no such process
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}
