package app

import (
	"log/slog"
	"os"
	"strings"
	"testing"

	"agenthub/app/sandbox"
)

// With --sandbox off (or a kernel without Landlock) bash runs unconfined,
// and what the UI and --help show says that approvals are the only guard.
func TestSandboxOffIsSaid(t *testing.T) {
	in := &Instance{log: slog.New(slog.DiscardHandler)}
	cfg := DefaultConfig(t.TempDir())
	cfg.Sandbox = "off"
	if sb := in.toolSandbox(cfg); sb != nil {
		t.Fatalf("--sandbox off still confines bash: %+v", sb)
	}
	if line := sandboxLine(cfg); !strings.Contains(line, "off") || !strings.Contains(line, "approvals are the only guard") {
		t.Fatalf("settings line %q", line)
	}
	if line := (sandbox.Support{}).String(); !strings.Contains(line, "nothing enforced") || !strings.Contains(line, "approvals are the only guard") {
		t.Fatalf("no-Landlock line %q", line)
	}
	cfg.Sandbox = "auto"
	if sandbox.Probe().Files() && in.toolSandbox(cfg) == nil {
		t.Fatal("auto on a Landlock kernel left bash unconfined")
	}
}

// The sandbox hides the data dir, the runtime dir (session bus, keyring)
// and the ssh agent's directory — but never the temp dir the calls' own
// TMPDIRs live in, nor the home directory.
func TestHiddenDirs(t *testing.T) {
	data, run, agent := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"XDG_RUNTIME_DIR": run, "SSH_AUTH_SOCK": agent + "/agent.1", "HOME": "/home/u"}
	got := hiddenDirs(data, func(k string) string { return env[k] }, 1000)
	if strings.Join(got, " ") != strings.Join([]string{data, run, agent}, " ") {
		t.Fatalf("hidden %q", got)
	}
	env["SSH_AUTH_SOCK"] = os.TempDir() + "/agent.1" // directly in the temp dir: not hidden
	env["XDG_RUNTIME_DIR"] = "/home/u"
	if got := hiddenDirs(data, func(k string) string { return env[k] }, 1000); len(got) != 1 || got[0] != data {
		t.Fatalf("hidden %q, want only the data dir", got)
	}
}
