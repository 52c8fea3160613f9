// The helpers the file tools (read_file, write_file, edit_file, list_dir,
// grep) share: opening regular files only, binary sniffing, line reading,
// fence languages and atomic writes.

package tool

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"agenthub/ipc/errclass"
)

// sniffBytes is the prefix of a file inspected for NUL bytes.
const sniffBytes = 8000

// errNotRegular is returned by openRegular for FIFOs, sockets and devices.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading only if it is a regular file. A FIFO,
// socket or device is refused without blocking: the path is checked with
// stat first, opened with O_NONBLOCK (so a FIFO swapped in meanwhile cannot
// block the open until a writer appears), and the open file is checked
// again with fstat. A directory is returned as is (fi.IsDir()).
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, nil, err
	} else if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, fi, errNotRegular
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, errNotRegular
	}
	return f, fi, nil
}

// openFile resolves and opens a regular file for reading.
func openFile(tool string, env Env, path string) (*os.File, fs.FileInfo, error) {
	if path == "" {
		return nil, nil, errorf(errclass.ToolInvalidInput, "%s: path is required", tool)
	}
	real, err := Resolve(env.Workspace, path)
	if err != nil {
		return nil, nil, err
	}
	f, fi, err := openRegular(real)
	switch {
	case errors.Is(err, errNotRegular):
		return nil, nil, errorf(errclass.ToolInvalidInput, "%s: %s is not a regular file (%s); only regular files can be read", tool, path, fileKind(fi))
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, errorf(errclass.ToolInvalidInput, "%s: %s does not exist", tool, path)
	case err != nil:
		return nil, nil, errorf(errclass.ToolExec, "%s: %v", tool, unwrapPathErr(err))
	}
	if fi.IsDir() {
		f.Close()
		return nil, nil, errorf(errclass.ToolInvalidInput, "%s: %s is a directory (use list_dir)", tool, path)
	}
	return f, fi, nil
}

// fileKind names a non-regular file's type for error messages.
func fileKind(fi fs.FileInfo) string {
	if fi == nil {
		return "unknown type"
	}
	switch m := fi.Mode(); {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// isBinary reports whether data (a file's first bytes) looks binary.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0
}

// readLine reads one line (without its line ending) from br, keeping at
// most limit bytes of it; cut reports a longer line. At the end of input it
// returns the final unterminated line (possibly empty) with io.EOF.
func readLine(br *bufio.Reader, limit int) (line []byte, cut bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		if room := limit - len(line); len(body) > room {
			line = append(line, body[:max(room, 0)]...)
			cut = true
		} else {
			line = append(line, body...)
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return bytes.TrimSuffix(line, []byte("\r")), cut, nil
		}
		return line, cut, err
	}
}

// langFor guesses a fence language from a file name.
func langFor(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".go":
		return "go"
	case ".ts", ".tsx":
		return "typescript"
	case ".js", ".jsx", ".mjs":
		return "javascript"
	case ".py":
		return "python"
	case ".md":
		return "markdown"
	case ".json":
		return "json"
	case ".sh", ".bash":
		return "bash"
	case ".yaml", ".yml":
		return "yaml"
	case ".html":
		return "html"
	case ".css":
		return "css"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".toml":
		return "toml"
	}
	return ""
}

// IsWriteTemp reports whether a file name is one of write_file's or
// edit_file's temp files (".NAME.tmp-DIGITS"), which exist only while a
// write is in progress: a workspace scan ignores them.
func IsWriteTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, ".tmp-")
	if i <= 1 || i+len(".tmp-") == len(name) {
		return false
	}
	for _, c := range name[i+len(".tmp-"):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// atomicWrite replaces path with data via a temp file in the same directory
// and a rename, so readers see the old or the new content, never a mix.
func atomicWrite(path string, data []byte, mode fs.FileMode) error {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	return nil
}

// keptMode is the mode a rewritten file keeps: permissions plus setuid,
// setgid and sticky bits.
func keptMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}
