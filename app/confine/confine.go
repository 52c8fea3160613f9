// Package confine reads, writes and walks the files of one directory tree
// (a session's workspace) without ever leaving it, whatever another
// process does to the tree meanwhile. Every open, stat, create, rename
// and remove goes through an os.Root: a path is resolved component by
// component from the tree's directory descriptor, and a symlink that leads
// out — even one swapped in between a check and an open — is refused.
// Each file and directory opened is then checked, by the path the kernel
// gives its descriptor, against the protected directories (the data dir
// with its keys, settings and approval rules), which are never read or
// written through a Dir: not even when the workspace contains them
// (workspace = $HOME) and a symlink inside the workspace points there.
package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Errors a Dir's methods return (wrapped in a *fs.PathError); match them
// with errors.Is.
var (
	// ErrOutside: the path leads outside the tree (a symlink out, an
	// absolute symlink, "..").
	ErrOutside = errors.New("leads outside the folder")
	// ErrProtected: the path is inside a protected directory.
	ErrProtected = errors.New("is inside a protected folder")
	// ErrNotRegular: a FIFO, socket or device, which is never opened.
	ErrNotRegular = errors.New("not a regular file")

	// errNoProc: the kernel cannot say where a descriptor is.
	errNoProc = errors.New("no /proc/self/fd")
)

// Dir is a directory tree opened for confined access. Names passed to
// its methods are relative to the tree (slash-separated or OS-native);
// "." is the tree itself. A Dir is safe for concurrent use.
type Dir struct {
	root      *os.Root
	path      string   // the tree's real path when opened
	protected []string // real paths of the protected directories
}

// Open opens the tree at dir (symlinks in dir itself are followed).
// protected names directories that are never read or written through
// the Dir, wherever they are; "" entries are ignored.
func Open(dir string, protected []string) (*Dir, error) {
	real, err := RealPath(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	d := &Dir{root: root, path: real}
	for _, p := range protected {
		if p == "" {
			continue
		}
		if rp, err := RealPath(p); err == nil {
			d.protected = append(d.protected, rp)
		} else if abs, err := filepath.Abs(p); err == nil {
			d.protected = append(d.protected, filepath.Clean(abs)) // not created yet
		}
	}
	return d, nil
}

// RealPath is dir made absolute with every symlink resolved.
func RealPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Close releases the tree's descriptor.
func (d *Dir) Close() error { return d.root.Close() }

// Path is the tree's real path (as it was when opened).
func (d *Dir) Path() string { return d.path }

// Protected reports whether the real path p is a protected directory or
// lies inside one.
func (d *Dir) Protected(p string) bool {
	for _, prot := range d.protected {
		if Within(prot, p) {
			return true
		}
	}
	return false
}

// Within reports whether target is base or lies under it (both clean and
// absolute).
func Within(base, target string) bool {
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Stat returns the FileInfo of name, following symlinks inside the tree.
func (d *Dir) Stat(name string) (fs.FileInfo, error) {
	fi, err := d.root.Stat(name)
	return fi, wrap("stat", name, err)
}

// Lstat returns the FileInfo of name without following a final symlink.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	fi, err := d.root.Lstat(name)
	return fi, wrap("lstat", name, err)
}

// Readlink returns the target of the symlink name.
func (d *Dir) Readlink(name string) (string, error) {
	t, err := d.root.Readlink(name)
	return t, wrap("readlink", name, err)
}

// Open opens name for reading if it is a regular file or a directory. A
// FIFO, socket or device is ErrNotRegular (with its FileInfo) and is
// never opened blocking: its type is checked first, the open is
// non-blocking, and the open file is checked again. The file opened is
// checked to be inside the tree and outside the protected directories.
func (d *Dir) Open(name string) (*os.File, fs.FileInfo, error) {
	fi, err := d.root.Stat(name)
	if err != nil {
		return nil, nil, wrap("open", name, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, fi, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, wrap("open", name, err)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, wrap("open", name, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	if err := d.verify(f, "open", name); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadDir lists the directory name, sorted by name. The entries come
// from the directory as opened in the tree, with their FileInfo taken
// relative to it (os.Root's files lstat with fstatat, never by path). A
// name that is not a directory is syscall.ENOTDIR.
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.root.OpenFile(name, os.O_RDONLY|openDirOnly, 0)
	if err != nil {
		return nil, wrap("readdir", name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, wrap("readdir", name, err)
	} else if !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	if err := d.verify(f, "readdir", name); err != nil {
		return nil, err
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, wrap("readdir", name, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// FS returns the tree as an fs.FS (also fs.ReadDirFS and fs.StatFS) for
// fs.WalkDir: Open, ReadDir and Stat behave as the Dir's.
func (d *Dir) FS() fs.FS { return dirFS{d} }

type dirFS struct{ d *Dir }

func (f dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, _, err := f.d.Open(name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

func (f dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return f.d.ReadDir(name)
}

func (f dirFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return f.d.Stat(name)
}

// MkdirAll creates directory name and any missing parents with perm. Each
// directory is created inside its parent as opened and checked (never
// through a symlink out, never in a protected directory).
func (d *Dir) MkdirAll(name string, perm fs.FileMode) error {
	cur, err := d.openDirRoot("mkdir", ".")
	if err != nil {
		return err
	}
	done := "."
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(name)), "/") {
		if part == "." || part == "" {
			continue
		}
		if part == ".." {
			cur.Close()
			return &fs.PathError{Op: "mkdir", Path: name, Err: ErrOutside}
		}
		if err := cur.Mkdir(part, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			cur.Close()
			return wrap("mkdir", name, err)
		}
		next, err := cur.OpenRoot(asDir(part))
		cur.Close()
		if err != nil {
			return wrap("mkdir", name, err)
		}
		done = filepath.Join(done, part)
		if err := d.verifyRoot(next, "mkdir", done); err != nil {
			next.Close()
			return err
		}
		cur = next
	}
	return cur.Close()
}

// tmpSeq makes WriteFile's temp names unique within the process.
var tmpSeq atomic.Uint64

// WriteFile replaces name with data, atomically: the data goes to a temp
// file (".NAME.tmp-DIGITS") created in name's directory as opened and
// checked, is synced, given perm, and renamed over name in that same
// directory. The directory must exist. On error name is unchanged and no
// temp file is left.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	sub, base, err := d.openParent("write", name, syscall.EISDIR)
	if err != nil {
		return err
	}
	defer sub.Close()
	var tmpName string
	var tmp *os.File
	for range 100 { // another process's temp file may hold a name
		tmpName = "." + base + ".tmp-" + strconv.Itoa(os.Getpid()) + strconv.FormatUint(tmpSeq.Add(1), 10)
		if tmp, err = sub.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return wrap("write", name, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = sub.Rename(tmpName, base)
	}
	if err != nil {
		_ = sub.Remove(tmpName)
		return wrap("write", name, err)
	}
	return nil
}

// Remove removes the file (or empty directory) name from its directory as
// opened and checked; a final symlink is removed, not followed.
func (d *Dir) Remove(name string) error {
	sub, base, err := d.openParent("remove", name, syscall.EINVAL)
	if err != nil {
		return err
	}
	defer sub.Close()
	return wrap("remove", name, sub.Remove(base))
}

// Chtimes sets the access and modification times of the file name.
func (d *Dir) Chtimes(name string, atime, mtime time.Time) error {
	return wrap("chtimes", name, d.root.Chtimes(name, atime, mtime))
}

// openDirRoot opens the directory name as a Root of its own, checked:
// operations on single names in it then act in that very directory.
func (d *Dir) openDirRoot(op, name string) (*os.Root, error) {
	sub, err := d.root.OpenRoot(asDir(name))
	if err != nil {
		return nil, wrap(op, name, err)
	}
	if err := d.verifyRoot(sub, op, name); err != nil {
		sub.Close()
		return nil, err
	}
	return sub, nil
}

// verifyRoot checks the directory a Root holds (see verify).
func (d *Dir) verifyRoot(r *os.Root, op, name string) error {
	f, err := r.Open(".")
	if err != nil {
		return wrap(op, name, err)
	}
	defer f.Close()
	return d.verify(f, op, name)
}

// verify checks where the kernel says the open file f is: inside the
// tree, outside every protected directory. Where the kernel does not say
// (no /proc), the os.Root resolution alone confines.
func (d *Dir) verify(f *os.File, op, name string) error {
	p, err := fdPath(f)
	if errors.Is(err, errNoProc) {
		return nil
	}
	if err != nil {
		return wrap(op, name, err)
	}
	if !Within(d.path, p) {
		return &fs.PathError{Op: op, Path: name, Err: ErrOutside}
	}
	if d.Protected(p) {
		return &fs.PathError{Op: op, Path: name, Err: ErrProtected}
	}
	return nil
}

// openParent opens and checks the directory that holds name and returns
// it with name's last element; a name without one ("", ".", "..", "a/..")
// fails as op's *fs.PathError with noBase. The caller closes the Root.
func (d *Dir) openParent(op, name string, noBase error) (*os.Root, string, error) {
	parent, base := filepath.Split(filepath.Clean(name))
	if base == "" || base == "." || base == ".." {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: noBase}
	}
	if parent == "" {
		parent = "."
	}
	sub, err := d.openDirRoot(op, filepath.Clean(parent))
	if err != nil {
		return nil, "", err
	}
	return sub, base, nil
}

// asDir is name with a final "." component: os.Root opens every
// component but the last with O_DIRECTORY, so a FIFO (or a file) there
// fails at once with ENOTDIR instead of being opened — an open that
// would wait for a writer.
func asDir(name string) string { return name + string(filepath.Separator) + "." }

// escapeMsg is the text of os.Root's error for a path that leaves it.
const escapeMsg = "path escapes from parent"

// wrap returns err as a *fs.PathError of op on name, with os.Root's
// escape error as ErrOutside; nil stays nil.
func wrap(op, name string, err error) error {
	if err == nil || errors.Is(err, ErrOutside) || errors.Is(err, ErrProtected) || errors.Is(err, ErrNotRegular) {
		return err
	}
	inner := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		inner = pe.Err
	}
	for e := inner; e != nil; e = errors.Unwrap(e) {
		if e.Error() == escapeMsg {
			inner = ErrOutside
			break
		}
	}
	return &fs.PathError{Op: op, Path: name, Err: inner}
}
