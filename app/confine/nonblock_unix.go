//go:build unix

package confine

import "syscall"

// openNonblock makes opening a FIFO return at once instead of blocking
// until a writer appears (regular files ignore it).
const openNonblock = syscall.O_NONBLOCK
