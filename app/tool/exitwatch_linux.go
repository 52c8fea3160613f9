package tool

import (
	"errors"

	"golang.org/x/sys/unix"
)

// watchExit calls exited once process pid (a child of ours) has exited,
// without reaping it (waitid with WNOWAIT on that pid only), so the group's
// reaper collects the shell's status the moment it ends instead of at its
// next poll. It returns when it has called exited.
func watchExit(pid int, exited func()) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	exited()
}
