package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"agenthub/ipc/errclass"
)

// list_dir cap on entries shown.
const listMaxEntries = 1000

// listDirTool lists a workspace directory.
type listDirTool struct{ spec }

var listDirSpec = spec{
	name: "list_dir",
	description: "List a workspace directory, sorted by name: directories end with /, files show their size, " +
		"symlinks show their target. Use \".\" for the workspace root. At most 1000 entries.",
	schema: `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory path, relative to the workspace (\".\" for its root) or absolute inside it."}
  },
  "required": ["path"],
  "additionalProperties": false
}`,
}

type listInput struct {
	Path string `json:"path"`
}

func (in listInput) pathArg() string { return in.Path }

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
	in, disp, failed, err := decodePathInput[listInput]("list_dir", "list", env, input)
	if err != nil {
		return failed, err
	}
	t, err := resolveTarget(ctx, "list_dir", env, in.Path)
	if err != nil {
		return failed, err
	}
	defer t.Close()
	entries, err := t.dir.ReadDir(t.rel)
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return failed, errorf(errclass.ToolInvalidInput, "list_dir: %s is not a directory (use read_file)", disp)
		}
		return failed, t.fail(disp, err)
	}
	var b strings.Builder
	for i, e := range entries {
		if i == listMaxEntries {
			fmt.Fprintf(&b, "[… %d more entries]\n", len(entries)-listMaxEntries)
			break
		}
		b.WriteString(describeEntry(t, e))
		b.WriteByte('\n')
	}
	out := b.String()
	if len(entries) == 0 {
		out = "(empty directory)\n"
	}
	return Result{
		Output:      out,
		Truncated:   len(entries) > listMaxEntries,
		OutputBytes: int64(len(out)),
		StatusText:  fmt.Sprintf("Listed %s (%s)", disp, plural(len(entries), "entry", "entries")),
		Summary:     listingSummary(fmt.Sprintf("%s in %s\n\n", plural(len(entries), "entry", "entries"), codeSpan(disp)), out),
	}, nil
}

// describeEntry renders one entry of the directory t.
func describeEntry(t *target, e fs.DirEntry) string {
	name := e.Name()
	switch typ := e.Type(); {
	case typ.IsDir():
		return name + "/"
	case typ&fs.ModeSymlink != 0:
		link, err := t.dir.Readlink(filepath.Join(t.rel, name))
		if err != nil {
			return name + " -> ?"
		}
		return name + " -> " + link
	case typ.IsRegular():
		if fi, err := e.Info(); err == nil {
			return fmt.Sprintf("%s (%d bytes)", name, fi.Size())
		}
	}
	return name
}
