package tool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	sbx "agenthub/app/sandbox"
)

// command builds the process for one bash call in dir: `Shell -c line`
// with an explicit environment (toolEnv) and a temp dir of its own
// (TMPDIR, removed by cleanup), in a new session (no controlling
// terminal). With Options.Sandbox it runs through the sandbox helper:
// writes confined to the workspace, the temp dir and the sandbox's
// private caches; the data dir and the session's runtime dir hidden;
// .git read-only unless gitWrites; reads and TCP as e asks. When
// e.ReadOnly says so (plan mode) the workspace is read-only too and reads
// stay inside it: only the temp dir and the caches may be written.
func (t *bashTool) command(dir, line string, e Env, gitWrites bool) (cmd *exec.Cmd, cleanup func(), err error) {
	argv := shellArgv(t.opts.Shell, line)
	tmp, err := os.MkdirTemp("", "agenthub-bash-")
	if err != nil {
		return nil, nil, fmt.Errorf("temp dir: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	var extra map[string]string
	if t.opts.Env != nil {
		extra = t.opts.Env()
	}
	env := sbx.BaseEnv(os.Environ(), extra)
	env = append(env, "TMPDIR="+tmp)
	if runtime.GOOS == "windows" { // where Windows programs look
		env = append(env, "TEMP="+tmp, "TMP="+tmp)
	}
	var attr *syscall.SysProcAttr // startGroup adds the new session
	if sb := t.opts.Sandbox; sb != nil {
		caches, cacheEnv, err := sb.caches()
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		env = append(env, cacheEnv...)
		readOnly := e.ReadOnly != nil && e.ReadOnly()
		p := sbx.Policy{
			WriteDirs: append([]string{dir, tmp}, caches...),
			NoNetwork: e.NoNetwork,
			Hidden:    sb.Hidden,
			Fallback:  sb.Fallback,
			GraceMS:   int(t.opts.KillGrace.Milliseconds()),
		}
		if e.ReadWorkspaceOnly || readOnly {
			p.ReadDirs = append([]string{dir, tmp}, caches...)
		}
		switch {
		case readOnly:
			p.WriteDirs = append([]string{tmp}, caches...)
		case !gitWrites:
			p.ReadOnly = gitPaths(dir)
		}
		if argv, attr, err = sbx.Command(sb.Helper, p, argv); err != nil {
			cleanup()
			return nil, nil, err
		}
	}
	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.SysProcAttr = dir, env, attr
	return cmd, cleanup, nil
}

// gitPaths is what of the repository in ws stays read-only: ws/.git (a
// directory, or the file of a worktree or submodule) and, for such a
// file, the git directory it names when that lies inside ws.
func gitPaths(ws string) []string {
	dotgit := filepath.Join(ws, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return nil
	}
	out := []string{dotgit}
	if fi.Mode().IsRegular() {
		b, _ := os.ReadFile(dotgit)
		if gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
			gd = strings.TrimSpace(gd)
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(ws, gd)
			}
			if gd = filepath.Clean(gd); strings.HasPrefix(gd, ws+string(filepath.Separator)) {
				out = append(out, gd)
			}
		}
	}
	return out
}

// caches makes the sandbox's private cache dirs (persistent, so builds
// stay fast) and returns them with the environment that points the tools
// at them: Go's build and module caches, npm's cache and XDG_CACHE_HOME.
// Go modules the user already has are read from the user's module cache
// through GOPROXY's file:// form, never written there.
func (sb *Sandbox) caches() (dirs, env []string, err error) {
	if sb.CacheDir == "" {
		return nil, nil, nil
	}
	sub := map[string]string{"GOCACHE": "go-build", "GOMODCACHE": "go-mod", "npm_config_cache": "npm", "XDG_CACHE_HOME": "xdg"}
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "XDG_CACHE_HOME"} {
		d := filepath.Join(sb.CacheDir, sub[name])
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, nil, fmt.Errorf("sandbox cache: %w", err)
		}
		env = append(env, name+"="+d)
	}
	if sb.UserModCache != "" {
		if fi, err := os.Stat(filepath.Join(sb.UserModCache, "cache", "download")); err == nil && fi.IsDir() {
			upstream := os.Getenv("GOPROXY")
			if upstream == "" {
				upstream = "https://proxy.golang.org,direct"
			}
			env = append(env, "GOPROXY=file://"+filepath.ToSlash(filepath.Join(sb.UserModCache, "cache", "download"))+","+upstream)
		}
	}
	return []string{sb.CacheDir}, env, nil
}

// gitReadOnlyHint is appended to a failed call that ran into the
// read-only .git.
const gitReadOnlyHint = "[.git is read-only in the sandbox. To let commands write it, allow git writes for this workspace (Settings → Permissions), or tick \"allow git writes\" when approving the call.]"

// hitReadOnlyGit reports whether output looks like a refused write into
// .git (git's own messages name the file).
func hitReadOnlyGit(output string) bool {
	return strings.Contains(output, ".git") &&
		(strings.Contains(output, "Read-only file system") || strings.Contains(output, "Permission denied"))
}
