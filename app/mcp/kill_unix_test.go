//go:build unix

package mcp_test

import (
	"errors"
	"syscall"
	"testing"
)

// killTree kills the process group pgid (SIGKILL), as a crash would.
func killTree(t *testing.T, pgid int) {
	t.Helper()
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// processGone reports whether pid no longer exists (a zombie some other
// process will reap counts as existing: the test's own children are
// reaped by Wait).
func processGone(t *testing.T, pid int) bool {
	t.Helper()
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
