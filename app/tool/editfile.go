package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"agenthub/ipc/errclass"
)

// editMaxBytes is the largest file edit_file edits.
const editMaxBytes = 16 << 20

// editFileTool replaces one occurrence of a text in a workspace file.
type editFileTool struct{ spec }

var editFileSpec = spec{
	name: "edit_file",
	description: "Replace text in a workspace file: old must occur exactly once in the file (include enough " +
		"surrounding context to make it unique) and is replaced by new. The write is atomic and keeps the " +
		"file's permissions.",
	schema: `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace or absolute inside it."},
    "old": {"type": "string", "minLength": 1, "description": "Exact text to replace; must occur exactly once."},
    "new": {"type": "string", "description": "Replacement text (may be empty to delete)."}
  },
  "required": ["path", "old", "new"],
  "additionalProperties": false
}`,
}

type editInput struct {
	Path string  `json:"path"`
	Old  *string `json:"old"`
	New  *string `json:"new"`
}

func (in editInput) pathArg() string { return in.Path }

func (editFileTool) Describe(input json.RawMessage) (string, string) {
	var in editInput
	if err := json.Unmarshal(input, &in); err != nil || in.Path == "" || in.Old == nil || in.New == nil {
		return invalidSummary("edit_file", input)
	}
	return "Editing " + in.Path, "-> replacing text in " + codeSpan(in.Path) + ":\n\n" + diffBlock(*in.Old, *in.New)
}

// diffBlock renders old/new as a fenced diff-like block.
func diffBlock(old, new string) string {
	var b strings.Builder
	prefix := func(s, p string) {
		s, _ = excerptHead(s, summaryExcerptLines, summaryExcerptBytes)
		for _, l := range strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") {
			b.WriteString(p + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	if old != "" {
		prefix(old, "- ")
	}
	if new != "" {
		prefix(new, "+ ")
	}
	return codeBlock("diff", b.String())
}

func (editFileTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	in, disp, failed, err := decodePathInput[editInput]("edit_file", "edit", env, input)
	if err != nil {
		return failed, err
	}
	switch {
	case in.Old == nil || *in.Old == "":
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: old is required and must not be empty")
	case in.New == nil:
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: new is required (use \"\" to delete)")
	case *in.Old == *in.New:
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: old and new are identical; nothing to change")
	}
	t, f, fi, err := openFile(ctx, "edit_file", env, in.Path)
	if err != nil {
		return failed, err
	}
	defer t.Close()
	if fi.Size() > editMaxBytes {
		f.Close()
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: %s is too large to edit (%d bytes, max %d)", disp, fi.Size(), editMaxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, editMaxBytes+1))
	f.Close()
	if err != nil {
		return failed, errorf(errclass.ToolExec, "edit_file: %s: %v", disp, err)
	}
	if isBinary(data) {
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: %s is a binary file; edit_file only edits text", disp)
	}
	content := string(data)
	*in.Old, *in.New = matchLineEndings(content, *in.Old, *in.New)
	switch n := strings.Count(content, *in.Old); n {
	case 0:
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: not found: old text does not occur in %s", disp)
	case 1:
	default:
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: ambiguous, %d occurrences of old text in %s; include more context to make it unique", n, disp)
	}
	at := strings.Index(content, *in.Old)
	line := 1 + strings.Count(content[:at], "\n")
	updated := content[:at] + *in.New + content[at+len(*in.Old):]
	if err := t.write(env, []byte(updated), keptMode(fi)); err != nil {
		return failed, err
	}
	oldN, newN := countLines(*in.Old), countLines(*in.New)
	return Result{
		Output: fmt.Sprintf("Edited %s: replaced %s with %s at line %d.\n", disp,
			plural(oldN, "line", "lines"), plural(newN, "line", "lines"), line),
		OutputBytes: int64(len(updated)),
		StatusText:  "Edited " + disp,
		Summary: fmt.Sprintf("Edited %s at line %d (−%d +%d lines)\n\n%s", codeSpan(disp), line, oldN, newN,
			diffBlock(*in.Old, *in.New)),
	}, nil
}

// matchLineEndings returns old and new with CRLF line endings when the
// file uses them (as files made on Windows do) and only the CRLF form of
// old occurs in content: the model writes "\n", and the edit keeps the
// file's line endings. Otherwise it returns them as given.
func matchLineEndings(content, old, new string) (string, string) {
	if !strings.Contains(old, "\n") || strings.Contains(content, old) || !strings.Contains(content, "\r\n") {
		return old, new
	}
	crlf := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n") }
	if c := crlf(old); strings.Contains(content, c) {
		return c, crlf(new)
	}
	return old, new
}
