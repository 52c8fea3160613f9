//go:build unix

package confine

import "syscall"

// openNonblock makes opening a FIFO return at once instead of blocking
// until a writer appears (regular files ignore it); openDirOnly fails the
// open of anything but a directory, before it is opened.
const (
	openNonblock = syscall.O_NONBLOCK
	openDirOnly  = syscall.O_DIRECTORY | syscall.O_NONBLOCK
)
