//go:build !windows

package tool

// defaultShell is bash's shell off Windows.
func defaultShell() string { return DefaultShell }
