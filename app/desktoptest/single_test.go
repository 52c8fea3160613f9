//go:build smoketest

package desktoptest

import (
	"bufio"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/smoketest"
)

// sessionBus starts a private D-Bus session daemon for the test and
// returns its address.
func sessionBus(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("no dbus-daemon: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestSecondLaunchRaisesTheFirst: launching the app again on a data dir
// whose window is open hands over to that window (Wails' single-instance
// path over the session bus) instead of failing at the data-dir lock; the
// first window comes to the front and keeps running.
func TestSecondLaunchRaisesTheFirst(t *testing.T) {
	bin, artifacts := setup(t)
	bus := sessionBus(t)
	dataDir, workspace := apptest.Dirs(t)
	env := []string{"DBUS_SESSION_BUS_ADDRESS=" + bus}
	args := []string{"--data-dir", dataDir, "--workspace", workspace}
	first := startDesktop(t, bin, artifacts, env, args...)
	first.awaitReport("the first window", func(r smoketest.PageReport) bool { return r.Ready })

	// The second launch, as a desktop would start it (its own display, no harness).
	second := exec.Command("xvfb-run", append([]string{"-a", bin}, args...)...)
	second.Env = append(apptest.Env(), env...)
	var out apptest.Buffer
	second.Stdout, second.Stderr = &out, &out
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("the second launch ended with %v, want exit status 1 after the hand-over:\n%s", err, out.String())
		}
	case <-time.After(waitTimeout):
		_ = second.Process.Kill()
		t.Fatalf("the second launch did not end within %s:\n%s", waitTimeout, out.String())
	}
	// It handed over (Wails ended it once delivered), not the failed start's last line.
	if s := out.String(); !strings.Contains(s, "asking its window to come to the front") || strings.Contains(s, "agenthub: data dir") {
		t.Fatalf("the second launch said:\n%s", s)
	}
	// The first window got the request (its log says so) and still answers.
	deadline := time.Now().Add(waitTimeout)
	for !strings.Contains(first.log.String(), "another launch asked for this window") {
		if time.Now().After(deadline) {
			t.Fatalf("the first window never heard of the second launch")
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.command("emit", map[string]any{"data": map[string]string{"cmd": "transcript"}})
	first.awaitReport("the first window still running", func(r smoketest.PageReport) bool { return r.Ready })
	first.quit()
}
