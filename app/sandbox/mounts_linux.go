package sandbox

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// setupMounts runs in stage 1's fresh mount namespace. It returns the
// paths it dealt with (Hidden and ReadOnly ones, "/dev/shm", "/dev/pts");
// stage 2 carves whatever is missing out of its Landlock grants, so a
// failed mount never widens access. Every target is opened without
// following symlinks and mounted through its descriptor, so a path
// swapped by a concurrent command cannot redirect a mount.
func setupMounts(p Policy) (done []string) {
	// Nothing done here propagates back to the app's namespace.
	if unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") != nil {
		return nil
	}
	// Pin the directories between a write dir and a protected path first
	// (a mount point cannot be renamed or removed, so the protected path
	// stays where the mounts are), then cover the protected paths.
	pinned := func(target string) bool {
		for _, w := range p.WriteDirs {
			if target == w || !within(target, w) {
				continue
			}
			rel, _ := filepath.Rel(w, filepath.Dir(target))
			d := w
			for _, part := range strings.Split(rel, "/") {
				if part == "." {
					break
				}
				d = filepath.Join(d, part)
				if bindSelf(d) != nil {
					return false
				}
			}
		}
		return true
	}
	for _, h := range p.Hidden {
		if pinned(h) && hideDir(h) == nil {
			done = append(done, h)
		}
	}
	for _, r := range p.ReadOnly {
		if pinned(r) && bindReadOnly(r) == nil {
			done = append(done, r)
		}
	}
	if unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777") == nil {
		done = append(done, "/dev/shm")
	}
	// A new devpts instance: the user's terminals are not in it. Failing
	// that, an empty read-only tmpfs.
	if unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") == nil ||
		unix.Mount("tmpfs", "/dev/pts", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "mode=0755") == nil {
		done = append(done, "/dev/pts")
	}
	// A /proc of this PID namespace only: the app and the user's other
	// processes are not in it. It fails where /proc is partly masked
	// (some containers); the app is non-dumpable there (app/tool), so its
	// environ stays unreadable anyway.
	_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	return done
}

// openNoFollow opens path (absolute, real) as an O_PATH descriptor,
// refusing any symlink on the way.
func openNoFollow(path string, flags uint64) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC | flags,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", path, err)
	}
	return fd, nil
}

func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// hideDir covers directory path with an empty read-only tmpfs.
func hideDir(path string) error {
	fd, err := openNoFollow(path, unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Mount("tmpfs", fdPath(fd), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "mode=0755,size=4k")
}

// bindSelf makes directory path a mount point (a bind of itself, with
// what is mounted below it).
func bindSelf(path string) error {
	fd, err := openNoFollow(path, unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Mount(fdPath(fd), fdPath(fd), "", unix.MS_BIND|unix.MS_REC, "")
}

// bindReadOnly binds path (a directory or a file) read-only onto itself:
// a detached clone of it is made read-only, then moved over it.
func bindReadOnly(path string) error {
	fd, err := openNoFollow(path, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", path, err)
	}
	defer unix.Close(tree)
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("mount_setattr %s: %w", path, err)
	}
	if err := unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", path, err)
	}
	return nil
}
