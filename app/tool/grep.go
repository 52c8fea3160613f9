package tool

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"agenthub/app/confine"
	"agenthub/ipc/errclass"
)

// grep limits.
const (
	grepMaxMatches  = 500
	grepMaxBytes    = 64 << 10
	grepMaxLineRune = 300
	grepMaxLineScan = 1 << 20 // longer lines end the search of that file
)

// grepTool searches workspace file contents for a regular expression.
type grepTool struct{ spec }

var grepSpec = spec{
	name: "grep",
	description: "Search file contents under path (default the workspace root) for a regular expression " +
		"(Go RE2 syntax). Prints path:line: text for each matching line. Binary files, .git and symlinks are " +
		"skipped. At most 500 matching lines are shown.",
	schema: `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression (Go RE2 syntax), e.g. \"func \\\\w+\\\\(\" or \"(?i)todo\"."},
    "path": {"type": "string", "description": "File or directory to search, relative to the workspace (default \".\")."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`,
}

type grepInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

func (grepTool) Describe(input json.RawMessage) (string, string) {
	var in grepInput
	if err := json.Unmarshal(input, &in); err != nil || in.Pattern == "" {
		return invalidSummary("grep", input)
	}
	where := in.Path
	if where == "" {
		where = "."
	}
	return "Searching for " + truncRunes(in.Pattern, statusMaxRunes) + " in " + where,
		"-> searching " + codeSpan(where) + " for the regular expression " + codeSpan(in.Pattern) + "\n"
}

// grepState accumulates matches across files.
type grepState struct {
	re    *regexp.Regexp
	dir   *confine.Dir // the workspace
	out   strings.Builder
	shown int
	total int
	files int
	cut   bool
}

// searchFile searches the file rel (relative to the workspace, slashes).
func (g *grepState) searchFile(rel string) {
	f, fi, err := g.dir.Open(rel) // FIFOs, sockets and devices are skipped, never opened blocking
	if err != nil {
		return
	}
	if fi.IsDir() {
		f.Close()
		return
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if sniff, _ := br.Peek(sniffBytes); isBinary(sniff) {
		return
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), grepMaxLineScan)
	lineNo, hit := 0, false
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if !g.re.Match(line) {
			continue
		}
		g.total++
		hit = true
		if g.shown >= grepMaxMatches || g.out.Len() >= grepMaxBytes {
			g.cut = true
			continue
		}
		text := truncRunes(strings.ToValidUTF8(strings.TrimRight(string(line), "\r"), "\uFFFD"), grepMaxLineRune)
		fmt.Fprintf(&g.out, "%s:%d: %s\n", rel, lineNo, text)
		g.shown++
	}
	if hit {
		g.files++
	}
}

// searchTree searches every regular file under root (relative to the
// workspace, slashes), skipping .git below it, protected directories,
// symlinks and unreadable entries.
func (g *grepState) searchTree(ctx context.Context, root string) error {
	return fs.WalkDir(g.dir.FS(), root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped
		}
		if d.IsDir() {
			if p != root && (d.Name() == ".git" || skipProtected(g.dir, p)) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symlinks, devices, sockets
		}
		if err := checkCtx(ctx, "grep"); err != nil {
			return err
		}
		g.searchFile(p)
		return nil
	})
}

func (grepTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	in, res, err := decodeRunInput[grepInput]("grep", input)
	if err != nil {
		return res, err
	}
	label := truncRunes(in.Pattern, statusMaxRunes)
	failed := Result{StatusText: "Could not search for " + label}
	if in.Pattern == "" {
		return failed, errorf(errclass.ToolInvalidInput, "grep: pattern is required")
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return failed, errorf(errclass.ToolInvalidInput, "grep: invalid regular expression: %v", err)
	}
	t, err := resolveTarget(ctx, "grep", env, in.Path)
	if err != nil {
		return failed, err
	}
	defer t.Close()
	fi, err := t.dir.Stat(t.rel)
	if err != nil {
		return failed, t.fail(t.disp, err)
	}
	g := &grepState{re: re, dir: t.dir}
	if root := filepath.ToSlash(t.rel); !fi.IsDir() {
		g.searchFile(root)
	} else if err := g.searchTree(ctx, root); err != nil {
		return failed, AsError(err)
	}
	out := g.out.String()
	if g.total == 0 {
		out = "No matches for " + in.Pattern + "\n"
	} else if g.cut {
		out += fmt.Sprintf("[… %d more matching lines not shown; narrow the pattern or path]\n", g.total-g.shown)
	}
	return Result{
		Output:      out,
		Truncated:   g.cut,
		OutputBytes: int64(len(out)),
		StatusText:  fmt.Sprintf("Found %s for %s", plural(g.total, "match", "matches"), label),
		Summary: listingSummary(fmt.Sprintf("%s in %s for %s\n\n", plural(g.total, "match", "matches"), plural(g.files, "file", "files"),
			codeSpan(in.Pattern)), out),
	}, nil
}
