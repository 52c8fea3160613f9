// The helpers the file tools (read_file, write_file, edit_file, list_dir,
// grep) share: binary sniffing, line reading, fence languages, temp names
// and kept modes (opening and writing: target.go).

package tool

import (
	"bufio"
	"bytes"
	"io/fs"
	"path/filepath"
	"strings"
)

// sniffBytes is the prefix of a file inspected for NUL bytes.
const sniffBytes = 8000

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

// keptMode is the mode a rewritten file keeps: permissions plus setuid,
// setgid and sticky bits.
func keptMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}
