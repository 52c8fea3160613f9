package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// systemReadDirs are what a shell and the usual tools need to read and run
// when reads are confined to the workspace.
var systemReadDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/dev", "/run"}

// deviceFiles may be written by any confined process (redirections to
// /dev/null). /dev/tty is writable but has no ioctls: with no controlling
// terminal it does not even open.
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// Access right groups.
const (
	rightsRO   = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir | ll.AccessFSResolveUnix
	rightsFile = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
)

// handledFS is the file-system rights Landlock ABI abi knows.
func handledFS(abi int) uint64 {
	switch {
	case abi >= 9:
		return (1 << 17) - 1
	case abi >= 5:
		return (1 << 16) - 1
	case abi >= 3:
		return (1 << 15) - 1
	case abi == 2:
		return (1 << 14) - 1
	}
	return (1 << 13) - 1
}

// grant is one Landlock rule before carving.
type grant struct {
	path   string
	access uint64
	follow bool // a system path: follow symlinks (/lib -> usr/lib)
	opt    bool // missing is fine
}

// carve is a path taken out of the grants that contain it; residual is
// what of a grant's rights it keeps (0: nothing, hidden).
type carve struct {
	path     string
	residual uint64
}

// plan is the grants and carves for p on ABI abi (stage 2).
func (p Policy) plan(abi int) ([]grant, []carve) {
	handled := handledFS(abi)
	ro := rightsRO & handled
	rw := handled &^ ll.AccessFSIoctlDev
	mounted := func(path string) bool { return slices.Contains(p.Mounted, path) }
	var gs []grant
	if len(p.ReadDirs) == 0 {
		gs = append(gs, grant{path: "/", access: ro, follow: true})
	} else {
		for _, d := range systemReadDirs {
			gs = append(gs, grant{path: d, access: ro, follow: true, opt: true})
		}
		for _, d := range p.ReadDirs {
			gs = append(gs, grant{path: d, access: ro})
		}
	}
	for _, d := range p.WriteDirs {
		gs = append(gs, grant{path: d, access: rw})
	}
	for _, f := range deviceFiles {
		a := uint64(rightsFile &^ ll.AccessFSExecute)
		if f == "/dev/tty" {
			a &^= ll.AccessFSIoctlDev
		}
		gs = append(gs, grant{path: f, access: a & handled, follow: true, opt: true})
	}
	var cs []carve
	for _, d := range []string{"/dev/shm", "/dev/pts"} {
		if mounted(d) { // private ones: usable, still without ioctls
			gs = append(gs, grant{path: d, access: rw, follow: true, opt: true})
		} else { // the host's: shared memory and terminals of others
			cs = append(cs, carve{path: d})
		}
	}
	for _, h := range p.Hidden {
		if !mounted(h) {
			cs = append(cs, carve{path: h})
		}
	}
	for _, r := range p.ReadOnly {
		if !mounted(r) {
			cs = append(cs, carve{path: r, residual: ro})
		}
	}
	return gs, cs
}

// restrictLandlock applies p to the calling thread (stage 2 runs locked to
// one thread and execs from it, so the command inherits exactly this).
func restrictLandlock(p Policy, abi int) error {
	handled := handledFS(abi)
	attr := ll.RulesetAttr{HandledAccessFS: handled}
	if p.NoNetwork && abi >= 4 {
		attr.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	if abi >= 6 {
		// Signals and abstract UNIX sockets only within the sandbox: the
		// command can signal neither the app nor stage 1, nor reach an
		// abstract-socket D-Bus.
		attr.Scoped = ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	rs, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer unix.Close(rs)
	gs, cs := p.plan(abi)
	b := ruleBuilder{rs: rs, handled: handled}
	for _, g := range gs {
		if err := b.add(g, cs); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(rs, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

type ruleBuilder struct {
	rs      int
	handled uint64
}

// add adds grant g, carving out what of cs lies inside it.
func (b ruleBuilder) add(g grant, cs []carve) error {
	path := g.path
	if g.follow {
		r, err := filepath.EvalSymlinks(path)
		if err != nil {
			if g.opt {
				return nil
			}
			return fmt.Errorf("landlock: %w", err)
		}
		path = r
	}
	var inside []carve
	for _, c := range cs {
		if within(c.path, path) {
			inside = append(inside, c)
		}
	}
	fd, err := openNoFollow(path, 0)
	if err != nil {
		if g.opt && errors.Is(err, unix.ENOENT) {
			return nil
		}
		return fmt.Errorf("landlock: %w", err)
	}
	defer unix.Close(fd)
	return b.addFD(fd, path, g.access, inside)
}

// addFD grants access on the hierarchy at fd (path names it) minus cs:
// a directory holding a carved path gets only the right to list it, its
// other entries their full grant (files their file rights), and the
// walk goes down towards each carved path. Entries are opened relative to
// their directory without following symlinks; a symlink needs no rule
// (its target is governed by the target's own rules).
func (b ruleBuilder) addFD(fd int, path string, access uint64, cs []carve) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: stat %s: %w", path, err)
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return nil
	case !isDir:
		access &= rightsFile
	}
	for _, c := range cs {
		if c.path == path {
			if a := access & c.residual; a != 0 {
				return b.rule(fd, path, a)
			}
			return nil
		}
	}
	if len(cs) == 0 || !isDir {
		return b.rule(fd, path, access)
	}
	if err := b.rule(fd, path, access&ll.AccessFSReadDir); err != nil {
		return err
	}
	dir, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock: open %s: %w", path, err)
	}
	names, err := readNames(dir)
	unix.Close(dir)
	if err != nil {
		return fmt.Errorf("landlock: list %s: %w", path, err)
	}
	for _, name := range names {
		child := filepath.Join(path, name)
		var inside []carve
		for _, c := range cs {
			if within(c.path, child) {
				inside = append(inside, c)
			}
		}
		cfd, err := unix.Openat(fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // gone meanwhile
		}
		err = b.addFD(cfd, child, access, inside)
		unix.Close(cfd)
		if err != nil {
			return err
		}
	}
	return nil
}

func (b ruleBuilder) rule(fd int, path string, access uint64) error {
	access &= b.handled
	if access == 0 {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(b.rs, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("landlock: rule for %s: %w", path, err)
	}
	return nil
}

// readNames lists directory fd (all entries but . and ..).
func readNames(fd int) ([]string, error) {
	var names []string
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}
