//go:build !linux

package confine

import "os"

// fdPath reports errNoProc where the kernel has no /proc/self/fd: the
// os.Root resolution alone confines there.
func fdPath(*os.File) (string, error) { return "", errNoProc }
