//go:build !linux && !windows

package confine

import "os"

// fdPath reports errNoProc where the kernel cannot name a descriptor: the
// os.Root resolution alone confines there.
func fdPath(*os.File) (string, error) { return "", errNoProc }
