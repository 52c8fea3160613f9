//go:build linux

package confinetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// Swapper flips a directory and a symlink between two names.
type Swapper struct {
	swaps atomic.Int64
	stop  atomic.Bool
	wg    sync.WaitGroup
	err   error
}

// StartSwapper makes dir (an existing directory) and link (created here, a
// symlink to target) trade places in a loop until Stop, for at least min
// exchanges in all. Stop returns the number of exchanges made.
func StartSwapper(t testing.TB, dir, link, target string, min int64) *Swapper {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	s := &Swapper{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for !s.stop.Load() || s.swaps.Load() < min {
			if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
				s.err = err
				return
			}
			s.swaps.Add(1)
		}
		if s.swaps.Load()%2 == 1 { // leave dir a directory again
			s.err = unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
		}
	}()
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Swaps is how many exchanges were made so far.
func (s *Swapper) Swaps() int64 { return s.swaps.Load() }

// Stop ends the loop (once at least min exchanges were made) and returns
// how many there were; an exchange that failed fails t.
func (s *Swapper) Stop(t testing.TB) int64 {
	t.Helper()
	s.stop.Store(true)
	s.wg.Wait()
	if s.err != nil {
		t.Fatalf("swapper: %v", s.err)
	}
	return s.swaps.Load()
}

// TempDir is a new directory on a tmpfs (/dev/shm) when there is one, so
// the loops that sync what they write (every write_file, every undo) run
// at memory speed; t.TempDir() otherwise. It is removed at cleanup.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "confinetest-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// DirState is what a directory holds, one "name=content" line per entry:
// what an attack must leave unchanged.
func DirState(t testing.TB, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s=%q\n", e.Name(), data)
	}
	return b.String()
}
