//go:build unix

package mention

import "syscall"

// openNoWait makes an open neither block on a FIFO nor follow a final
// symbolic link.
const openNoWait = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
