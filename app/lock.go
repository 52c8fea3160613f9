//go:build unix || windows

package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LockFile is the data dir's one-instance lock file.
const LockFile = "agenthub.lock"

// errLockBusy is tryLock's answer while another process holds the lock.
var errLockBusy = errors.New("lock held by another process")

// lockDataDir takes the exclusive lock on DATA_DIR/agenthub.lock (flock on
// Unix, LockFileEx on Windows: tryLock), retrying until timeout, and
// returns its release. It is the one-instance rule (it used to be bbolt's
// own file lock, which a compaction's swap cannot keep). The system drops
// the lock when the process dies, so a crash never leaves the data dir
// locked.
func lockDataDir(dir string, timeout time.Duration) (func() error, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data dir %s: lock file: %w", dir, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		err := tryLock(f)
		if err == nil {
			return f.Close, nil // closing the file releases the lock
		}
		if !errors.Is(err, errLockBusy) {
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
