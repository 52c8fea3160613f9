//go:build packagetest

// Package packaging holds the Debian package's recipe (nfpm.yaml, icongen)
// and this test of the built package (make test-package): installed with
// apt-get into this machine, launched the way a desktop launches it, shown
// in a screenshot, and removed again.
package packaging

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launchLimit bounds the wait for the window (the test synchronises on the
// app's "window ready" log line, not on time).
const launchLimit = 90 * time.Second

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestInstalledPackage installs AGENTHUB_DEB, checks what it put where,
// starts the desktop entry's Exec line with no terminal (inside the
// xvfb-run and dbus-run-session the Makefile wraps this test in), waits
// for the window to render, screenshots it into AGENTHUB_ARTIFACTS, and
// removes the package.
func TestInstalledPackage(t *testing.T) {
	deb := os.Getenv("AGENTHUB_DEB")
	if deb == "" {
		t.Skip("AGENTHUB_DEB is not set (make test-package sets it)")
	}
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("no DISPLAY: run under xvfb-run (make test-package does)")
	}
	run(t, "apt-get", "install", "-y", "-q", "--no-install-recommends", deb)
	t.Cleanup(func() {
		run(t, "apt-get", "remove", "-y", "-q", "agenthub")
		if _, err := os.Stat("/usr/bin/agenthub"); err == nil {
			t.Error("/usr/bin/agenthub is still there after apt-get remove")
		}
	})

	status := run(t, "dpkg", "-s", "agenthub")
	for _, want := range []string{"Status: install ok installed", "libgtk-3-0", "libwebkit2gtk-4.1-0"} {
		if !strings.Contains(status, want) {
			t.Errorf("dpkg -s agenthub lacks %q:\n%s", want, status)
		}
	}
	for _, n := range []string{"16x16", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256", "512x512"} {
		if _, err := os.Stat(filepath.Join("/usr/share/icons/hicolor", n, "apps/agenthub.png")); err != nil {
			t.Errorf("icon %s: %v", n, err)
		}
	}
	if b, err := os.ReadFile("/usr/share/doc/agenthub/usage.txt"); err != nil || !bytes.Contains(b, []byte("Usage: agenthub")) {
		t.Errorf("usage.txt: %v", err)
	}
	entry, err := os.ReadFile("/usr/share/applications/agenthub.desktop")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(entry), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			fields[k] = v
		}
	}
	if fields["StartupWMClass"] != "agenthub" || fields["Icon"] != "agenthub" || fields["Terminal"] != "false" {
		t.Errorf("desktop entry fields: %v", fields)
	}
	// The Exec line as a launcher runs it: field codes dropped, no terminal,
	// a fresh home (so a fresh data dir), its own session.
	var argv []string
	for _, f := range strings.Fields(fields["Exec"]) {
		if !strings.HasPrefix(f, "%") {
			argv = append(argv, f)
		}
	}
	if len(argv) == 0 {
		t.Fatalf("no Exec in the desktop entry")
	}
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local/share"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"ANTHROPIC_API_KEY=", "OPENAI_API_KEY=")
	// A logged-in desktop has an unlocked login keyring: start one in this
	// D-Bus session (without it the keyring would prompt for a password,
	// and the app opens with its file vault instead).
	if _, err := exec.LookPath("gnome-keyring-daemon"); err == nil {
		unlock := exec.Command("gnome-keyring-daemon", "--unlock", "--components=secrets")
		unlock.Env, unlock.Stdin = env, strings.NewReader("agenthub")
		if out, err := unlock.CombinedOutput(); err != nil {
			t.Logf("gnome-keyring-daemon --unlock: %v\n%s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), launchLimit)
	defer cancel()
	app := exec.CommandContext(ctx, argv[0], argv[1:]...)
	app.Env = env
	app.Dir = home
	app.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	logs, err := app.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	var transcript bytes.Buffer
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(io.TeeReader(logs, &transcript))
		for sc.Scan() {
			if strings.Contains(sc.Text(), "window ready") {
				ready <- true
				_, _ = io.Copy(io.Discard, logs)
				return
			}
		}
		ready <- false
	}()
	ok := <-ready
	if !ok {
		_ = app.Wait()
		t.Fatalf("the installed app ended before its window rendered:\n%s", transcript.String())
	}
	artifacts := os.Getenv("AGENTHUB_ARTIFACTS")
	if artifacts == "" {
		artifacts = "artifacts"
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifacts, "package-window.png")
	run(t, "import", "-window", "root", shot)
	t.Logf("screenshot: %s", shot)
	_ = app.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- app.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = app.Process.Kill()
		<-done
		t.Errorf("the app did not quit within 15 s of SIGTERM")
	}
}
