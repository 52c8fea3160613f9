package app

import (
	"context"
	"strings"
	"sync"
	"testing"

	"agenthub/ipc/devices"
)

// devicesCmd runs `agenthub devices args…` and returns its exit code and
// output.
func devicesCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := RunDevices(args, func(string) string { return "" }, &out, &errb)
	return code, out.String(), errb.String()
}

// TestDevicesCommandOffline: pair, list, rights and revoke work on the
// trust file with no hub running, flags before, between or after the
// command's words.
func TestDevicesCommandOffline(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := devicesCmd(t, "pair", "--read-only", "--data-dir", dir, "--gateway", "https://gw.example")
	if code != 0 || !strings.Contains(out, "rights: read-only") || !strings.Contains(out, "open:   https://gw.example/#hub=") {
		t.Fatalf("pair: %d %q", code, out)
	}
	store := devices.Open(dir)
	tok := strings.TrimSpace(strings.SplitN(strings.SplitN(out, "token:", 2)[1], "\n", 2)[0])
	p, err := store.Redeemable(tok)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Confirm("phone-1", tok, p.Rights, nil); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := devicesCmd(t, "--data-dir", dir, "rights", "phone-1", "full"); code != 0 || !strings.Contains(out, "phone-1 is now full") {
		t.Fatalf("rights: %d %q", code, out)
	}
	if code, out, _ := devicesCmd(t, "list", "--data-dir", dir); code != 0 || !strings.Contains(out, "phone-1") || !strings.Contains(out, "full") {
		t.Fatalf("list: %d %q", code, out)
	}
	if code, out, _ := devicesCmd(t, "revoke", "phone-1", "--data-dir", dir); code != 0 || !strings.Contains(out, "revoked phone-1") {
		t.Fatalf("revoke: %d %q", code, out)
	}
	if code, _, errb := devicesCmd(t, "revoke", "phone-1", "--data-dir", dir); code != 1 || !strings.Contains(errb, `no device "phone-1"`) {
		t.Fatalf("revoke again: %d %q", code, errb)
	}
	if code, _, _ := devicesCmd(t, "revoke", "--data-dir", dir); code != 2 {
		t.Fatalf("revoke without an id: %d, want 2", code)
	}
}

// TestDevicesCommandAsksTheRunningHub: pending, allow and deny reach the
// hub running on the data dir through its dashboard (the token from
// dashboard.json, loopback only), and say so when no hub runs there.
func TestDevicesCommandAsksTheRunningHub(t *testing.T) {
	dir := t.TempDir()
	if code, _, errb := devicesCmd(t, "pending", "--data-dir", dir); code != 1 || !strings.Contains(errb, "no hub with a dashboard runs on") {
		t.Fatalf("pending without a hub: %d %q", code, errb)
	}
	in, err := Open(testConfig(t, dir), OpenOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Dashboard.WriteInfoFile(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = in.Dashboard.Serve(ctx)
	}()
	defer wg.Wait()
	defer cancel()
	if code, out, errb := devicesCmd(t, "pending", "--data-dir", dir); code != 0 || !strings.Contains(out, "no device waits to be allowed") {
		t.Fatalf("pending: %d %q %q", code, out, errb)
	}
	// The hub's answer comes back as the command's error.
	if code, _, errb := devicesCmd(t, "allow", "laptop-7f3", "--read-only", "--data-dir", dir); code != 1 || !strings.Contains(errb, `no device "laptop-7f3" is waiting for confirmation`) {
		t.Fatalf("allow without a pending device: %d %q", code, errb)
	}
}
