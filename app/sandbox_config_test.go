package app

import (
	"bytes"
	"errors"
	"flag"
	"log/slog"
	"os"
	"runtime"
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

// Where the sandbox does not exist at all (Windows, macOS), --help, the
// settings' sandbox line and the About box (Info.Sandbox, the same line)
// say plainly that bash runs with the user's rights: never a silent
// downgrade.
func TestNoSandboxSystemIsSaid(t *testing.T) {
	const want = "no sandbox on this system (Windows): bash runs with your rights"
	s := sandbox.Support{System: "Windows", ABI: 7}
	if line, p := s.String(), s.Protections(); !strings.Contains(line, want) || len(p) != 1 || !strings.Contains(p[0], want) {
		t.Fatalf("line %q, protections %q", line, p)
	}
	if runtime.GOOS == "linux" {
		return // what this system says is TestSandboxOffIsSaid's and the sandbox's tests'
	}
	dir := t.TempDir()
	var help bytes.Buffer
	if _, err := ParseFlags([]string{"--help"}, dir, func(string) string { return "" }, &help, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
	if here := sandbox.Probe().String(); sandbox.Probe().System == "" || !strings.Contains(help.String(), here) ||
		!strings.Contains(sandboxLine(DefaultConfig(dir)), "bash runs with your rights") {
		t.Errorf("--help does not say there is no sandbox:\n%s", help.String())
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
