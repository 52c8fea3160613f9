//go:build unix

package app

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes f's exclusive flock without waiting; errLockBusy while
// another process holds it.
func tryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
		return errLockBusy
	}
	return err
}
