package permission

import (
	"os"
	"path/filepath"
	"strings"
)

// Protected says which paths no call writes without asking, whatever the
// mode and the rules (deny rules still deny): anything inside a .git
// directory at any depth (config, hooks: what git runs) and the app's own
// directories (settings, rules, tokens). The zero value protects .git
// directories under relative paths only.
type Protected struct {
	Workspace string   // what relative paths are relative to
	Dirs      []string // the app's own directories (the data dir)
}

// Covers reports whether target (absolute, or relative to Workspace) is
// or lies in a protected path, by its name and, where it exists, by what
// its symlinks resolve to.
func (p Protected) Covers(target string) bool {
	for _, cand := range p.candidates(target) {
		if p.inGitDir(cand) {
			return true
		}
	}
	return p.InAppDir(target)
}

// InAppDir reports whether target (absolute, or relative to Workspace) is
// or lies in one of the app's own directories (Dirs), by its name and by
// what its symlinks resolve to. No tool ever writes there: the file
// tools refuse it whatever the answer, so Decide denies such a write
// instead of asking.
func (p Protected) InAppDir(target string) bool {
	for _, cand := range p.candidates(target) {
		for _, d := range p.Dirs {
			if d != "" && (within(filepath.Clean(d), cand) || within(resolveExisting(filepath.Clean(d)), cand)) {
				return true
			}
		}
	}
	return false
}

// candidates are the paths target (absolute, or relative to Workspace)
// names: itself, cleaned, and what its symlinks resolve to where it
// exists. None for "".
func (p Protected) candidates(target string) []string {
	if target == "" {
		return nil
	}
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(p.Workspace, abs)
	}
	abs = filepath.Clean(abs)
	return []string{abs, resolveExisting(abs)}
}

// inGitDir reports whether a path component of abs below the workspace
// (or of the whole path, outside it) is named .git, in any letter case.
func (p Protected) inGitDir(abs string) bool {
	rel := abs
	for _, ws := range []string{p.Workspace, resolveExisting(p.Workspace)} {
		if ws != "" && within(filepath.Clean(ws), abs) {
			rel, _ = filepath.Rel(filepath.Clean(ws), abs)
			break
		}
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

// resolveExisting resolves the symlinks of the longest existing prefix
// of the clean absolute path abs and appends the rest; a dangling symlink
// on the way is followed through its target. abs itself when nothing
// resolves.
func resolveExisting(abs string) string { return resolveDepth(abs, 0) }

func resolveDepth(abs string, depth int) string {
	if abs == "" || !filepath.IsAbs(abs) || depth > 40 {
		return abs
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if link, err := os.Readlink(dir); err == nil { // dangling
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(dir), link)
			}
			return resolveDepth(filepath.Join(filepath.Clean(link), rest), depth+1)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// within reports whether target is base or lies under it (both clean).
func within(base, target string) bool {
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
