package confinetest

import (
	"os"
	"runtime"
	"testing"
)

// TrySymlink makes link point at target and reports whether it could.
// Only where this system cannot make symbolic links does it report false
// (logging why): Windows without the privilege (Developer Mode off), or
// wine 8.0, whose CreateSymbolicLinkW reports success and makes nothing.
// Anywhere else a failure fails t.
func TrySymlink(t testing.TB, target, link string) bool {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil {
		_, err = os.Lstat(link)
	}
	if err == nil {
		return true
	}
	if runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	t.Logf("cannot make symbolic links on this system (wine 8.0's CreateSymbolicLinkW is a stub; Windows needs the privilege): %v", err)
	return false
}

// Symlink makes link point at target, or skips t where this system cannot
// make symbolic links (TrySymlink).
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	if !TrySymlink(t, target, link) {
		t.Skip("this test needs symbolic links")
	}
}
