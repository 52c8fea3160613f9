package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"agenthub/app/sandbox"
	"agenthub/app/tool"
)

// toolSandbox is the bash sandbox for cfg: nil with --sandbox off or where
// the kernel has no Landlock (then approvals are the only guard; --help
// and the log say so). Where the sandbox runs without namespaces, the app
// makes itself non-dumpable (sandbox.ProbeAndProtect).
func (in *Instance) toolSandbox(cfg Config) *tool.Sandbox {
	support, err := sandbox.ProbeAndProtect()
	if err != nil {
		in.log.Warn("the app stays dumpable", "err", err)
	}
	if cfg.Sandbox == "off" || !support.Files() {
		in.log.Info("bash runs unconfined", "sandbox", cfg.Sandbox, "kernel", support.String())
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		in.log.Warn("bash runs unconfined: cannot find this binary for the sandbox helper", "err", err)
		return nil
	}
	hidden := hiddenDirs(cfg.DataDir, os.Getenv, os.Getuid())
	sb := &tool.Sandbox{Helper: self, Hidden: hidden, UserModCache: userModCache(os.Getenv)}
	if c, err := os.UserCacheDir(); err == nil {
		sb.CacheDir = filepath.Join(c, "agenthub", "sandbox")
		for _, h := range hidden {
			if strings.HasPrefix(sb.CacheDir+"/", h+"/") {
				sb.CacheDir = "" // never inside what the sandbox hides
			}
		}
	}
	in.log.Debug("bash sandbox", "kernel", support.String(), "hidden", hidden, "caches", sb.CacheDir)
	return sb
}

// hiddenDirs are the directories no sandboxed command may see: the data
// dir (token, settings, keys, database, the global instructions), the
// session's runtime dir (D-Bus session bus, keyring and agent sockets) and
// the directory of SSH_AUTH_SOCK. A runtime or agent dir that holds the
// temp dir (where each call's TMPDIR lives) or is the home dir is left
// out: hiding it would hide the call's own files.
func hiddenDirs(dataDir string, getenv func(string) string, uid int) []string {
	out := []string{dataDir}
	tmp, home := os.TempDir(), getenv("HOME")
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = filepath.Clean(d)
		if d == "/" || d == home || d == filepath.Clean(tmp) || strings.HasPrefix(tmp, d+"/") {
			return
		}
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	if rd := getenv("XDG_RUNTIME_DIR"); rd != "" {
		add(rd)
	} else {
		add("/run/user/" + strconv.Itoa(uid))
	}
	if sock := getenv("SSH_AUTH_SOCK"); sock != "" {
		add(filepath.Dir(sock))
	}
	return out
}

// userModCache is the user's Go module cache: GOMODCACHE, else the first
// GOPATH entry's pkg/mod, else ~/go/pkg/mod.
func userModCache(getenv func(string) string) string {
	if v := getenv("GOMODCACHE"); v != "" {
		return v
	}
	gopath, _, _ := strings.Cut(getenv("GOPATH"), string(os.PathListSeparator))
	if gopath == "" {
		if h := getenv("HOME"); h != "" {
			gopath = filepath.Join(h, "go")
		}
	}
	if gopath == "" {
		return ""
	}
	return filepath.Join(gopath, "pkg", "mod")
}

// sandboxLine says in one line what confines bash (getSettings' sandbox).
func sandboxLine(cfg Config) string {
	if cfg.Sandbox == "off" {
		return "bash sandbox: off (--sandbox off) — tool approvals are the only guard"
	}
	return sandbox.Probe().String()
}

// sandboxProtections lists the protections active here (getSettings'
// sandbox_protections).
func sandboxProtections(cfg Config) []string {
	if cfg.Sandbox == "off" {
		return []string{"none: --sandbox off — tool approvals are the only guard"}
	}
	return sandbox.Probe().Protections()
}
