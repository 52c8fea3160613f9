//go:build smoketest

package desktoptest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/smoketest"
)

// TestCorruptSettingsShownInWindow: a settings.json that is not JSON does
// not end a desktop launch silently: the window opens and says what is
// wrong and what to do, and the file is left exactly as it was.
func TestCorruptSettingsShownInWindow(t *testing.T) {
	bin, artifacts := setup(t)
	dataDir, workspace := apptest.Dirs(t)
	corrupt := []byte("{\"model\": \"anthropic:claude-sonnet-4-6\",\n  oops\n")
	settings := filepath.Join(dataDir, "settings.json")
	if err := os.WriteFile(settings, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDesktop(t, bin, artifacts, nil, "--data-dir", dataDir, "--workspace", workspace)
	r := d.awaitReport("the start-up error in the window", func(r smoketest.PageReport) bool { return r.StartupError != "" })
	if !strings.Contains(r.StartupError, "settings.json") || !strings.Contains(r.StartupError, "invalid JSON") {
		t.Fatalf("the window says %q", r.StartupError)
	}
	d.screenshot("desktop-startup-error.png")
	d.command("quit", nil)
	select {
	case <-d.exited:
		// The launch failed: the process says so with its exit status.
		if d.waitErr == nil {
			t.Error("the app exited 0 after a failed start")
		}
	case <-time.After(waitTimeout):
		t.Fatalf("the app did not exit within %s after quit", waitTimeout)
	}
	if b, err := os.ReadFile(settings); err != nil || !bytes.Equal(b, corrupt) {
		t.Fatalf("settings.json changed: %q (%v)", b, err)
	}
}
