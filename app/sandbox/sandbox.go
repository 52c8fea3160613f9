// Package sandbox confines the processes a tool starts (bash). The
// confinement is applied by a helper — the app's own binary re-executed
// with the internal sub-command HelperArg — so the app process itself is
// never restricted. The helper has two stages:
//
//   - Stage 1 is the supervisor. Where the kernel lets an unprivileged
//     process create user namespaces (or the app is root), it is started
//     in new user, mount, PID and IPC namespaces and is PID 1 there: it
//     hides the Policy's Hidden directories (the data dir, the session
//     bus's XDG_RUNTIME_DIR) under empty read-only tmpfs mounts, binds
//     the ReadOnly paths (.git) read-only, mounts a fresh /proc, a private
//     /dev/shm and a new /dev/pts instance. Elsewhere ("fallback") it is a
//     child subreaper. Either way it starts stage 2, forwards SIGTERM and
//     SIGINT, and when the command ends it kills everything the command
//     left behind and exits with the command's status: nothing outlives
//     the call.
//   - Stage 2 drops every capability, sets no_new_privs, applies Landlock
//     (writes only in WriteDirs; reads everywhere or only in ReadDirs; TCP
//     off on request; signals and abstract sockets scoped) and a seccomp
//     filter (no TIOCSTI/TIOCLINUX, no kernel keyrings), then execs the
//     command. Landlock cannot subtract a directory from a grant, so what
//     stage 1 could not hide with a mount is carved out of the grants
//     entry by entry (see landlock_linux.go).
//
// The command runs in a new session with no controlling terminal.
// Where the kernel has no Landlock, nothing is enforced: Probe says so,
// and approvals are the only guard (docs/permissions.md).
package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// HelperArg is the internal sub-command that turns the app's binary into
// the sandbox helper: `agenthub HelperArg POLICY -- ARGV...`. main runs
// Dispatch before anything else.
const HelperArg = "__agenthub-sandbox-exec"

// Stage markers that follow HelperArg (never valid base64url, so never a
// policy).
const (
	stage2Arg = ":exec"
	probeArg  = ":probe"
)

// Policy is what a confined process may do.
type Policy struct {
	// WriteDirs may be written (created, deleted, renamed within and
	// between them); everything else is read-only at most. The workspace,
	// the call's temp dir and the sandbox's private caches go here.
	WriteDirs []string `json:"write_dirs"`
	// ReadDirs, when non-empty, are the only places that may be read (plus
	// WriteDirs and the system directories a shell needs to run); empty
	// means reads everywhere.
	ReadDirs []string `json:"read_dirs,omitempty"`
	// NoNetwork denies TCP bind and connect (Landlock ABI 4 and later).
	NoNetwork bool `json:"no_network,omitempty"`
	// Hidden directories can be neither read nor written, wherever they
	// are — inside a WriteDir included (the data dir when the workspace
	// is $HOME). Missing ones are ignored. A Hidden directory may not
	// contain a WriteDir or a ReadDir.
	Hidden []string `json:"hidden,omitempty"`
	// ReadOnly paths (directories or files) inside WriteDirs stay
	// readable but are never written: the workspace's .git.
	ReadOnly []string `json:"read_only,omitempty"`
	// Fallback skips the namespaces even where the kernel has them, so
	// tests can check the Landlock-only mode.
	Fallback bool `json:"fallback,omitempty"`
	// GraceMS is how long what the command left running gets between
	// SIGTERM and SIGKILL once the command has ended (0: 500 ms).
	GraceMS int `json:"grace_ms,omitempty"`

	// Set by Command and stage 1, not by callers.
	Namespaces bool `json:"namespaces,omitempty"`
	// Mounted lists what stage 1 did with mounts (Hidden and ReadOnly
	// paths, "/dev/shm", "/dev/pts"); stage 2 carves the rest out of the
	// Landlock grants.
	Mounted []string `json:"mounted,omitempty"`
}

// Support is what the running kernel can enforce.
type Support struct {
	// ABI is the kernel's Landlock ABI version; 0 means no Landlock.
	ABI int
	// Namespaces: the helper can run in its own user, mount and PID
	// namespaces.
	Namespaces bool
	// FreshProc: a private /proc mounts in them (false where /proc is
	// partly masked, as in some containers).
	FreshProc bool
	// Seccomp: the kernel takes seccomp filters.
	Seccomp bool
	// System names the operating system where this sandbox does not exist
	// at all ("Windows", "macOS"; "" on Linux): there bash runs with the
	// user's rights, and String and Protections say so.
	System string
}

// noSandbox is what String and Protections say where System is set.
func (s Support) noSandbox() string {
	return "no sandbox on this system (" + s.System + "): bash runs with your rights — tool approvals are the only guard"
}

// Files reports whether write (and read) confinement is enforced.
func (s Support) Files() bool { return s.ABI >= 1 }

// Network reports whether TCP can be switched off (ABI 4: kernel 6.7+).
func (s Support) Network() bool { return s.ABI >= 4 }

// String says in one line what is enforced, for --help and the UI.
func (s Support) String() string {
	if s.System != "" {
		return "bash sandbox: " + s.noSandbox()
	}
	if !s.Files() {
		return "bash sandbox: nothing enforced (this kernel has no Landlock) — tool approvals are the only guard"
	}
	mode := "Landlock only (no user namespaces here): the data dir is carved out of Landlock's grants, the session bus stays reachable"
	if s.Namespaces {
		mode = "namespaces + Landlock: data dir, session bus and other processes out of sight"
	}
	net := "network rules available"
	if !s.Network() {
		net = "network rules need kernel 6.7+"
	}
	return fmt.Sprintf("bash sandbox: %s; writes only in the workspace, temp and private caches (Landlock ABI %d; %s)", mode, s.ABI, net)
}

// Protections lists, one line each, the protections active on this
// machine (getSettings' sandbox_protections, --help).
func (s Support) Protections() []string {
	if s.System != "" {
		return []string{"none: " + s.noSandbox()}
	}
	if !s.Files() {
		return []string{"none: this kernel has no Landlock — tool approvals are the only guard"}
	}
	out := []string{fmt.Sprintf("Landlock ABI %d: writes only in the workspace, the call's temp dir and the sandbox's private caches; .git read-only unless allowed", s.ABI)}
	if s.Namespaces {
		line := "user, mount and PID namespaces: the data dir and XDG_RUNTIME_DIR (session bus, keyring) hidden, private /dev/shm and /dev/pts, nothing outlives the call"
		if s.FreshProc {
			line += ", a private /proc (the app's process invisible)"
		}
		out = append(out, line)
	} else {
		out = append(out, "no user namespaces here: the data dir, /dev/shm and /dev/pts are carved out of Landlock's grants; escaped processes are reaped by a subreaper")
	}
	if s.Seccomp {
		out = append(out, "seccomp: no terminal input injection (TIOCSTI, TIOCLINUX), no kernel keyrings")
	}
	if s.Network() {
		out = append(out, "network: TCP can be switched off per session (Landlock ABI 4+)")
	}
	if s.ABI >= 6 {
		out = append(out, "signals and abstract sockets scoped to the sandbox (Landlock ABI 6+)")
	}
	out = append(out, "no controlling terminal; an explicit environment without the app's credentials")
	return out
}

// DefaultGrace is Policy.GraceMS's default.
const DefaultGrace = 500

// Command returns the argv and process attributes that run argv confined
// by p: the helper (the binary at self) with the encoded policy, in a new
// session, in new namespaces where Probe found them usable (and p does
// not ask for the fallback). The result runs argv[0] by PATH lookup, like
// exec.Command. Policy paths must be absolute; they are resolved to real
// paths here, and a Hidden directory containing a WriteDir or ReadDir is
// an error.
func Command(self string, p Policy, argv []string) ([]string, *syscall.SysProcAttr, error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("sandbox: empty command")
	}
	if !filepath.IsAbs(self) {
		return nil, nil, fmt.Errorf("sandbox: helper path %q is not absolute", self)
	}
	if err := p.normalize(); err != nil {
		return nil, nil, err
	}
	p.Namespaces = !p.Fallback && probeHelper(self).Namespaces
	b, err := json.Marshal(p)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	args := append([]string{self, HelperArg, base64.RawURLEncoding.EncodeToString(b), "--"}, argv...)
	return args, sysProcAttr(p.Namespaces), nil
}

// normalize checks p's paths and resolves them: write and read dirs must
// exist; missing Hidden and ReadOnly paths are dropped.
func (p *Policy) normalize() error {
	real := func(list []string, must bool) ([]string, error) {
		var out []string
		for _, d := range list {
			if !filepath.IsAbs(d) {
				return nil, fmt.Errorf("sandbox: policy path %q is not absolute", d)
			}
			r, err := filepath.EvalSymlinks(d)
			if err != nil {
				if must {
					return nil, fmt.Errorf("sandbox: %w", err)
				}
				continue
			}
			out = append(out, r)
		}
		return out, nil
	}
	var err error
	if p.WriteDirs, err = real(p.WriteDirs, true); err != nil {
		return err
	}
	if p.ReadDirs, err = real(p.ReadDirs, true); err != nil {
		return err
	}
	if p.Hidden, err = real(p.Hidden, false); err != nil {
		return err
	}
	if p.ReadOnly, err = real(p.ReadOnly, false); err != nil {
		return err
	}
	for _, h := range p.Hidden {
		for _, d := range append(append([]string(nil), p.WriteDirs...), p.ReadDirs...) {
			if within(d, h) {
				return fmt.Errorf("sandbox: %s is inside %s, which the sandbox hides (the data dir or the session's runtime dir); pick a workspace outside it", d, h)
			}
		}
	}
	return nil
}

// within reports whether path is dir or lies beneath it (both clean and
// absolute).
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// encode and decode the policy argument.
func encodePolicy(p Policy) (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode policy: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// decodeHelperArgs parses `POLICY -- ARGV...` (what follows HelperArg or
// stage2Arg).
func decodeHelperArgs(args []string) (Policy, []string, error) {
	var p Policy
	if len(args) < 3 || args[1] != "--" {
		return p, nil, errors.New("usage: " + HelperArg + " POLICY -- COMMAND [ARG...]")
	}
	b, err := base64.RawURLEncoding.DecodeString(args[0])
	if err != nil {
		return p, nil, fmt.Errorf("policy: %w", err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, nil, fmt.Errorf("policy: %w", err)
	}
	return p, args[2:], nil
}

// Dispatch runs the helper and exits when this process was started as one
// (os.Args[1] == HelperArg); otherwise it records that this binary can
// serve as the helper (Probe may then start it) and returns. main, and
// the TestMain of every package that runs sandboxed commands, call it
// first.
func Dispatch() {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(RunHelper(os.Args[2:]))
	}
	selfDispatches.Store(true)
}

// RunHelper is the helper's main (args: what follows HelperArg). It
// returns the exit status to use: the command's, or 126 when the sandbox
// cannot be applied (as a shell does for a command it cannot run).
func RunHelper(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case stage2Arg:
			return runStage2(args[1:])
		case probeArg:
			return runProbe()
		}
	}
	return runStage1(args)
}

// failf reports a helper failure on stderr (the command's output) and
// returns 126.
func failf(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "agenthub sandbox: "+format+"\n", a...)
	return 126
}

// baseEnvNames are taken from the app's environment for every process a
// tool or an MCP server runs; baseEnvPrefixes likewise by prefix. Go's own
// configuration is passed so builds behave as the user set them up (no
// credential lives there). Nothing else is: not the provider keys, not
// AGENTHUB_*, not DBUS_SESSION_BUS_ADDRESS, SSH_AUTH_SOCK or
// GPG_AGENT_INFO.
var (
	baseEnvNames = []string{"PATH", "HOME", "LANG", "LANGUAGE", "TERM", "USER", "LOGNAME", "SHELL",
		"GOFLAGS", "GOTOOLCHAIN", "GONOSUMDB", "GONOPROXY", "GOPRIVATE", "GOSUMDB"}
	baseEnvPrefixes = []string{"LC_"}
)

// BaseEnv is the explicit environment of a tool process or MCP server:
// the names above and the platform's own (platformEnvNames; on Windows
// matched regardless of case, as Windows does) from environ (the app's),
// then extra (what the user configured), sorted by name; extra wins. The caller appends TMPDIR and
// the variables it controls after it.
func BaseEnv(environ []string, extra map[string]string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		is := func(n string) bool { return envNameIs(name, n) }
		keep := slices.ContainsFunc(baseEnvNames, is) || slices.ContainsFunc(platformEnvNames, is)
		for _, p := range baseEnvPrefixes {
			keep = keep || strings.HasPrefix(name, p)
		}
		over := slices.ContainsFunc(slices.Collect(maps.Keys(extra)), is)
		if keep && !over {
			out = append(out, kv)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		out = append(out, name+"="+extra[name])
	}
	return out
}
