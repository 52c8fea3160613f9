package app

import (
	"log/slog"
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
