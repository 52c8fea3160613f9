package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
)

// Log file bounds: each launch writes DATA_DIR/logs/agenthub.log, the
// previous launches' logs are kept as agenthub.log.1 … .4, and one launch
// writes at most MaxLogBytes (then a last line says the rest went to stderr
// only).
const (
	LogDir      = "logs"
	LogName     = "agenthub.log"
	KeptLogs    = 4
	MaxLogBytes = 32 << 20
)

// LogSink is the process's log output: stderr always, and the launch's log
// file once Attach has opened it (after the data dir is locked, so a second
// instance never rotates the first one's log). It is safe for concurrent use.
type LogSink struct {
	mu      sync.Mutex
	stderr  io.Writer
	file    *os.File
	path    string
	written int64
}

// NewLogSink returns a sink writing to stderr until Attach.
func NewLogSink(stderr io.Writer) *LogSink { return &LogSink{stderr: stderr} }

// Write writes p to stderr and, within MaxLogBytes, to the log file.
func (s *LogSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil && s.written < MaxLogBytes {
		n, _ := s.file.Write(p)
		s.written += int64(n)
		if s.written >= MaxLogBytes {
			_, _ = fmt.Fprintf(s.file, "log file full at %d bytes: the rest of this launch's log went to stderr only\n", MaxLogBytes)
		}
	}
	return s.stderr.Write(p)
}

// Attach rotates dataDir's logs (agenthub.log → .1 → … → .KeptLogs) and
// starts writing the new agenthub.log; it returns its path.
func (s *LogSink) Attach(dataDir string) (string, error) {
	dir := filepath.Join(dataDir, LogDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("log file: %w", err)
	}
	base := filepath.Join(dir, LogName)
	// Windows renames no open file: the previous launch's file (a test's
	// second Attach) is closed first; meanwhile lines go to stderr only.
	s.mu.Lock()
	if s.file != nil {
		_ = s.file.Close()
		s.file = nil
	}
	s.mu.Unlock()
	_ = os.Remove(fmt.Sprintf("%s.%d", base, KeptLogs))
	for i := KeptLogs - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", base, i), fmt.Sprintf("%s.%d", base, i+1))
	}
	_ = os.Rename(base, base+".1")
	f, err := os.OpenFile(base, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return "", fmt.Errorf("log file: %w", err)
	}
	s.mu.Lock()
	s.file, s.path, s.written = f, base, 0
	s.mu.Unlock()
	return base, nil
}

// Path is the log file's path ("" before Attach).
func (s *LogSink) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}

// Close closes the log file (stderr stays).
func (s *LogSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}

// BuildCommit is the VCS revision the binary was built from ("" when the
// build has none), with "+dirty" for uncommitted changes.
func BuildCommit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}
