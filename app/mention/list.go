package mention

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxIgnoreFile bounds how much of one ignore file is read.
const maxIgnoreFile = 1 << 20

// List returns the workspace's files as slash-separated paths relative to
// root, at most MaxListed, within listTimeout. It runs no program: a
// repository's configuration can name commands (core.fsmonitor, hooks,
// pagers, diff drivers) that `git ls-files` would run, so the tree is
// walked here. Inside a git work tree the walk honours what git ignores —
// every .gitignore from the repository root down (nested ones for their own
// directories) and .git/info/exclude — and skips .git and nested
// repositories; it lists untracked files that are not ignored and misses
// tracked files that an ignore pattern covers (git add -f). Outside one it
// skips hidden directories and dependency/build directories (skipDirs).
// Only regular files are listed; symbolic links are not followed.
func List(ctx context.Context, root string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	// A workspace reached through a symbolic link is walked where it is.
	root, err := filepath.Abs(root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", root, err)
	}
	w := &walker{root: root, ignores: map[string][]gitignore.Pattern{}}
	if repo, ok := repoRoot(root); ok {
		w.repo = repo
		w.ignores[root] = w.inherited(root)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: skipped
		}
		if len(w.out) >= MaxListed {
			return fs.SkipAll
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == root {
			return nil
		}
		if d.IsDir() {
			return w.dir(p, d.Name())
		}
		if d.Type().IsRegular() && !w.ignored(p, false) {
			if rel, err := filepath.Rel(root, p); err == nil {
				w.out = append(w.out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("listing %s: %w", root, err)
	}
	return w.out, nil // a walk cut short by the time bound lists what it found
}

// walker is one List's state.
type walker struct {
	root string
	repo string // the work tree's root; "" outside a git work tree
	// ignores holds, per directory walked, the ignore patterns that apply
	// inside it, lowest priority first (nil outside a work tree).
	ignores map[string][]gitignore.Pattern
	out     []string
}

// dir decides whether to enter directory p (named name) and, when it
// does, reads its .gitignore.
func (w *walker) dir(p, name string) error {
	if name == ".git" {
		return fs.SkipDir
	}
	if w.repo == "" {
		if strings.HasPrefix(name, ".") || skipDirs[name] {
			return fs.SkipDir
		}
		return nil
	}
	if w.ignored(p, true) || exists(filepath.Join(p, ".git")) {
		return fs.SkipDir // ignored, or another repository
	}
	w.ignores[p] = append(slices.Clip(w.ignores[filepath.Dir(p)]), readIgnore(filepath.Join(p, ".gitignore"), w.domain(p))...)
	return nil
}

// ignored reports whether git ignores p (inside a work tree).
func (w *walker) ignored(p string, isDir bool) bool {
	if w.repo == "" {
		return false
	}
	ps := w.ignores[filepath.Dir(p)]
	return len(ps) > 0 && gitignore.NewMatcher(ps).Match(w.domain(p), isDir)
}

// domain is p's path components relative to the work tree's root.
func (w *walker) domain(p string) []string {
	rel, err := filepath.Rel(w.repo, p)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// inherited returns the patterns that apply inside dir, a directory at or
// below the work tree's root: .git/info/exclude, then the .gitignore of
// every directory from the root down to dir.
func (w *walker) inherited(dir string) []gitignore.Pattern {
	ps := readIgnore(filepath.Join(w.repo, ".git", "info", "exclude"), nil)
	chain := []string{dir}
	for d := dir; d != w.repo; {
		d = filepath.Dir(d)
		chain = append(chain, d)
	}
	slices.Reverse(chain)
	for _, d := range chain {
		ps = append(ps, readIgnore(filepath.Join(d, ".gitignore"), w.domain(d))...)
	}
	return ps
}

// repoRoot finds the git work tree holding dir: the nearest directory at
// or above it with a .git entry (a directory, or a file naming one).
func repoRoot(dir string) (string, bool) {
	for d := dir; ; {
		if exists(filepath.Join(d, ".git")) {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// readIgnore parses the ignore file at path (none when it is missing or
// not a regular file: a FIFO never blocks the listing) into patterns for
// the directory domain.
func readIgnore(path string, domain []string) []gitignore.Pattern {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(io.LimitReader(f, maxIgnoreFile))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
