package confinetest

import "testing"

// MakeFIFO skips t: Windows has no FIFOs in the file system (its named
// pipes live under \\.\pipe\, which no workspace path reaches).
func MakeFIFO(t testing.TB, path string) {
	t.Helper()
	t.Skip("no FIFOs in the file system on Windows")
}

// NoFIFOReader is never reached on Windows (MakeFIFO skips first); it runs f.
func NoFIFOReader(t testing.TB, path string, f func()) { f() }
