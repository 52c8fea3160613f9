package main

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentPages counts the file's pages that sit in the page cache
// (mincore on a mapping that is never touched, so it faults nothing in).
func residentPages(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	pages := (len(m) + os.Getpagesize() - 1) / os.Getpagesize()
	vec := make([]byte, pages)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// A file just written (dirty, as a binary the linker has just produced)
// leaves the page cache: DONTNEED alone would keep its dirty pages.
func TestDropCachedDropsAJustWrittenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(path, make([]byte, 8<<20), 0o755); err != nil {
		t.Fatal(err)
	}
	if n := residentPages(t, path); n == 0 {
		t.Skip("this file system keeps no page cache for a file just written")
	}
	if err := dropCached(path); err != nil {
		t.Fatal(err)
	}
	if n := residentPages(t, path); n != 0 {
		t.Fatalf("%d pages of a just-written file still cached after dropCached", n)
	}
}

func TestDropCachedReportsAMissingFile(t *testing.T) {
	if err := dropCached(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Fatal("dropCached of a missing file returned no error")
	}
}
