// Package sandbox confines the processes a tool starts (bash) with Linux
// Landlock: writes only inside the directories a Policy names, reads
// everywhere or only inside the workspace, TCP on or off. The confinement
// is applied by a helper — the app's own binary re-executed with the
// internal sub-command HelperArg — which restricts itself and then execs
// the command, so the app process itself is never restricted.
//
// Where the kernel has no Landlock, nothing is enforced: Probe says so,
// and approvals are the only guard (docs/sandbox.md).
package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// HelperArg is the internal sub-command that turns the app's binary into
// the sandbox helper: `agenthub HelperArg POLICY -- ARGV...`. main runs
// RunHelper when it sees it, before anything else.
const HelperArg = "__agenthub-sandbox-exec"

// Policy is what a confined process may do.
type Policy struct {
	// WriteDirs may be written (created, deleted, renamed within and
	// between them); everything else is read-only at most. The workspace,
	// the session's temp dir and the build caches go here.
	WriteDirs []string `json:"write_dirs"`
	// ReadDirs, when non-empty, are the only places that may be read (plus
	// WriteDirs and the system directories a shell needs to run); empty
	// means reads everywhere.
	ReadDirs []string `json:"read_dirs,omitempty"`
	// NoNetwork denies TCP bind and connect (Landlock ABI 4 and later).
	NoNetwork bool `json:"no_network,omitempty"`
}

// Support is what the running kernel can enforce.
type Support struct {
	// ABI is the kernel's Landlock ABI version; 0 means no Landlock.
	ABI int
}

// Probe asks the kernel which Landlock ABI it supports.
func Probe() Support {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return Support{}
	}
	return Support{ABI: v}
}

// Files reports whether write (and read) confinement is enforced.
func (s Support) Files() bool { return s.ABI >= 1 }

// Network reports whether TCP can be switched off (ABI 4: kernel 6.7+).
func (s Support) Network() bool { return s.ABI >= 4 }

// String says in one line what is enforced, for --help and the UI.
func (s Support) String() string {
	switch {
	case !s.Files():
		return "bash sandbox: nothing enforced (this kernel has no Landlock) — tool approvals are the only guard"
	case !s.Network():
		return fmt.Sprintf("bash sandbox: writes confined to the workspace, temp and cache dirs (Landlock ABI %d); network rules need kernel 6.7+", s.ABI)
	default:
		return fmt.Sprintf("bash sandbox: writes confined to the workspace, temp and cache dirs (Landlock ABI %d; network rules available)", s.ABI)
	}
}

// DefaultCacheDirs are the build caches a confined command may write so
// `go build`, `go test` and `npm ci` still work: GOCACHE, GOMODCACHE and
// npm's cache, from the environment or their defaults under home. Only
// those that exist are returned.
func DefaultCacheDirs(getenv func(string) string, home string) []string {
	var out []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	cache := getenv("XDG_CACHE_HOME")
	if cache == "" && home != "" {
		cache = filepath.Join(home, ".cache")
	}
	if v := getenv("GOCACHE"); v != "" {
		add(v)
	} else if cache != "" {
		add(filepath.Join(cache, "go-build"))
	}
	gopath := getenv("GOPATH")
	if gopath == "" && home != "" {
		gopath = filepath.Join(home, "go")
	}
	if v := getenv("GOMODCACHE"); v != "" {
		add(v)
	} else if first, _, _ := strings.Cut(gopath, string(os.PathListSeparator)); first != "" {
		add(filepath.Join(first, "pkg", "mod"))
	}
	if v := getenv("npm_config_cache"); v != "" {
		add(v)
	} else if home != "" {
		add(filepath.Join(home, ".npm"))
	}
	return out
}

// Command returns the argv that runs argv confined by p: the helper (the
// binary at self) with the encoded policy. The result runs argv[0] by
// PATH lookup, like exec.Command.
func Command(self string, p Policy, argv []string) ([]string, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if !filepath.IsAbs(self) {
		return nil, fmt.Errorf("sandbox: helper path %q is not absolute", self)
	}
	for _, d := range append(append([]string(nil), p.WriteDirs...), p.ReadDirs...) {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("sandbox: policy path %q is not absolute", d)
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	return append([]string{self, HelperArg, base64.RawURLEncoding.EncodeToString(b), "--"}, argv...), nil
}

// decodeHelperArgs parses `POLICY -- ARGV...` (what follows HelperArg).
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
