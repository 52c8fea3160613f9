//go:build linux

package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sbx "agenthub/app/sandbox"
)

// The test binary doubles as the sandbox helper, as the app's binary does
// in main.
func TestMain(m *testing.M) {
	sbx.Dispatch()
	if _, err := sbx.ProbeAndProtect(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

func sandboxedBash(t *testing.T) Tool {
	t.Helper()
	return sandboxedBashWith(t, &Sandbox{})
}

// sandboxedBashWith is bash confined by sb (Helper: the test binary;
// CacheDir: a temp dir unless set).
func sandboxedBashWith(t *testing.T, sb *Sandbox) Tool {
	t.Helper()
	if !sbx.Probe().Files() {
		t.Skip(sbx.Probe().String())
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb.Helper = self
	if sb.CacheDir == "" {
		sb.CacheDir = t.TempDir()
	}
	opts := testOpts
	opts.Sandbox = sb
	tl, _ := Lookup(BuiltinsWithOptions(nil, opts), "bash")
	return tl
}

// A write outside the workspace fails with a clear message and creates
// nothing; the workspace and TMPDIR stay writable.
func TestBashSandboxConfinesWrites(t *testing.T) {
	bash := sandboxedBash(t)
	ws, outside := t.TempDir(), t.TempDir()
	env := Env{Workspace: ws, OutputDir: t.TempDir(), ToolUseID: "sb"}
	res, err := bash.Run(context.Background(), env, bashInputJSON(`echo hi > f && cat f && t=$(mktemp) && echo tmp > "$t" && cat "$t"`, 0))
	if err != nil || res.IsError || res.Output != "hi\ntmp\n" {
		t.Fatalf("inside: %+v %v", res, err)
	}
	target := filepath.Join(outside, "pwned.txt")
	res, err = bash.Run(context.Background(), env, bashInputJSON(`echo x > `+target, 0))
	if err != nil || !res.IsError || !strings.Contains(res.Output, "Permission denied") {
		t.Fatalf("outside: %+v %v, want a failed command saying Permission denied", res, err)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("the file outside the workspace exists: %v", err)
	}
}

// The session's options: reads only inside the workspace, no network.
func TestBashSandboxSessionOptions(t *testing.T) {
	bash := sandboxedBash(t)
	ws, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := Env{Workspace: ws, OutputDir: t.TempDir(), ToolUseID: "sb2"}
	if res, err := bash.Run(context.Background(), env, bashInputJSON("cat "+secret, 0)); err != nil || !strings.HasPrefix(res.Output, "s3cret") {
		t.Fatalf("reads are open by default: %+v %v", res, err)
	}
	env.ReadWorkspaceOnly = true
	res, err := bash.Run(context.Background(), env, bashInputJSON("cat "+secret+"; echo x > f; cat f", 0))
	if err != nil || strings.Contains(res.Output, "s3cret") || !strings.Contains(res.Output, "Permission denied") || !strings.HasSuffix(res.Output, "x\n") {
		t.Fatalf("reads inside the workspace only: %+v %v", res, err)
	}
	if !sbx.Probe().Network() {
		return
	}
	env.ReadWorkspaceOnly, env.NoNetwork = false, true
	res, err = bash.Run(context.Background(), env, bashInputJSON("exec 3<>/dev/tcp/127.0.0.1/9 && echo connected", 0))
	if err != nil || strings.Contains(res.Output, "connected") || !res.IsError {
		t.Fatalf("network off: %+v %v", res, err)
	}
}
