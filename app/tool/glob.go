package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"agenthub/app/confine"
	"agenthub/ipc/errclass"
)

// glob cap on results listed.
const globMaxResults = 1000

// globTool finds workspace paths matching a glob pattern.
type globTool struct{ spec }

var globSpec = spec{
	name: "glob",
	description: "Find workspace files whose path matches a glob pattern, e.g. \"**/*.go\" or \"src/*.ts\". " +
		"* ? and [...] match within one path segment, ** matches any number of segments. Paths are relative " +
		"to the workspace, sorted; directories end with /. .git is skipped; symlinked directories are not followed. " +
		"At most 1000 results.",
	schema: `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob pattern relative to the workspace; ** matches any number of directories."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`,
}

type globInput struct {
	Pattern string `json:"pattern"`
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
	in, res, err := decodeRunInput[globInput]("glob", input)
	if err != nil {
		return res, err
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
	t, err := resolveTarget(ctx, "glob", env, filepath.Join(append([]string{"."}, prefix...)...))
	if err != nil {
		return failed, err
	}
	defer t.Close()
	m := &globMatches{}
	base := filepath.ToSlash(t.rel)
	if len(rest) == 0 { // a literal path
		if fi, err := t.dir.Stat(t.rel); err == nil {
			m.add(base, fi.IsDir())
		}
	} else if fi, err := t.dir.Stat(t.rel); err == nil && fi.IsDir() {
		if err := globWalk(ctx, env.Workspace, t.dir, base, rest, m.add); err != nil {
			return failed, AsError(err)
		}
	}
	sort.Strings(m.paths)
	out := strings.Join(m.paths, "\n") + "\n"
	if m.total == 0 {
		out = "No files match " + in.Pattern + "\n"
	} else if m.total > len(m.paths) {
		out += fmt.Sprintf("[… %d more matches; narrow the pattern]\n", m.total-len(m.paths))
	}
	return Result{
		Output:      out,
		Truncated:   m.total > len(m.paths),
		OutputBytes: int64(len(out)),
		StatusText:  fmt.Sprintf("Found %s matching %s", plural(m.total, "file", "files"), in.Pattern),
		Summary:     listingSummary(fmt.Sprintf("%s matching %s\n\n", plural(m.total, "file", "files"), codeSpan(in.Pattern)), out),
	}, nil
}

// globMatches collects matches as paths relative to the workspace's real
// root (directories with a trailing /), the first globMaxResults of them.
type globMatches struct {
	paths []string
	total int
}

// add adds rel (relative to the workspace, slashes).
func (m *globMatches) add(rel string, isDir bool) {
	m.total++
	if len(m.paths) < globMaxResults {
		if isDir {
			rel += "/"
		}
		m.paths = append(m.paths, rel)
	}
}

// globWalk calls add for every path below directory base (relative to
// the workspace dir, slashes) whose segments below base match rest,
// skipping .git, protected directories, directories no match can lie
// under, and symlinks that escape the workspace.
func globWalk(ctx context.Context, workspace string, dir *confine.Dir, base string, rest []string, add func(rel string, isDir bool)) error {
	visited := 0
	return fs.WalkDir(dir.FS(), base, func(p string, d fs.DirEntry, err error) error {
		if visited++; visited%256 == 0 {
			if err := checkCtx(ctx, "glob"); err != nil {
				return err
			}
		}
		if err != nil || p == base {
			return nil // unreadable entries are skipped
		}
		name := strings.Split(strings.TrimPrefix(p, base+"/"), "/")
		if base == "." {
			name = strings.Split(p, "/")
		}
		if d.IsDir() {
			if skipProtected(dir, p) {
				return fs.SkipDir
			}
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
			if _, err := Resolve(workspace, p); err != nil {
				return nil // the link escapes: not a confined result
			}
		}
		add(p, d.IsDir())
		return nil
	})
}

// skipProtected reports whether the directory rel of a walk of dir is a
// protected one (the walk skips it).
func skipProtected(dir *confine.Dir, rel string) bool {
	return dir.Protected(filepath.Join(dir.Path(), filepath.FromSlash(rel)))
}
