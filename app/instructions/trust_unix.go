//go:build unix

package instructions

import (
	"io/fs"
	"os"
	"syscall"
)

// Trusted reports whether only the user can change fi: it is owned by the
// user or root, not world-writable, and group-writable only for the
// user's own group (user private groups make 0775 directories common).
func Trusted(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	if uid := uint32(os.Getuid()); st.Uid != uid && st.Uid != 0 {
		return false
	}
	perm := fi.Mode().Perm()
	return perm&0o002 == 0 && (perm&0o020 == 0 || st.Gid == uint32(os.Getgid()))
}
