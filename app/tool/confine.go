package tool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"agenthub/app/confine"
	"agenthub/ipc/errclass"
)

// maxLinkDepth bounds how many dangling symlinks Resolve follows by hand.
const maxLinkDepth = 40

// Resolve is the workspace confinement check. It maps path (relative to
// workspace, or absolute) to the real path it designates with every symlink
// resolved, and refuses with a errclass.ToolDenied *Error anything outside workspace:
// ".." escapes, absolute paths elsewhere, symlinks (file or directory) whose
// target is outside. A path that does not exist yet is checked through its
// nearest existing ancestor, so creating a file under a symlinked directory
// that escapes is refused too; dangling symlinks are followed by hand. An
// empty path means the workspace itself. Invalid paths (NUL bytes, a file
// used as a directory) get errclass.ToolInvalidInput.
//
// The check is made at call time and names what the tools then open: they
// open it through the workspace (resolveTarget, app/confine), so a
// concurrent process that swaps a directory for a symlink afterwards
// makes the call fail, never reach outside.
func Resolve(workspace, path string) (string, error) {
	if workspace == "" {
		return "", errorf(errclass.ToolExec, "no workspace configured")
	}
	if strings.ContainsRune(path, 0) {
		return "", errorf(errclass.ToolInvalidInput, "path contains a NUL byte")
	}
	wsAbs, err := filepath.Abs(workspace)
	if err != nil {
		return "", errorf(errclass.ToolExec, "workspace %q: %v", workspace, err)
	}
	root, err := filepath.EvalSymlinks(wsAbs)
	if err != nil {
		return "", errorf(errclass.ToolExec, "workspace %q: %v", workspace, err)
	}
	if path == "" {
		path = "."
	}
	if driveRooted(path) {
		return "", errorf(errclass.ToolDenied, "%q is outside the workspace (a path from a drive's root or a drive's current folder)", path)
	}
	var target string
	if filepath.IsAbs(path) {
		target = filepath.Clean(path)
		if !within(wsAbs, target) && !within(root, target) {
			return "", errorf(errclass.ToolDenied, "%q is outside the workspace", path)
		}
	} else {
		target = filepath.Join(wsAbs, path)
		if !within(wsAbs, target) {
			return "", errorf(errclass.ToolDenied, "%q escapes the workspace", path)
		}
	}
	real, err := resolveExisting(target, 0)
	if err != nil {
		return "", err
	}
	if !within(root, real) {
		return "", errorf(errclass.ToolDenied, "%q resolves outside the workspace through a symlink", path)
	}
	return real, nil
}

// within reports whether target is base or lies under it (both clean, absolute).
func within(base, target string) bool { return confine.Within(base, target) }

// resolveExisting resolves every symlink of the longest existing prefix of p
// and appends the non-existing rest unchanged; dangling symlinks on the way
// are resolved through their (non-existing) targets.
func resolveExisting(p string, depth int) (string, error) {
	if depth > maxLinkDepth {
		return "", errorf(errclass.ToolInvalidInput, "too many levels of symbolic links at %q", p)
	}
	var rest []string
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return joinRest(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", errorf(errclass.ToolInvalidInput, "cannot resolve %q: %v", p, unwrapPathErr(err))
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// cur is a dangling symlink: continue from where it points.
			link, rerr := os.Readlink(cur)
			if rerr != nil {
				return "", errorf(errclass.ToolInvalidInput, "cannot read symlink %q: %v", cur, rerr)
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(cur), link)
			}
			return resolveExisting(joinRest(filepath.Clean(link), rest), depth+1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return joinRest(cur, rest), nil
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// joinRest appends rest (collected leaf-first) to base.
func joinRest(base string, rest []string) string {
	parts := make([]string, 0, len(rest)+1)
	parts = append(parts, base)
	for i := len(rest) - 1; i >= 0; i-- {
		parts = append(parts, rest[i])
	}
	return filepath.Join(parts...)
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// displayPath is how status lines name a path: as the model wrote it,
// cleaned, and relative to the workspace when it was absolute inside it.
func displayPath(workspace, path string) string {
	if path == "" {
		return "."
	}
	p := filepath.Clean(path)
	if filepath.IsAbs(p) && workspace != "" {
		if ws, err := filepath.Abs(workspace); err == nil && within(ws, p) {
			if rel, err := filepath.Rel(ws, p); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.ToSlash(p)
}

// driveRooted reports a Windows path that is neither absolute nor relative
// to the workspace: rooted on the current drive (\x, /x) or relative to a
// drive's current folder (C:x). filepath.Join would put either inside the
// workspace, which is not what it names.
func driveRooted(path string) bool {
	if runtime.GOOS != "windows" || filepath.IsAbs(path) {
		return false
	}
	return filepath.VolumeName(path) != "" || strings.HasPrefix(path, `\`) || strings.HasPrefix(path, "/")
}
