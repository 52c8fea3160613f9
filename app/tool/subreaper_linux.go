package tool

import (
	"sync"
	"syscall"
)

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER, linux/prctl.h

// enableSubreaper makes this process the child subreaper of its
// descendants (once, process-wide), so a bash command's orphaned
// grandchildren are re-parented to us and reaped by the group's reaper
// instead of lingering as zombies under PID 1. It reports success.
var enableSubreaper = sync.OnceValue(func() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return errno == 0
})
