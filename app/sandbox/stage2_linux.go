package sandbox

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// runStage2 confines this thread — capabilities dropped, no_new_privs,
// Landlock, seccomp — and execs the command from it (see the package
// doc). It returns only on failure.
func runStage2(args []string) int {
	// Everything below acts on the calling thread only, and execve keeps
	// exactly that thread's state: stay on it.
	runtime.LockOSThread()
	p, argv, err := decodeHelperArgs(args)
	if err != nil {
		return failf("%v", err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "agenthub sandbox: %v\n", err)
		return 127
	}
	if err := dropCapabilities(); err != nil {
		return failf("cannot drop capabilities: %v", err)
	}
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return failf("this kernel has no Landlock")
	}
	if err := restrictLandlock(p, abi); err != nil {
		return failf("cannot apply the sandbox: %v", err)
	}
	if seccomp.Supported() {
		if err := seccomp.LoadFilter(seccomp.Filter{NoNewPrivs: true, Policy: seccompPolicy()}); err != nil {
			return failf("cannot apply the seccomp filter: %v", err)
		}
	}
	err = syscall.Exec(path, argv, os.Environ())
	return failf("exec %s: %v", path, err)
}

// dropCapabilities empties this thread's bounding, ambient, permitted,
// effective and inheritable sets, so neither this process nor anything it
// execs (root included) holds a capability.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	// Only a holder of CAP_SETPCAP can shrink the bounding set; without
	// it (an unprivileged fallback) no_new_privs keeps the set from
	// mattering.
	canDrop := data[0].Effective&(1<<unix.CAP_SETPCAP) != 0
	for c := 0; c <= unix.CAP_LAST_CAP+8; c++ { // a newer kernel may know more
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil && canDrop {
			return fmt.Errorf("bounding set: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("ambient set: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// Terminal ioctls the filter refuses: TIOCSTI pushes input into a
// terminal, TIOCLINUX does the same through the console's selection.
const (
	tiocsti   = 0x5412
	tioclinux = 0x541C
)

// seccompPolicy refuses (EPERM) terminal input injection and the kernel
// keyrings (a user's session keyring can hold credentials); everything
// else is left to Landlock.
func seccompPolicy() seccomp.Policy {
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{{
			Action: seccomp.ActionErrno,
			Names:  []string{"keyctl", "add_key", "request_key"},
			NamesWithCondtions: []seccomp.NameWithConditions{
				{Name: "ioctl", Conditions: low32Equals(1, tiocsti)},
				{Name: "ioctl", Conditions: low32Equals(1, tioclinux)},
			},
		}},
	}
}

// low32Equals matches when the low 32 bits of argument arg equal v,
// whatever the high bits hold: the kernel reads an ioctl request as an
// unsigned int, so comparing all 64 bits would let 0x1_0000_5412 through.
// It says "no bit outside v is set" and "each bit of v is set".
func low32Equals(arg uint32, v uint32) seccomp.ArgumentConditions {
	conds := seccomp.ArgumentConditions{{Argument: arg, Operation: seccomp.BitsNotSet, Value: uint64(^v)}}
	for rest := v; rest != 0; rest &= rest - 1 {
		bit := uint64(1) << bits.TrailingZeros32(rest)
		conds = append(conds, seccomp.Condition{Argument: arg, Operation: seccomp.BitsSet, Value: bit})
	}
	return conds
}
