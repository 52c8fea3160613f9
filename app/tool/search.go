package tool

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"agenthub/ipc/errclass"
)

// Search limits.
const (
	globMaxResults  = 1000
	grepMaxMatches  = 500
	grepMaxBytes    = 64 << 10
	grepMaxLineRune = 300
	grepMaxLineScan = 1 << 20 // longer lines end the search of that file
)

// ---- glob ----

type globTool struct{}

type globInput struct {
	Pattern string `json:"pattern"`
}

func (globTool) Name() string { return "glob" }

func (globTool) Description() string {
	return "Find workspace files whose path matches a glob pattern, e.g. \"**/*.go\" or \"src/*.ts\". " +
		"* ? and [...] match within one path segment, ** matches any number of segments. Paths are relative " +
		"to the workspace, sorted; directories end with /. .git is skipped; symlinked directories are not followed. " +
		"At most 1000 results."
}

func (globTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob pattern relative to the workspace; ** matches any number of directories."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)
}

func (globTool) Describe(input json.RawMessage) (string, string) {
	var in globInput
	if err := json.Unmarshal(input, &in); err != nil || in.Pattern == "" {
		return invalidSummary("glob", input)
	}
	return "Finding files matching " + in.Pattern, "-> finding workspace files matching " + codeSpan(in.Pattern) + "\n"
}

// splitPattern validates a glob pattern and returns its segments relative
// to the workspace.
func splitPattern(workspace, pattern string) ([]string, error) {
	p := filepath.ToSlash(pattern)
	if filepath.IsAbs(pattern) {
		rel := ""
		for _, base := range workspaceRoots(workspace) {
			if r, err := filepath.Rel(base, filepath.Clean(pattern)); err == nil && within(base, filepath.Clean(pattern)) {
				rel = filepath.ToSlash(r)
				break
			}
		}
		if rel == "" {
			return nil, errorf(errclass.ToolDenied, "glob: pattern %q is outside the workspace", pattern)
		}
		p = rel
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return nil, errorf(errclass.ToolDenied, "glob: pattern %q escapes the workspace", pattern)
		case "**":
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue
			}
		default:
			if _, err := path.Match(s, ""); err != nil {
				return nil, errorf(errclass.ToolInvalidInput, "glob: malformed pattern %q: %v", pattern, err)
			}
		}
		segs = append(segs, s)
	}
	return segs, nil
}

// workspaceRoots returns the workspace's absolute and real paths.
func workspaceRoots(workspace string) []string {
	var roots []string
	if abs, err := filepath.Abs(workspace); err == nil {
		roots = append(roots, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			roots = append(roots, real)
		}
	}
	return roots
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// matchSegs reports whether name matches pat segment by segment, "**"
// matching zero or more segments.
func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// mayMatchBelow reports whether some path under directory dir could match pat.
func mayMatchBelow(pat, dir []string) bool {
	for ; len(dir) > 0; pat, dir = pat[1:], dir[1:] {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[0], dir[0]); !ok {
			return false
		}
	}
	return len(pat) > 0
}

func (globTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	var in globInput
	if err := decodeInput("glob", input, &in); err != nil {
		st, sum := invalidSummary("glob", input)
		return Result{StatusText: st, Summary: sum}, err
	}
	failed := Result{StatusText: "Could not search for " + in.Pattern}
	if in.Pattern == "" {
		return failed, errorf(errclass.ToolInvalidInput, "glob: pattern is required")
	}
	segs, err := splitPattern(env.Workspace, in.Pattern)
	if err != nil {
		return failed, err
	}
	n := 0
	for n < len(segs) && !hasMeta(segs[n]) && segs[n] != "**" {
		n++
	}
	prefix, rest := segs[:n], segs[n:]
	base, err := Resolve(env.Workspace, filepath.Join(append([]string{"."}, prefix...)...))
	if err != nil {
		return failed, err
	}
	var matches []string
	total := 0
	rootDir := realRoot(env.Workspace)
	add := func(p string, isDir bool) {
		total++
		if len(matches) < globMaxResults {
			rel := relTo(rootDir, p)
			if isDir {
				rel += "/"
			}
			matches = append(matches, rel)
		}
	}
	if len(rest) == 0 { // a literal path
		if fi, err := os.Stat(base); err == nil {
			add(base, fi.IsDir())
		}
	} else if fi, err := os.Stat(base); err == nil && fi.IsDir() {
		visited := 0
		walkErr := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if visited++; visited%256 == 0 {
				if err := checkCtx(ctx, "glob"); err != nil {
					return err
				}
			}
			if err != nil || p == base {
				return nil // unreadable entries are skipped
			}
			relSlash := filepath.ToSlash(strings.TrimPrefix(p, base+string(filepath.Separator)))
			name := strings.Split(relSlash, "/")
			if d.IsDir() {
				if d.Name() == ".git" || !mayMatchBelow(rest, name) {
					if matchSegs(rest, name) && d.Name() != ".git" {
						add(p, true)
					}
					return fs.SkipDir
				}
			}
			if !matchSegs(rest, name) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if _, err := Resolve(env.Workspace, p); err != nil {
					return nil // the link escapes: not a confined result
				}
			}
			add(p, d.IsDir())
			return nil
		})
		if walkErr != nil {
			return failed, AsError(walkErr)
		}
	}
	sort.Strings(matches)
	out := strings.Join(matches, "\n") + "\n"
	if total == 0 {
		out = "No files match " + in.Pattern + "\n"
	} else if total > len(matches) {
		out += fmt.Sprintf("[… %d more matches; narrow the pattern]\n", total-len(matches))
	}
	excerpt, cut := excerptHead(out, summaryExcerptLines, summaryExcerptBytes)
	summary := fmt.Sprintf("%s matching %s\n\n", plural(total, "file", "files"), codeSpan(in.Pattern))
	if cut {
		summary += fmt.Sprintf("First %d:\n\n", countLines(excerpt))
	}
	return Result{
		Output:      out,
		Truncated:   total > len(matches),
		OutputBytes: int64(len(out)),
		StatusText:  fmt.Sprintf("Found %s matching %s", plural(total, "file", "files"), in.Pattern),
		Summary:     summary + codeBlock("", excerpt),
	}, nil
}

// ---- grep ----

type grepTool struct{}

type grepInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

func (grepTool) Name() string { return "grep" }

func (grepTool) Description() string {
	return "Search file contents under path (default the workspace root) for a regular expression " +
		"(Go RE2 syntax). Prints path:line: text for each matching line. Binary files, .git and symlinks are " +
		"skipped. At most 500 matching lines are shown."
}

func (grepTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression (Go RE2 syntax), e.g. \"func \\\\w+\\\\(\" or \"(?i)todo\"."},
    "path": {"type": "string", "description": "File or directory to search, relative to the workspace (default \".\")."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)
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
	re      *regexp.Regexp
	out     strings.Builder
	shown   int
	total   int
	files   int
	cut     bool
	rootDir string
}

func (g *grepState) searchFile(p string) {
	f, fi, err := openRegular(p) // FIFOs, sockets and devices are skipped, never opened blocking
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
	rel := relTo(g.rootDir, p)
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

func (grepTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	var in grepInput
	if err := decodeInput("grep", input, &in); err != nil {
		st, sum := invalidSummary("grep", input)
		return Result{StatusText: st, Summary: sum}, err
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
	if err := checkCtx(ctx, "grep"); err != nil {
		return failed, err
	}
	root, err := Resolve(env.Workspace, in.Path)
	if err != nil {
		return failed, err
	}
	fi, err := os.Stat(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return failed, errorf(errclass.ToolInvalidInput, "grep: %s does not exist", displayPath(env.Workspace, in.Path))
		}
		return failed, errorf(errclass.ToolExec, "grep: %v", unwrapPathErr(err))
	}
	g := &grepState{re: re, rootDir: realRoot(env.Workspace)}
	if !fi.IsDir() {
		g.searchFile(root)
	} else {
		walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are skipped
			}
			if d.IsDir() {
				if d.Name() == ".git" && p != root {
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
		if walkErr != nil {
			return failed, AsError(walkErr)
		}
	}
	out := g.out.String()
	if g.total == 0 {
		out = "No matches for " + in.Pattern + "\n"
	} else if g.cut {
		out += fmt.Sprintf("[… %d more matching lines not shown; narrow the pattern or path]\n", g.total-g.shown)
	}
	excerpt, cut := excerptHead(out, summaryExcerptLines, summaryExcerptBytes)
	summary := fmt.Sprintf("%s in %s for %s\n\n", plural(g.total, "match", "matches"), plural(g.files, "file", "files"), codeSpan(in.Pattern))
	if cut {
		summary += fmt.Sprintf("First %d:\n\n", countLines(excerpt))
	}
	return Result{
		Output:      out,
		Truncated:   g.cut,
		OutputBytes: int64(len(out)),
		StatusText:  fmt.Sprintf("Found %s for %s", plural(g.total, "match", "matches"), label),
		Summary:     summary + codeBlock("", excerpt),
	}, nil
}
