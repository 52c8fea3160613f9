package tool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"agenthub/ipc/errclass"
)

// read_file limits.
const (
	readDefaultLimit = 2000      // lines returned when limit is absent
	readMaxLimit     = 10000     // largest accepted limit
	readMaxLineBytes = 2000      // longer lines are cut
	readMaxBytes     = 256 << 10 // model-visible output cap
	sniffBytes       = 8000      // prefix inspected for NUL bytes
	editMaxBytes     = 16 << 20  // edit_file refuses larger files
)

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

// ---- read_file ----

type readFileTool struct{}

type readInput struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset,omitempty"`
	Limit  *int   `json:"limit,omitempty"`
}

func (readFileTool) Name() string { return "read_file" }

func (readFileTool) Description() string {
	return "Read a text file in the workspace. Output has line numbers like `cat -n`. offset is the 1-based " +
		"first line (default 1), limit the number of lines (default 2000, max 10000). Lines longer than 2000 " +
		"bytes are cut. Binary files are refused."
}

func (readFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace or absolute inside it."},
    "offset": {"type": "integer", "minimum": 1, "description": "1-based line to start at (default 1)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "Maximum number of lines (default 2000)."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)
}

func (readFileTool) Describe(input json.RawMessage) (string, string) {
	var in readInput
	if err := json.Unmarshal(input, &in); err != nil || in.Path == "" {
		return invalidSummary("read_file", input)
	}
	what := "-> reading " + codeSpan(in.Path)
	if in.Offset != nil || in.Limit != nil {
		off, lim := 1, readDefaultLimit
		if in.Offset != nil {
			off = *in.Offset
		}
		if in.Limit != nil {
			lim = *in.Limit
		}
		what += fmt.Sprintf(" (lines %d–%d)", off, off+lim-1)
	}
	return "Reading " + in.Path, what + "\n"
}

func (readFileTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	var in readInput
	if err := decodeInput("read_file", input, &in); err != nil {
		st, sum := invalidSummary("read_file", input)
		return Result{StatusText: st, Summary: sum}, err
	}
	disp := displayPath(env.Workspace, in.Path)
	failed := Result{StatusText: "Could not read " + disp}
	offset, limit := 1, readDefaultLimit
	if in.Offset != nil {
		if offset = *in.Offset; offset < 1 {
			return failed, errorf(errclass.ToolInvalidInput, "read_file: offset must be ≥ 1, got %d", offset)
		}
	}
	if in.Limit != nil {
		if limit = *in.Limit; limit < 1 || limit > readMaxLimit {
			return failed, errorf(errclass.ToolInvalidInput, "read_file: limit must be between 1 and %d, got %d", readMaxLimit, limit)
		}
	}
	if err := checkCtx(ctx, "read_file"); err != nil {
		return failed, err
	}
	f, fi, err := openFile("read_file", env, in.Path)
	if err != nil {
		return failed, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if sniff, _ := br.Peek(sniffBytes); isBinary(sniff) {
		return failed, errorf(errclass.ToolInvalidInput, "read_file: %s is a binary file (%d bytes); read_file only reads text", disp, fi.Size())
	}

	var out, raw strings.Builder
	lineNo, shown := 0, 0
	truncated, more := false, false
	for {
		line, cut, err := readLine(br, readMaxLineBytes)
		if err == io.EOF && len(line) == 0 {
			break
		}
		if err != nil && err != io.EOF {
			return failed, errorf(errclass.ToolExec, "read_file: %s: %v", disp, err)
		}
		lineNo++
		if lineNo%10000 == 0 {
			if err := checkCtx(ctx, "read_file"); err != nil {
				return failed, err
			}
		}
		if lineNo < offset {
			continue
		}
		if shown == limit || out.Len() >= readMaxBytes {
			more = true
			break
		}
		text := strings.ToValidUTF8(string(line), "\uFFFD")
		if cut {
			text += " … [line cut]"
			truncated = true
		}
		fmt.Fprintf(&out, "%6d\t%s\n", lineNo, text)
		if shown < summaryExcerptLines {
			raw.WriteString(text + "\n")
		}
		shown++
		if err == io.EOF {
			break
		}
	}
	if shown == 0 {
		if lineNo == 0 && offset == 1 {
			return Result{Output: "(empty file)\n", StatusText: "Read " + disp + " (0 lines)",
				Summary: codeSpan(disp) + " is empty.\n"}, nil
		}
		return failed, errorf(errclass.ToolInvalidInput, "read_file: offset %d is past the end of %s (%d lines)", offset, disp, lineNo)
	}
	last := offset + shown - 1
	if more {
		truncated = true
		fmt.Fprintf(&out, "[… file continues; read more with offset=%d]\n", last+1)
	}
	res := Result{
		Output:      out.String(),
		Truncated:   truncated,
		OutputBytes: int64(out.Len()),
		StatusText:  fmt.Sprintf("Read %s (%s)", disp, plural(shown, "line", "lines")),
	}
	excerpt := raw.String()
	note := ""
	if shown > summaryExcerptLines {
		note = fmt.Sprintf("First %d lines shown.\n\n", summaryExcerptLines)
	}
	res.Summary = fmt.Sprintf("Lines %d–%d of %s (%d bytes on disk)\n\n%s%s", offset, last, codeSpan(disp), fi.Size(),
		note, codeBlock(langFor(disp), excerpt))
	return res, nil
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
