package mcp

import "syscall"

// groupAttr starts a server as the leader of its own process group, killed
// by the kernel when the app dies.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
