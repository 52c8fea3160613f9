package tool

import (
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

// list_dir cap on entries shown.
const listMaxEntries = 1000

// ---- write_file ----

type writeFileTool struct{}

type writeInput struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (writeFileTool) Name() string { return "write_file" }

func (writeFileTool) Description() string {
	return "Create or overwrite a file in the workspace with content. Parent directories are created. " +
		"The write is atomic (temp file + rename); an existing file keeps its permissions."
}

func (writeFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace or absolute inside it."},
    "content": {"type": "string", "description": "The complete new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)
}

func (writeFileTool) Describe(input json.RawMessage) (string, string) {
	var in writeInput
	if err := json.Unmarshal(input, &in); err != nil || in.Path == "" || in.Content == nil {
		return invalidSummary("write_file", input)
	}
	return "Writing " + in.Path, fmt.Sprintf("-> writing %s (%d bytes) to %s\n",
		plural(countLines(*in.Content), "line", "lines"), len(*in.Content), codeSpan(in.Path))
}

func (writeFileTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	var in writeInput
	if err := decodeInput("write_file", input, &in); err != nil {
		st, sum := invalidSummary("write_file", input)
		return Result{StatusText: st, Summary: sum}, err
	}
	disp := displayPath(env.Workspace, in.Path)
	failed := Result{StatusText: "Could not write " + disp}
	if in.Path == "" {
		return failed, errorf(errclass.ToolInvalidInput, "write_file: path is required")
	}
	if in.Content == nil {
		return failed, errorf(errclass.ToolInvalidInput, "write_file: content is required")
	}
	if err := checkCtx(ctx, "write_file"); err != nil {
		return failed, err
	}
	real, err := Resolve(env.Workspace, in.Path)
	if err != nil {
		return failed, err
	}
	mode, verb := fs.FileMode(0o644), "Created"
	if fi, err := os.Stat(real); err == nil {
		if fi.IsDir() {
			return failed, errorf(errclass.ToolInvalidInput, "write_file: %s is a directory", disp)
		}
		if !fi.Mode().IsRegular() {
			return failed, errorf(errclass.ToolInvalidInput, "write_file: %s is not a regular file", disp)
		}
		mode, verb = keptMode(fi), "Overwrote"
	}
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		return failed, errorf(errclass.ToolExec, "write_file: creating parent directories of %s: %v", disp, unwrapPathErr(err))
	}
	if err := atomicWrite(real, []byte(*in.Content), mode); err != nil {
		return failed, errorf(errclass.ToolExec, "write_file: %s: %v", disp, unwrapPathErr(err))
	}
	lines := countLines(*in.Content)
	excerpt, cut := excerptHead(*in.Content, summaryExcerptLines, summaryExcerptBytes)
	summary := fmt.Sprintf("%s %s: %s, %d bytes\n\n", verb, codeSpan(disp), plural(lines, "line", "lines"), len(*in.Content))
	if cut {
		summary += fmt.Sprintf("First %d lines:\n\n", countLines(excerpt))
	}
	if excerpt != "" {
		summary += codeBlock(langFor(disp), excerpt)
	}
	return Result{
		Output:      fmt.Sprintf("%s %s (%s, %d bytes).\n", verb, disp, plural(lines, "line", "lines"), len(*in.Content)),
		OutputBytes: int64(len(*in.Content)),
		StatusText:  fmt.Sprintf("Wrote %s (%s)", disp, plural(lines, "line", "lines")),
		Summary:     summary,
	}, nil
}

// keptMode is the mode a rewritten file keeps: permissions plus setuid,
// setgid and sticky bits.
func keptMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// ---- edit_file ----

type editFileTool struct{}

type editInput struct {
	Path string  `json:"path"`
	Old  *string `json:"old"`
	New  *string `json:"new"`
}

func (editFileTool) Name() string { return "edit_file" }

func (editFileTool) Description() string {
	return "Replace text in a workspace file: old must occur exactly once in the file (include enough " +
		"surrounding context to make it unique) and is replaced by new. The write is atomic and keeps the " +
		"file's permissions."
}

func (editFileTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace or absolute inside it."},
    "old": {"type": "string", "minLength": 1, "description": "Exact text to replace; must occur exactly once."},
    "new": {"type": "string", "description": "Replacement text (may be empty to delete)."}
  },
  "required": ["path", "old", "new"],
  "additionalProperties": false
}`)
}

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
	var in editInput
	if err := decodeInput("edit_file", input, &in); err != nil {
		st, sum := invalidSummary("edit_file", input)
		return Result{StatusText: st, Summary: sum}, err
	}
	disp := displayPath(env.Workspace, in.Path)
	failed := Result{StatusText: "Could not edit " + disp}
	switch {
	case in.Old == nil || *in.Old == "":
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: old is required and must not be empty")
	case in.New == nil:
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: new is required (use \"\" to delete)")
	case *in.Old == *in.New:
		return failed, errorf(errclass.ToolInvalidInput, "edit_file: old and new are identical; nothing to change")
	}
	if err := checkCtx(ctx, "edit_file"); err != nil {
		return failed, err
	}
	f, fi, err := openFile("edit_file", env, in.Path)
	if err != nil {
		return failed, err
	}
	real := f.Name()
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
	if err := atomicWrite(real, []byte(updated), keptMode(fi)); err != nil {
		return failed, errorf(errclass.ToolExec, "edit_file: %s: %v", disp, unwrapPathErr(err))
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

// ---- list_dir ----

type listDirTool struct{}

type listInput struct {
	Path string `json:"path"`
}

func (listDirTool) Name() string { return "list_dir" }

func (listDirTool) Description() string {
	return "List a workspace directory, sorted by name: directories end with /, files show their size, " +
		"symlinks show their target. Use \".\" for the workspace root. At most 1000 entries."
}

func (listDirTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory path, relative to the workspace (\".\" for its root) or absolute inside it."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)
}

func (listDirTool) Describe(input json.RawMessage) (string, string) {
	var in listInput
	if err := json.Unmarshal(input, &in); err != nil {
		return invalidSummary("list_dir", input)
	}
	p := in.Path
	if p == "" {
		p = "."
	}
	return "Listing " + p, "-> listing directory " + codeSpan(p) + "\n"
}

func (listDirTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	var in listInput
	if err := decodeInput("list_dir", input, &in); err != nil {
		st, sum := invalidSummary("list_dir", input)
		return Result{StatusText: st, Summary: sum}, err
	}
	disp := displayPath(env.Workspace, in.Path)
	failed := Result{StatusText: "Could not list " + disp}
	if err := checkCtx(ctx, "list_dir"); err != nil {
		return failed, err
	}
	real, err := Resolve(env.Workspace, in.Path)
	if err != nil {
		return failed, err
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return failed, errorf(errclass.ToolInvalidInput, "list_dir: %s does not exist", disp)
		case errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory"):
			return failed, errorf(errclass.ToolInvalidInput, "list_dir: %s is not a directory (use read_file)", disp)
		}
		return failed, errorf(errclass.ToolExec, "list_dir: %s: %v", disp, unwrapPathErr(err))
	}
	var b strings.Builder
	for i, e := range entries {
		if i == listMaxEntries {
			fmt.Fprintf(&b, "[… %d more entries]\n", len(entries)-listMaxEntries)
			break
		}
		b.WriteString(describeEntry(real, e))
		b.WriteByte('\n')
	}
	out := b.String()
	if len(entries) == 0 {
		out = "(empty directory)\n"
	}
	excerpt, cut := excerptHead(out, summaryExcerptLines, summaryExcerptBytes)
	summary := fmt.Sprintf("%s in %s\n\n", plural(len(entries), "entry", "entries"), codeSpan(disp))
	if cut {
		summary += fmt.Sprintf("First %d:\n\n", countLines(excerpt))
	}
	return Result{
		Output:      out,
		Truncated:   len(entries) > listMaxEntries,
		OutputBytes: int64(len(out)),
		StatusText:  fmt.Sprintf("Listed %s (%s)", disp, plural(len(entries), "entry", "entries")),
		Summary:     summary + codeBlock("", excerpt),
	}, nil
}

func describeEntry(dir string, e fs.DirEntry) string {
	name := e.Name()
	switch t := e.Type(); {
	case t.IsDir():
		return name + "/"
	case t&fs.ModeSymlink != 0:
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			return name + " -> ?"
		}
		return name + " -> " + target
	case t.IsRegular():
		if fi, err := e.Info(); err == nil {
			return fmt.Sprintf("%s (%d bytes)", name, fi.Size())
		}
	}
	return name
}
