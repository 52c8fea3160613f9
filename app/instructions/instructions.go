// Package instructions finds a project's instruction files — AGENTS.md,
// the cross-tool convention, or CLAUDE.md where a directory has no
// AGENTS.md — from a session's workspace up to its VCS root (or the
// filesystem root), plus a global one in the data dir, and renders them,
// bounded in size, for the system prompt.
package instructions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Names are the instruction file names, in order of preference: a
// directory's first existing one is used.
var Names = []string{"AGENTS.md", "CLAUDE.md"}

// vcsMarkers end the upward search: the directory holding one is the
// project's root (its instructions are the outermost read).
var vcsMarkers = []string{".git", ".hg", ".svn", ".jj"}

// Bounds of what goes into the system prompt.
const (
	// MaxFileBytes is the most of one file kept; the rest is cut.
	MaxFileBytes = 32 << 10
	// MaxTotalBytes is the most of all files kept; files past it are cut
	// (the ones nearest the workspace are kept first).
	MaxTotalBytes = 64 << 10
)

// File is one instruction file in effect.
type File struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// Scope is "global" (the data dir's) or "project".
	Scope string `json:"scope"`
	// Kept is how many bytes of it the prompt carries (Size when not cut).
	Kept int64 `json:"kept"`
	// Text is the kept text.
	Text string `json:"-"`
}

// Cut reports whether part of the file was left out.
func (f File) Cut() bool { return f.Kept < f.Size }

// Find returns the instruction files in effect for workspace: the global
// one in globalDir (if any, "" for none) first, then the project's from
// the outermost directory (the VCS root, or the filesystem root) to the
// workspace itself, so the nearest comes last. Each is cut to
// MaxFileBytes, all together to MaxTotalBytes (the nearest kept first).
// Only regular files are read; an unreadable one is an error naming it.
func Find(workspace, globalDir string) ([]File, error) {
	var dirs []string
	for dir := filepath.Clean(workspace); ; {
		dirs = append(dirs, dir)
		if isRoot(dir) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	var found []File // nearest first while searching
	for _, dir := range dirs {
		f, ok, err := read(dir, "project")
		if err != nil {
			return nil, err
		}
		if ok {
			found = append(found, f)
		}
	}
	if globalDir != "" {
		f, ok, err := read(globalDir, "global")
		if err != nil {
			return nil, err
		}
		if ok && !contains(found, f.Path) {
			found = append(found, f)
		}
	}
	budget := int64(MaxTotalBytes)
	for i := range found {
		f := &found[i]
		f.Text = cutText(f.Text, min(int64(len(f.Text)), budget), int64(len(f.Text)) == f.Size)
		f.Kept = int64(len(f.Text))
		if f.Kept > f.Size { // U+FFFD for invalid bytes made it longer
			f.Kept = f.Size
		}
		budget -= int64(len(f.Text))
	}
	// Outermost first: global, then the VCS root's … the workspace's.
	out := make([]File, 0, len(found))
	for i := len(found) - 1; i >= 0; i-- {
		out = append(out, found[i])
	}
	return out, nil
}

func contains(fs []File, path string) bool {
	for _, f := range fs {
		if f.Path == path {
			return true
		}
	}
	return false
}

// isRoot reports whether dir holds a VCS marker.
func isRoot(dir string) bool {
	for _, m := range vcsMarkers {
		if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
			return true
		}
	}
	return false
}

// read returns dir's instruction file (the first of Names that is a
// regular file), cut to MaxFileBytes.
func read(dir, scope string) (File, bool, error) {
	for _, name := range Names {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || (err == nil && !fi.Mode().IsRegular()) {
			continue
		}
		if err != nil {
			return File{}, false, fmt.Errorf("instructions %s: %w", path, err)
		}
		fh, err := os.Open(path)
		if err != nil {
			return File{}, false, fmt.Errorf("instructions %s: %w", path, err)
		}
		b, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes))
		fh.Close()
		if err != nil {
			return File{}, false, fmt.Errorf("instructions %s: %w", path, err)
		}
		return File{Path: path, Size: fi.Size(), Scope: scope, Kept: int64(len(b)), Text: string(b)}, true, nil
	}
	return File{}, false, nil
}

// cutText is s (whole: all of its file) cut to at most n bytes — on a line
// end where one is near, never inside a UTF-8 character — with invalid
// UTF-8 replaced.
func cutText(s string, n int64, whole bool) string {
	if whole && int64(len(s)) <= n {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	s = s[:min(n, int64(len(s)))]
	for len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && int64(i) > n*3/4 {
		s = s[:i+1]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Prompt renders files for the system prompt: each with its path, what
// was cut said where it was. "" when there are none.
func Prompt(files []File) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Instructions from the project (AGENTS.md / CLAUDE.md files; where they disagree, the one nearest the workspace — listed last — wins):\n")
	for _, f := range files {
		fmt.Fprintf(&b, "\n<instructions path=%q scope=%q>\n", f.Path, f.Scope)
		b.WriteString(f.Text)
		if !strings.HasSuffix(f.Text, "\n") {
			b.WriteByte('\n')
		}
		if f.Cut() {
			fmt.Fprintf(&b, "[… %d of its %d bytes were cut: read the file for the rest]\n", f.Size-f.Kept, f.Size)
		}
		b.WriteString("</instructions>\n")
	}
	return b.String()
}
