//go:build unix

package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// LockFile is the data dir's one-instance lock file.
const LockFile = "agenthub.lock"

// lockDataDir takes the exclusive flock on DATA_DIR/agenthub.lock, retrying
// until timeout, and returns its release. It is the one-instance rule (it
// used to be bbolt's own file lock, which a compaction's swap cannot keep).
// The kernel drops the lock when the process dies, so a crash never leaves
// the data dir locked.
func lockDataDir(dir string, timeout time.Duration) (func() error, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data dir %s: lock file: %w", dir, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f.Close, nil // closing the file releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("data dir %s: lock: %w", dir, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, &DataDirInUseError{Dir: dir, Timeout: timeout}
		}
		time.Sleep(20 * time.Millisecond)
	}
}
