package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// selfDispatches is set by Dispatch: this binary serves as the helper.
var selfDispatches atomic.Bool

// probes caches one Support per helper path.
var probes sync.Map // string → func() Support

// Probe says what the kernel enforces for this binary's helper (the
// namespaces are tried by starting it once; a binary that does not
// Dispatch is probed with `true` instead, which cannot tell whether a
// fresh /proc mounts).
func Probe() Support {
	self, err := os.Executable()
	if err != nil || !selfDispatches.Load() {
		self = ""
	}
	return probeHelper(self)
}

// probeHelper is Probe for the helper at self ("" for none), once per path.
func probeHelper(self string) Support {
	f, _ := probes.LoadOrStore(self, sync.OnceValue(func() Support { return probe(self) }))
	return f.(func() Support)()
}

func probe(self string) Support {
	var s Support
	if v, err := llsys.LandlockGetABIVersion(); err == nil && v > 0 {
		s.ABI = v
	}
	s.Seccomp = seccomp.Supported()
	var cmd *exec.Cmd
	if self != "" {
		cmd = exec.Command(self, HelperArg, probeArg)
	} else if t, err := exec.LookPath("true"); err == nil {
		cmd = exec.Command(t)
	} else {
		return s
	}
	cmd.SysProcAttr = sysProcAttr(true)
	cmd.Env = []string{}
	out, err := cmd.Output()
	if err != nil {
		return s
	}
	s.Namespaces = true
	if self != "" {
		var r probeResult
		// Without a private /proc the app's process would be in sight
		// (and a non-dumpable app cannot map ids for a child's user
		// namespace): the fallback, with ProtectSelf, is safer then.
		if json.Unmarshal(out, &r) != nil || !r.Mounts || !r.Proc {
			s.Namespaces = false
		}
		s.FreshProc = r.Proc
	}
	return s
}

// probeResult is what the helper's probe stage prints.
type probeResult struct {
	Mounts bool `json:"mounts"` // private propagation and a tmpfs mount work
	Proc   bool `json:"proc"`   // a fresh /proc mounts
}

// runProbe is the probe stage: run in the namespaces sysProcAttr makes,
// it tries the mounts stage 1 needs and prints what worked.
func runProbe() int {
	var r probeResult
	if unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") == nil &&
		unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777") == nil {
		r.Mounts = true
		r.Proc = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "") == nil
	}
	b, _ := json.Marshal(r)
	os.Stdout.Write(b)
	return 0
}

// sysProcAttr starts the helper in a new session (no controlling
// terminal), killed with the app; with namespaces, in new user, mount,
// PID and IPC namespaces, as the caller's uid and gid, with CAP_SYS_ADMIN
// (to mount) and CAP_SETPCAP (to empty the bounding set) kept across exec:
// stage 2 drops every capability.
func sysProcAttr(namespaces bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if namespaces {
		uid, gid := os.Getuid(), os.Getgid()
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
	}
	return a
}

// ProbeAndProtect probes (as Probe) and, where the sandbox will run
// without namespaces, makes this process non-dumpable: a process of the
// same user without CAP_SYS_PTRACE — a sandboxed command, whose
// capabilities are gone — can then neither ptrace it nor read its
// /proc/<pid>/environ (which holds the provider keys), mem or fds. With
// the namespaces the app is not in the command's /proc at all, and it
// must stay dumpable: the kernel lets only a dumpable parent map the ids
// of a child's user namespace. The app calls it once at start.
func ProbeAndProtect() (Support, error) {
	s := Probe()
	if s.Namespaces {
		return s, nil
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return s, fmt.Errorf("sandbox: PR_SET_DUMPABLE: %w", err)
	}
	return s, nil
}
