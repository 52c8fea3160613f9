//go:build setuptest

// Package windows holds Agent Hub's Windows installer (agenthub.nsi, built
// by make package-windows) and this test of the built setup.exe, run under
// wine by make test-windows: a silent per-user install, what it put where
// (the program, the Start-menu entry, the Apps & features entry), the
// installed program started, and the uninstaller, which removes all of it
// but the user's data.
package windows

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	uninstKey = `HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\AgentHub`
	// The WebView2 Runtime's EdgeUpdate client key (Microsoft's documented
	// detection key, as agenthub.nsi reads it).
	webView2Key = `HKCU\Software\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}`
)

// wine runs a Windows program through WINE_EXEC (scripts/wine-exec.sh:
// the project's wine prefix) and returns its output.
func wine(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(os.Getenv("WINE_EXEC"), args...).CombinedOutput()
	return string(out), err
}

func mustWine(t *testing.T, args ...string) string {
	t.Helper()
	out, err := wine(t, args...)
	if err != nil {
		t.Fatalf("wine %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// unixPath is where a path on wine's drive C: lies in the prefix.
func unixPath(prefix, winPath string) string {
	rest := strings.TrimPrefix(winPath, `C:\`)
	return filepath.Join(prefix, "drive_c", filepath.FromSlash(strings.ReplaceAll(rest, `\`, "/")))
}

func TestSetupInstallsAndUninstalls(t *testing.T) {
	setup, prefix := os.Getenv("AGENTHUB_SETUP"), os.Getenv("WINEPREFIX")
	if setup == "" || os.Getenv("WINE_EXEC") == "" || prefix == "" {
		t.Fatal("AGENTHUB_SETUP, WINE_EXEC and WINEPREFIX are required (make test-windows sets them)")
	}
	// The machine has the WebView2 Runtime (wine cannot run Microsoft's
	// installer offline): the setup finds it by the documented key and
	// skips its own WebView2 step.
	mustWine(t, "reg", "add", webView2Key, "/v", "pv", "/d", "120.0.2210.91", "/f")
	t.Cleanup(func() { _, _ = wine(t, "reg", "delete", webView2Key, "/f") })

	// No space in it: wine quotes an argument with one, and NSIS takes
	// /D= only unquoted.
	dir := filepath.Join(t.TempDir(), "AgentHub")
	winDir := `Z:` + strings.ReplaceAll(dir, "/", `\`)
	mustWine(t, setup, "/S", "/D="+winDir) // /D= last and unquoted, as NSIS wants it

	for _, f := range []string{"agenthub.exe", "agenthub.ico", "README.md", "uninstall.exe"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("installed %s: %v", f, err)
		}
	}
	reg := mustWine(t, "reg", "query", uninstKey)
	for _, want := range []string{"DisplayName", "Agent Hub", "UninstallString", `uninstall.exe`, "DisplayVersion", "InstallLocation"} {
		if !strings.Contains(reg, want) {
			t.Errorf("the uninstall entry lacks %q:\n%s", want, reg)
		}
	}
	programs := strings.TrimSpace(mustWine(t, "cmd", "/c", "echo", "%APPDATA%"))
	lnk := unixPath(prefix, programs+`\Microsoft\Windows\Start Menu\Programs\Agent Hub.lnk`)
	if _, err := os.Stat(lnk); err != nil {
		t.Errorf("no Start-menu entry: %v", err)
	}
	// The installed program runs, and says there is no sandbox here.
	if out := mustWine(t, filepath.Join(dir, "agenthub.exe"), "--help"); !strings.Contains(out, "no sandbox on this system (Windows)") {
		t.Errorf("the installed agenthub.exe --help:\n%s", out)
	}

	// _?= runs the uninstaller in place and waits for it (NSIS).
	mustWine(t, filepath.Join(dir, "uninstall.exe"), "/S", "_?="+winDir)
	for _, f := range []string{"agenthub.exe", "agenthub.ico", "README.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s left after uninstall: %v", f, err)
		}
	}
	if _, err := os.Stat(lnk); !os.IsNotExist(err) {
		t.Errorf("the Start-menu entry is left after uninstall: %v", err)
	}
	if out, err := wine(t, "reg", "query", uninstKey); err == nil {
		t.Errorf("the uninstall entry is left after uninstall:\n%s", out)
	}
}
