// Package instructions finds a project's instruction files — AGENTS.md,
// the cross-tool convention, or CLAUDE.md where a directory has no
// AGENTS.md — from a session's workspace up to its VCS root (never above
// the user's home, never into a directory others may write), plus a
// global one in the data dir, and renders them, bounded in size, for the
// system prompt. Only the user's own regular files inside the project
// are read: what goes into the prompt cannot be planted by a symlink, a
// FIFO or another user.
package instructions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"agenthub/app/confine"
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
// the outermost directory (the project root, see projectRoot) to the
// workspace itself, so the nearest comes last. Each is cut to
// MaxFileBytes, all together to MaxTotalBytes (the nearest kept first).
//
// A file is read only if it is a regular file (never a FIFO or device:
// its type is checked before a non-blocking open) whose resolved path is
// inside the project root — a symlink out, to /proc or into globalDir (the
// data dir) is passed over — owned by the user (or root), not writable by
// others, in a directory not writable by others (see Trusted). A file
// passed over counts as absent; one that cannot be read is an error
// naming it.
func Find(workspace, globalDir string) ([]File, error) {
	var found []File // nearest first while searching
	if ws, err := confine.RealPath(workspace); err == nil {
		root := ProjectRoot(ws)
		d, err := confine.Open(root, []string{globalDir})
		if err == nil {
			defer d.Close()
			for dir := ws; ; dir = filepath.Dir(dir) {
				f, ok, err := read(d, dir, "project")
				if err != nil {
					return nil, err
				}
				if ok {
					found = append(found, f)
				}
				if dir == root || filepath.Dir(dir) == dir {
					break
				}
			}
		}
	}
	if globalDir != "" {
		if d, err := confine.Open(globalDir, nil); err == nil {
			defer d.Close()
			f, ok, err := read(d, d.Path(), "global")
			if err != nil {
				return nil, err
			}
			if ok && !contains(found, f.Path) {
				found = append(found, f)
			}
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
	// Outermost first: global, then the project root's … the workspace's.
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

// ProjectRoot is where the search for a project's files stops: the
// nearest directory from ws (a real path) up that holds a VCS marker —
// looked for no higher than the user's home and never in or above a
// directory others may write (/tmp, /var/tmp, /dev/shm) — else ws itself.
// Instruction files, custom commands, skills and agents are read from ws
// up to it, never above.
func ProjectRoot(ws string) string {
	home, _ := os.UserHomeDir()
	if real, err := confine.RealPath(home); err == nil {
		home = real
	}
	for dir := ws; ; {
		if isRoot(dir) {
			return dir
		}
		parent := filepath.Dir(dir)
		if dir == home || parent == dir {
			return ws
		}
		if fi, err := os.Lstat(parent); err != nil || !Trusted(fi) {
			return ws
		}
		dir = parent
	}
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

// read returns the instruction file of directory dir (a real path inside
// d's tree): the first of Names that OpenTrusted opens, cut to
// MaxFileBytes. Its Size is never less than what was read (a file growing
// meanwhile).
func read(d *confine.Dir, dir, scope string) (File, bool, error) {
	relDir, err := filepath.Rel(d.Path(), dir)
	if err != nil {
		return File{}, false, nil
	}
	for _, name := range Names {
		path := filepath.Join(dir, name)
		fh, fi, ok, err := OpenTrusted(d, filepath.Join(relDir, name))
		if err != nil {
			return File{}, false, fmt.Errorf("instructions %s: %w", path, err)
		}
		if !ok {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes))
		fh.Close()
		if err != nil {
			return File{}, false, fmt.Errorf("instructions %s: %w", path, err)
		}
		size := max(fi.Size(), int64(len(b)))
		return File{Path: path, Size: size, Scope: scope, Kept: int64(len(b)), Text: string(b)}, true, nil
	}
	return File{}, false, nil
}

// OpenTrusted opens the file rel of d's tree only if only the user can
// have put it there: a regular file (its type checked before a
// non-blocking open, so a FIFO never blocks), resolved inside d (no
// symlink out, nothing in a protected directory), owned by the user (or
// root) and writable by no one else, in a directory that is likewise (the
// one holding it and, for a symlink, the one holding its target). ok is
// false for a file passed over (it counts as absent); err is a file that
// should be read and could not be.
func OpenTrusted(d *confine.Dir, rel string) (f *os.File, fi fs.FileInfo, ok bool, err error) {
	if di, err := d.Stat(filepath.Dir(rel)); err != nil || !Trusted(di) {
		return nil, nil, false, nil
	}
	fh, fi, err := d.Open(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.Is(err, confine.ErrNotRegular),
		errors.Is(err, confine.ErrOutside), errors.Is(err, confine.ErrProtected), errors.Is(err, syscall.ELOOP):
		return nil, nil, false, nil
	case err != nil:
		return nil, nil, false, err
	}
	if fi.IsDir() || !Trusted(fi) || !targetDirTrusted(d, rel) {
		fh.Close()
		return nil, nil, false, nil
	}
	return fh, fi, true, nil
}

// targetDirTrusted reports whether the directory holding what rel (a
// name in d's tree) resolves to is trusted: for a symlink, the target's
// directory; for a file, its own (checked by the caller already).
func targetDirTrusted(d *confine.Dir, rel string) bool {
	if fi, err := d.Lstat(rel); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return err == nil
	}
	real, err := filepath.EvalSymlinks(filepath.Join(d.Path(), rel))
	if err != nil {
		return false
	}
	relDir, err := filepath.Rel(d.Path(), filepath.Dir(real))
	if err != nil {
		return false
	}
	fi, err := d.Stat(relDir)
	return err == nil && Trusted(fi)
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
