// Package apptest is what the tests that run the agenthub binary share
// (faults/, e2e/, app/desktoptest) and the benchmarks (bench/): the
// environment to start it in, fresh folders to start it on, a buffer for
// its output and its memory figures from /proc; and the file and symlink
// fixture writers of the packages' own tests. Only tests and the
// benchmarks import it.
package apptest

import (
	"agenthub/app/confine/confinetest"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env returns this process's environment without the developer's provider
// settings (ANTHROPIC_*, OPENAI_*) and Agent Hub's own (AGENTHUB_*), so
// the binary sees only the fake provider and the settings a test adds.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "ANTHROPIC_") || strings.HasPrefix(kv, "OPENAI_") || strings.HasPrefix(kv, "AGENTHUB_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// Buffer collects a process's output: Write (from exec's copiers) and
// String (from the test) may run concurrently.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Dirs makes an empty data dir and workspace (0700) in a fresh temporary
// folder of t's for one binary; it fails t if it cannot.
func Dirs(t testing.TB) (dataDir, workspace string) {
	t.Helper()
	tmp := t.TempDir()
	dataDir, workspace = filepath.Join(tmp, "data"), filepath.Join(tmp, "ws")
	for _, d := range []string{dataDir, workspace} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return dataDir, workspace
}

// WriteFile writes text to path (0644), making its parent folders (0755);
// it fails t if it cannot.
func WriteFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Symlink makes link a symbolic link to target; it fails t if it cannot,
// or skips t where this system cannot make symbolic links at all (Windows
// without the privilege, wine; confinetest.TrySymlink).
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	confinetest.Symlink(t, target, link)
}

// ProcKB reads the "<field> <n> kB" line of /proc/<pid>/<file> (status,
// smaps_rollup) and returns n kB in bytes; 0 when the file or the line is
// missing.
func ProcKB(pid int, file, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Recv returns the next value from ch, or fails t when none arrives
// within the given time.
func Recv[T any](t testing.TB, ch <-chan T, within time.Duration) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(within):
		var zero T
		t.Fatalf("nothing arrived within %s (%T)", within, zero)
		return zero
	}
}
