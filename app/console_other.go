//go:build !windows

package app

// AttachParentConsole does nothing off Windows: a program started from a
// terminal has it as its standard files already.
func AttachParentConsole() {}
