//go:build !unix && !windows

package app

import "time"

// LockFile is the data dir's one-instance lock file (Unix and Windows
// only; elsewhere bbolt's own file lock is the rule and compaction is
// skipped).
const LockFile = "agenthub.lock"

// lockDataDir is a no-op off Unix and Windows; release reports false
// compaction safety.
func lockDataDir(dir string, timeout time.Duration) (func() error, error) { return nil, nil }
