package tool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"agenthub/app/sandbox/sandboxtest"
)

// Row 9 of the attacks: bash gets an explicit environment — no provider
// key, nothing of Agent Hub's, no session bus or agent socket — plus the
// user's tool_env. (It failed while bash inherited the app's environment.)
func TestBashEnvironmentIsExplicit(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("OPENAI_API_KEY", "sk-openai-secret")
	t.Setenv("AGENTHUB_TEST_CONTROL", "stdio")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1")
	t.Setenv("LC_TIME", "C")
	opts := testOpts
	opts.Env = func() map[string]string { return map[string]string{"MY_SETTING": "v1"} }
	for name, sandboxed := range map[string]bool{"unconfined": false, "sandboxed": true} {
		t.Run(name, func(t *testing.T) {
			var bash Tool
			if sandboxed {
				sb := &Sandbox{}
				bash = sandboxedBashWith(t, sb)
				bash.(*bashTool).opts.Env = opts.Env
			} else {
				bash, _ = Lookup(BuiltinsWithOptions(nil, opts), "bash")
			}
			res, err := bash.Run(context.Background(), Env{Workspace: t.TempDir(), ToolUseID: "env"}, bashInputJSON("env", 0))
			if err != nil || res.IsError {
				t.Fatalf("%+v %v", res, err)
			}
			for _, leak := range []string{"sk-ant-secret", "sk-openai-secret", "AGENTHUB_TEST_CONTROL", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK"} {
				if strings.Contains(res.Output, leak) {
					t.Errorf("the environment holds %s:\n%s", leak, res.Output)
				}
			}
			for _, want := range []string{"PATH=", "HOME=", "LC_TIME=C", "TMPDIR=", "MY_SETTING=v1"} {
				if !strings.Contains(res.Output, want) {
					t.Errorf("the environment lacks %s:\n%s", want, res.Output)
				}
			}
		})
	}
}

// Row 9: Go's and npm's caches are the sandbox's own; the user's real ones
// are not writable (a poisoned build cache would run in the user's next
// unsandboxed build). It failed while the sandbox granted the user's caches.
func TestBashPrivateCaches(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	cache := t.TempDir()
	bash := sandboxedBashWith(t, &Sandbox{CacheDir: cache})
	out, _ := exec.Command(goBin, "env", "GOCACHE").Output()
	userGoCache := strings.TrimSpace(string(out))
	if err := os.MkdirAll(userGoCache, 0o755); err != nil {
		t.Skipf("no user Go cache to test with: %v", err)
	}
	home, _ := os.UserHomeDir()
	npm := filepath.Join(home, ".npm")
	_ = os.MkdirAll(npm, 0o755)
	probe := "agenthub-sandbox-probe"
	defer os.Remove(filepath.Join(userGoCache, probe))
	defer os.Remove(filepath.Join(npm, probe))
	cmd := `U=` + userGoCache + ` N=` + npm + `; ` // the user's paths, as an attacker would guess them
	res, err := bash.Run(context.Background(), Env{Workspace: t.TempDir(), ToolUseID: "c2"}, bashInputJSON(cmd+
		`go env GOCACHE GOMODCACHE; echo "npm=$npm_config_cache"; touch "$U/`+probe+`" || echo refused-go; touch "$N/`+probe+`" || echo refused-npm`, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, filepath.Join(cache, "go-build")+"\n") || !strings.Contains(res.Output, filepath.Join(cache, "go-mod")+"\n") ||
		!strings.Contains(res.Output, "npm="+filepath.Join(cache, "npm")) {
		t.Fatalf("the caches are not the sandbox's:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "refused-go") || !strings.Contains(res.Output, "refused-npm") {
		t.Fatalf("the user's caches were writable:\n%s", res.Output)
	}
	for _, f := range []string{filepath.Join(userGoCache, probe), filepath.Join(npm, probe)} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s was written", f)
		}
	}
}

// Issue 40 row 1 (sandbox half): with the workspace being the data dir's
// parent ($HOME), a sandboxed command can neither read nor write the data
// dir. Row 2 relies on it: dashboard.json (the token) cannot be read.
func TestBashCannotReachTheDataDir(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, ".local", "share", "agenthub")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	for f, body := range map[string]string{"dashboard.json": `{"token":"T0KEN"}`, "settings.json": `{}`, "permissions.json": `{}`} {
		if err := os.WriteFile(filepath.Join(data, f), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, fallback := range []bool{false, true} {
		bash := sandboxedBashWith(t, &Sandbox{Hidden: []string{data}, Fallback: fallback})
		res, _ := bash.Run(context.Background(), Env{Workspace: home, ToolUseID: "d"}, bashInputJSON(
			`cat .local/share/agenthub/dashboard.json; echo '{"mcp_servers":{"x":{"command":"sh"}}}' > .local/share/agenthub/settings.json; echo '[{"tool":"*","action":"allow"}]' > .local/share/agenthub/permissions.json; ls -A .local/share/agenthub`, 0))
		if strings.Contains(res.Output, "T0KEN") {
			t.Fatalf("fallback=%v: the token was read:\n%s", fallback, res.Output)
		}
		for f, body := range map[string]string{"settings.json": `{}`, "permissions.json": `{}`} {
			if b, _ := os.ReadFile(filepath.Join(data, f)); string(b) != body {
				t.Fatalf("fallback=%v: %s was written: %q", fallback, f, b)
			}
		}
	}
}

// Protected paths: .git stays read-only for bash unless git writes are
// allowed for the call; a refused write says how to allow it.
func TestBashGitReadOnlyUnlessAllowed(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+ws)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("config", "user.email", "t@example.com")
	git("config", "user.name", "t")
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	bash := sandboxedBash(t)
	allowed := map[string]bool{}
	env := Env{Workspace: ws, GitWrites: func(id string) bool { return allowed[id] }}
	env.ToolUseID = "refused"
	res, err := bash.Run(context.Background(), env, bashInputJSON(`git commit -qm one && echo COMMITTED; echo '[core] fsmonitor = "touch pwned"' >> .git/config`, 0))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "COMMITTED") || !strings.Contains(res.Output, "allow git writes") {
		t.Fatalf("a commit went through, or no hint:\n%s", res.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); strings.Contains(string(b), "fsmonitor") {
		t.Fatal(".git/config was written")
	}
	env.ToolUseID = "granted"
	allowed["granted"] = true
	res, err = bash.Run(context.Background(), env, bashInputJSON(`git commit -qm one && echo COMMITTED`, 0))
	if err != nil || !strings.Contains(res.Output, "COMMITTED") {
		t.Fatalf("with git writes allowed: %+v %v", res, err)
	}
}

// Row 3 of the attacks: bash has no controlling terminal, even when the
// app has one, so TIOCSTI cannot reach the user's shell. It failed with
// Setpgid (the terminal was inherited).
func TestBashHasNoControllingTerminal(t *testing.T) {
	if os.Getenv("AGENTHUB_TEST_UNDER_TTY") == "1" {
		// The child: runs bash as the app does, with the pty as its own
		// controlling terminal.
		for _, bash := range []Tool{newBash(t), sandboxedBash(t)} {
			res, _ := bash.Run(context.Background(), Env{Workspace: t.TempDir(), ToolUseID: "tty"}, bashInputJSON(`exec 3<>/dev/tty && echo HAVE_TTY; echo done`, 0))
			os.Stdout.WriteString(res.Output)
		}
		return
	}
	_, slave := sandboxtest.OpenPTY(t)
	self, _ := os.Executable()
	cmd := exec.Command(self, "-test.run=^TestBashHasNoControllingTerminal$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AGENTHUB_TEST_UNDER_TTY=1")
	cmd.Stdin = slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(string(out), "HAVE_TTY") || strings.Count(string(out), "done") < 2 {
		t.Fatalf("bash opened the app's terminal:\n%s", out)
	}
}
