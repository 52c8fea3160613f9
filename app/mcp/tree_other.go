//go:build unix && !linux

package mcp

import "syscall"

// groupAttr starts a server as the leader of its own process group (no
// parent-death signal here: the pid file sweep at the next start is the net).
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
