package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"

	"agenthub/ipc/errclass"
)

// writeFileTool creates or overwrites a workspace file.
type writeFileTool struct{ spec }

var writeFileSpec = spec{
	name: "write_file",
	description: "Create or overwrite a file in the workspace with content. Parent directories are created. " +
		"The write is atomic (temp file + rename); an existing file keeps its permissions.",
	schema: `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the workspace or absolute inside it."},
    "content": {"type": "string", "description": "The complete new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`,
}

type writeInput struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (in writeInput) pathArg() string { return in.Path }

func (writeFileTool) Describe(input json.RawMessage) (string, string) {
	var in writeInput
	if err := json.Unmarshal(input, &in); err != nil || in.Path == "" || in.Content == nil {
		return invalidSummary("write_file", input)
	}
	return "Writing " + in.Path, fmt.Sprintf("-> writing %s (%d bytes) to %s\n",
		plural(countLines(*in.Content), "line", "lines"), len(*in.Content), codeSpan(in.Path))
}

func (writeFileTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	in, disp, failed, err := decodePathInput[writeInput]("write_file", "write", env, input)
	if err != nil {
		return failed, err
	}
	if in.Path == "" {
		return failed, errorf(errclass.ToolInvalidInput, "write_file: path is required")
	}
	if in.Content == nil {
		return failed, errorf(errclass.ToolInvalidInput, "write_file: content is required")
	}
	t, err := resolveTarget(ctx, "write_file", env, in.Path)
	if err != nil {
		return failed, err
	}
	defer t.Close()
	mode, verb := fs.FileMode(0o644), "Created"
	if fi, err := t.dir.Stat(t.rel); err == nil {
		if fi.IsDir() {
			return failed, errorf(errclass.ToolInvalidInput, "write_file: %s is a directory", disp)
		}
		if !fi.Mode().IsRegular() {
			return failed, errorf(errclass.ToolInvalidInput, "write_file: %s is not a regular file", disp)
		}
		mode, verb = keptMode(fi), "Overwrote"
	}
	if err := t.dir.MkdirAll(filepath.Dir(t.rel), 0o755); err != nil {
		return failed, t.fail("creating parent directories of "+disp, err)
	}
	if err := t.write(env, []byte(*in.Content), mode); err != nil {
		return failed, err
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
