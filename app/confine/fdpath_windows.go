package confine

import (
	"os"
	"strings"

	"golang.org/x/sys/windows"
)

// fdPath is the path Windows gives f's handle (GetFinalPathNameByHandle,
// normalized, with its drive letter): the counterpart of Linux's
// /proc/self/fd/N, so a file reached through a link or junction swapped in
// mid-call is checked where it really is.
func fdPath(f *os.File) (string, error) {
	ctl, err := f.SyscallConn()
	if err != nil {
		return "", err
	}
	var p string
	var rerr error
	if err := ctl.Control(func(h uintptr) { p, rerr = finalPath(windows.Handle(h)) }); err != nil {
		return "", err
	}
	return p, rerr
}

// GetFinalPathNameByHandle flags (fileapi.h): the normalized name, with
// the drive letter.
const (
	fileNameNormalized = 0x0
	volumeNameDOS      = 0x0
)

func finalPath(h windows.Handle) (string, error) {
	buf := make([]uint16, windows.MAX_PATH)
	for {
		n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), fileNameNormalized|volumeNameDOS)
		if err != nil {
			return "", &os.PathError{Op: "GetFinalPathNameByHandle", Path: "", Err: err}
		}
		if int(n) < len(buf) {
			return trimLongPrefix(windows.UTF16ToString(buf[:n])), nil
		}
		buf = make([]uint16, n+1)
	}
}

// trimLongPrefix turns \\?\C:\x into C:\x and \\?\UNC\host\share into
// \\host\share, the forms filepath and the tree's own path use.
func trimLongPrefix(p string) string {
	if rest, ok := strings.CutPrefix(p, `\\?\UNC\`); ok {
		return `\\` + rest
	}
	return strings.TrimPrefix(p, `\\?\`)
}
