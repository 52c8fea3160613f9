package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// systemReadDirs are what a shell and the usual tools need to read and run
// when reads are confined to the workspace.
var systemReadDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/dev", "/run"}

// deviceFiles may be written by any confined process (redirections to
// /dev/null, terminals).
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// rules turns p into Landlock rules.
func (p Policy) rules() []landlock.Rule {
	var rules []landlock.Rule
	if len(p.ReadDirs) == 0 {
		rules = append(rules, landlock.RODirs("/"))
	} else {
		rules = append(rules, landlock.RODirs(systemReadDirs...).IgnoreIfMissing(), landlock.RODirs(p.ReadDirs...))
	}
	rules = append(rules,
		landlock.RWDirs(p.WriteDirs...).WithRefer(),
		landlock.RWFiles(deviceFiles...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
	)
	return rules
}

// RunHelper is the helper's main (args: what follows HelperArg): it
// restricts this process by the policy — as far as the kernel allows —
// and execs the command, so it returns only on failure, with the exit
// status to use (126, as a shell does for a command it cannot run).
func RunHelper(args []string) int {
	p, argv, err := decodeHelperArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agenthub sandbox: %v\n", err)
		return 126
	}
	if err := restrict(p); err != nil {
		fmt.Fprintf(os.Stderr, "agenthub sandbox: cannot apply the sandbox: %v\n", err)
		return 126
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "agenthub sandbox: %v\n", err)
		return 127
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "agenthub sandbox: exec %s: %v\n", path, err)
	return 126
}

// restrict applies p to this process and every thread of it.
func restrict(p Policy) error {
	cfg := landlock.V8.BestEffort()
	if err := cfg.RestrictPaths(p.rules()...); err != nil {
		return fmt.Errorf("file rules: %w", err)
	}
	if p.NoNetwork {
		if err := cfg.RestrictNet(); err != nil { // no rule: no TCP bind or connect
			return fmt.Errorf("network rules: %w", err)
		}
	}
	// Signals and abstract sockets only within the sandbox (ABI 6): the
	// confined command cannot signal the app.
	if err := cfg.RestrictScoped(); err != nil {
		return fmt.Errorf("scope rules: %w", err)
	}
	return nil
}
