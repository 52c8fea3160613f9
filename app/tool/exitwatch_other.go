//go:build unix && !linux

package tool

// watchExit does nothing off Linux: the reaper's polling notices the exit.
func watchExit(pid int, exited func()) {}
