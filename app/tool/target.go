package tool

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"agenthub/app/confine"
	"agenthub/ipc/errclass"
)

// target is the workspace file or directory a file tool works on: the
// model's path checked by Resolve (and refused inside a protected
// directory), with the workspace open for confined access. Everything
// the tool then does to it goes through dir (app/confine), so a symlink
// swapped in after the check leads nowhere outside.
type target struct {
	dir  *confine.Dir
	rel  string // the path relative to dir, symlinks resolved at the check
	real string // the absolute real path at the check (for the FileWatcher)
	tool string
	path string // as the model wrote it
	disp string // as status lines name it
}

// resolveTarget checks path in env's workspace for tool (unless ctx is
// done) and opens the workspace. The caller closes the target.
func resolveTarget(ctx context.Context, tool string, env Env, path string) (*target, error) {
	if err := checkCtx(ctx, tool); err != nil {
		return nil, err
	}
	real, err := Resolve(env.Workspace, path)
	if err != nil {
		return nil, err
	}
	d, err := confine.Open(env.Workspace, env.Protected)
	if err != nil {
		return nil, errorf(errclass.ToolExec, "%s: workspace %q: %v", tool, env.Workspace, unwrapPathErr(err))
	}
	t := &target{dir: d, real: real, tool: tool, path: path, disp: displayPath(env.Workspace, path)}
	rel, err := filepath.Rel(d.Path(), real)
	switch {
	case d.Protected(real):
		err = t.protected()
	case err != nil || !confine.Within(d.Path(), real):
		err = errorf(errclass.ToolDenied, "%q resolves outside the workspace", path)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	t.rel = rel
	return t, nil
}

// Close releases the workspace.
func (t *target) Close() { t.dir.Close() }

// protected is the refusal of a path inside a protected directory.
func (t *target) protected() *Error {
	return errorf(errclass.ToolDenied, "%s: %s is inside Agent Hub's data folder (its settings, keys and approval rules): no tool reads or writes there", t.tool, t.disp)
}

// fail turns an error of t.dir's methods into the tool's *Error: a path
// that led outside or into a protected directory is denied, a missing one
// invalid input, the rest an exec failure (what names it).
func (t *target) fail(what string, err error) *Error {
	switch {
	case errors.Is(err, confine.ErrOutside):
		return errorf(errclass.ToolDenied, "%s: %s resolves outside the workspace through a symlink (changed while the call ran)", t.tool, t.disp)
	case errors.Is(err, confine.ErrProtected):
		return t.protected()
	case errors.Is(err, fs.ErrNotExist):
		return errorf(errclass.ToolInvalidInput, "%s: %s does not exist", t.tool, t.disp)
	case errors.Is(err, syscall.ENOTDIR):
		return errorf(errclass.ToolInvalidInput, "%s: %s: a part of the path is not a directory", t.tool, t.disp)
	}
	return errorf(errclass.ToolExec, "%s: %s: %v", t.tool, what, unwrapPathErr(err))
}

// openFile is how a tool that reads one file opens it: the path is
// required, resolved inside the workspace (resolveTarget) and opened only
// as a regular file (openRegular). The caller closes f, then t.
func openFile(ctx context.Context, tool string, env Env, path string) (*target, *os.File, fs.FileInfo, error) {
	if path == "" {
		return nil, nil, nil, errorf(errclass.ToolInvalidInput, "%s: path is required", tool)
	}
	t, err := resolveTarget(ctx, tool, env, path)
	if err != nil {
		return nil, nil, nil, err
	}
	f, fi, err := t.openRegular()
	if err != nil {
		t.Close()
		return nil, nil, nil, err
	}
	return t, f, fi, nil
}

// openRegular opens the target for reading if it is a regular file; a
// FIFO, socket or device is refused without blocking, a directory too.
func (t *target) openRegular() (*os.File, fs.FileInfo, error) {
	f, fi, err := t.dir.Open(t.rel)
	switch {
	case errors.Is(err, confine.ErrNotRegular):
		return nil, nil, errorf(errclass.ToolInvalidInput, "%s: %s is not a regular file (%s); only regular files can be read", t.tool, t.path, fileKind(fi))
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, errorf(errclass.ToolInvalidInput, "%s: %s does not exist", t.tool, t.path)
	case err != nil:
		return nil, nil, t.fail(t.disp, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, nil, errorf(errclass.ToolInvalidInput, "%s: %s is a directory (use list_dir)", t.tool, t.path)
	}
	return f, fi, nil
}

// write replaces the target with data (confine.Dir.WriteFile: a temp file
// and a rename in the target's directory), telling env's watcher.
func (t *target) write(env Env, data []byte, mode fs.FileMode) error {
	env.beforeWrite(t.tool, t.real)
	if err := t.dir.WriteFile(t.rel, data, mode); err != nil {
		return t.fail(t.disp, err)
	}
	env.afterWrite(t.tool, t.real)
	return nil
}
