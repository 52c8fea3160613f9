package tool

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"agenthub/ipc/errclass"
)

// read_file limits.
const (
	readDefaultLimit = 2000      // lines returned when limit is absent
	readMaxLimit     = 10000     // largest accepted limit
	readMaxLineBytes = 2000      // longer lines are cut
	readMaxBytes     = 256 << 10 // model-visible output cap
)

// readFileTool shows a window of a workspace text file, with line numbers.
type readFileTool struct{ spec }

var readFileSpec = spec{
	name: "read_file",
	description: "Read a text file in the workspace. Output has line numbers like `cat -n`. offset is the 1-based " +
		"first line (default 1), limit the number of lines (default 2000, max 10000). Lines longer than 2000 " +
		"bytes are cut. Binary files are refused.",
	schema: `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace or absolute inside it."},
    "offset": {"type": "integer", "minimum": 1, "description": "1-based line to start at (default 1)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "Maximum number of lines (default 2000)."}
  },
  "required": ["path"],
  "additionalProperties": false
}`,
}

type readInput struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset,omitempty"`
	Limit  *int   `json:"limit,omitempty"`
}

func (in readInput) pathArg() string { return in.Path }

// bounds returns the first line (1-based) and the number of lines asked
// for, with their defaults, or an error naming the one out of range.
func (in readInput) bounds() (offset, limit int, err error) {
	offset, limit = 1, readDefaultLimit
	if in.Offset != nil {
		if offset = *in.Offset; offset < 1 {
			return 0, 0, errorf(errclass.ToolInvalidInput, "read_file: offset must be ≥ 1, got %d", offset)
		}
	}
	if in.Limit != nil {
		if limit = *in.Limit; limit < 1 || limit > readMaxLimit {
			return 0, 0, errorf(errclass.ToolInvalidInput, "read_file: limit must be between 1 and %d, got %d", readMaxLimit, limit)
		}
	}
	return offset, limit, nil
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
	in, disp, failed, err := decodePathInput[readInput]("read_file", "read", env, input)
	if err != nil {
		return failed, err
	}
	offset, limit, err := in.bounds()
	if err != nil {
		return failed, err
	}
	t, f, fi, err := openFile(ctx, "read_file", env, in.Path)
	if err != nil {
		return failed, err
	}
	defer t.Close()
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if sniff, _ := br.Peek(sniffBytes); isBinary(sniff) {
		return failed, errorf(errclass.ToolInvalidInput, "read_file: %s is a binary file (%d bytes); read_file only reads text", disp, fi.Size())
	}
	w, err := readWindow(ctx, br, disp, offset, limit)
	if err != nil {
		return failed, err
	}
	if w.shown == 0 {
		if w.lines == 0 && offset == 1 {
			return Result{Output: "(empty file)\n", StatusText: "Read " + disp + " (0 lines)",
				Summary: codeSpan(disp) + " is empty.\n"}, nil
		}
		return failed, errorf(errclass.ToolInvalidInput, "read_file: offset %d is past the end of %s (%d lines)", offset, disp, w.lines)
	}
	last := offset + w.shown - 1
	if w.more {
		w.truncated = true
		fmt.Fprintf(&w.out, "[… file continues; read more with offset=%d]\n", last+1)
	}
	note := ""
	if w.shown > summaryExcerptLines {
		note = fmt.Sprintf("First %d lines shown.\n\n", summaryExcerptLines)
	}
	return Result{
		Output:      w.out.String(),
		Truncated:   w.truncated,
		OutputBytes: int64(w.out.Len()),
		StatusText:  fmt.Sprintf("Read %s (%s)", disp, plural(w.shown, "line", "lines")),
		Summary: fmt.Sprintf("Lines %d–%d of %s (%d bytes on disk)\n\n%s%s", offset, last, codeSpan(disp), fi.Size(),
			note, codeBlock(langFor(disp), w.raw.String())),
	}, nil
}

// window is what read_file shows of a file.
type window struct {
	out       strings.Builder // the numbered lines
	raw       strings.Builder // the first summaryExcerptLines of them, as text
	lines     int             // lines read, up to the window's end
	shown     int             // lines in out
	truncated bool            // a line was cut
	more      bool            // the file goes on past the window
}

// readWindow reads limit lines from line offset on (1-based), stopping
// early once readMaxBytes are shown; disp names the file in errors.
func readWindow(ctx context.Context, br *bufio.Reader, disp string, offset, limit int) (*window, error) {
	w := &window{}
	for {
		line, cut, err := readLine(br, readMaxLineBytes)
		if err == io.EOF && len(line) == 0 {
			return w, nil
		}
		if err != nil && err != io.EOF {
			return nil, errorf(errclass.ToolExec, "read_file: %s: %v", disp, err)
		}
		w.lines++
		if w.lines%10000 == 0 {
			if err := checkCtx(ctx, "read_file"); err != nil {
				return nil, err
			}
		}
		if w.lines < offset {
			continue
		}
		if w.shown == limit || w.out.Len() >= readMaxBytes {
			w.more = true
			return w, nil
		}
		text := strings.ToValidUTF8(string(line), "\uFFFD")
		if cut {
			text += " … [line cut]"
			w.truncated = true
		}
		fmt.Fprintf(&w.out, "%6d\t%s\n", w.lines, text)
		if w.shown < summaryExcerptLines {
			w.raw.WriteString(text + "\n")
		}
		w.shown++
		if err == io.EOF {
			return w, nil
		}
	}
}
