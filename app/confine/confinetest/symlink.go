package confinetest

import (
	"os"
	"runtime"
	"testing"
)

// Symlink makes link point at target or fails t. Where this system cannot
// make symbolic links it skips t, saying why: Windows without the
// privilege (Developer Mode off), or wine 8.0, whose CreateSymbolicLinkW
// reports success and makes nothing.
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	err := os.Symlink(target, link)
	if err != nil && runtime.GOOS == "windows" {
		t.Skipf("cannot make symbolic links on this system: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); err != nil && runtime.GOOS == "windows" {
		t.Skipf("a symbolic link reported made does not exist (wine 8.0's CreateSymbolicLinkW is a stub): %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
}
