package app

import (
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, args []string, env map[string]string) (Config, string, error) {
	t.Helper()
	var out, errOut strings.Builder
	cfg, err := ParseFlags(args, "/work", func(k string) string { return env[k] }, &out, &errOut)
	return cfg, out.String() + errOut.String(), err
}

func TestParseFlagsDefaults(t *testing.T) {
	cfg, _, err := parse(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Version: "dev", Listen: "127.0.0.1:8421", Workspace: "/work",
		EventRetention: 168 * time.Hour, DeltaRetention: time.Hour, Heartbeat: 30 * time.Second,
		ClientQueue: 1000, ReplayLimit: 10000, TurnTimeout: 30 * time.Minute,
	}
	if cfg != want {
		t.Errorf("defaults\n got %+v\nwant %+v", cfg, want)
	}
}

func TestParseFlagsEveryFlag(t *testing.T) {
	cfg, _, err := parse(t, []string{
		"--headless", "--listen", "127.0.0.1:0", "--data-dir", "/d", "--workspace", "/w",
		"--model", "openai:llama3.1", "--event-retention", "2h", "--delta-retention", "5m",
		"--heartbeat", "10s", "--client-queue", "7", "--replay-limit", "9", "--turn-timeout", "1m",
		"-smoke-test", "art",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Version: "dev", Headless: true, Listen: "127.0.0.1:0", ListenSet: true, DataDir: "/d", Workspace: "/w",
		Model: "openai:llama3.1", EventRetention: 2 * time.Hour, DeltaRetention: 5 * time.Minute,
		Heartbeat: 10 * time.Second, ClientQueue: 7, ReplayLimit: 9, TurnTimeout: time.Minute, SmokeTestDir: "art",
	}
	if cfg != want {
		t.Errorf("\n got %+v\nwant %+v", cfg, want)
	}
}

func TestParseFlagsSmokeFromEnv(t *testing.T) {
	cfg, _, err := parse(t, nil, map[string]string{"AGENTHUB_SMOKE": "artifacts"})
	if err != nil || cfg.SmokeTestDir != "artifacts" {
		t.Fatalf("SmokeTestDir %q err %v", cfg.SmokeTestDir, err)
	}
}

func TestParseFlagsHelpAndVersion(t *testing.T) {
	var out, errOut strings.Builder
	_, err := ParseFlags([]string{"--help"}, "/w", nil, &out, &errOut)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: err %v", err)
	}
	help := out.String()
	for _, f := range []string{"--headless", "--listen", "--data-dir", "--workspace", "--model", "--event-retention",
		"--delta-retention", "--heartbeat", "--client-queue", "--replay-limit", "--turn-timeout", "--version", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"} {
		if !strings.Contains(help, f) {
			t.Errorf("--help lacks %s", f)
		}
	}
	if strings.Contains(help, "smoke") {
		t.Errorf("--help lists the hidden smoke-test flag")
	}
	if errOut.Len() != 0 {
		t.Errorf("--help wrote to stderr: %q", errOut.String())
	}
	cfg, _, err := parse(t, []string{"--version"}, nil)
	if err != nil || !cfg.ShowVersion {
		t.Fatalf("--version: %v %v", cfg.ShowVersion, err)
	}
}

func TestParseFlagsRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:8421"}, "loopback only"},
		{[]string{"--listen", "192.168.1.2:1"}, "loopback only"},
		{[]string{"--listen", "nonsense"}, "HOST:PORT"},
		{[]string{"--model", "claude"}, "PROVIDER:MODEL"},
		{[]string{"--heartbeat", "0s"}, "--heartbeat"},
		{[]string{"--client-queue", "0"}, "--client-queue"},
		{[]string{"--replay-limit", "-1"}, "--replay-limit"},
		{[]string{"--turn-timeout", "banana"}, "turn-timeout"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
		{[]string{"stray"}, "unexpected argument"},
	} {
		_, out, err := parse(t, tc.args, nil)
		if err == nil {
			t.Errorf("%v: accepted", tc.args)
			continue
		}
		if !strings.Contains(out, tc.want) && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, output %q; want mention of %q", tc.args, err, out, tc.want)
		}
	}
	for _, ok := range []string{"127.0.0.1:0", "localhost:9000", "[::1]:0", "127.1.2.3:80"} {
		if _, _, err := parse(t, []string{"--listen", ok}, nil); err != nil {
			t.Errorf("--listen %s refused: %v", ok, err)
		}
	}
}

func TestDisplayAvailable(t *testing.T) {
	defer func(g string) { goos = g }(goos)
	goos = "linux"
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if DisplayAvailable(get) {
		t.Error("linux without DISPLAY: available")
	}
	env["WAYLAND_DISPLAY"] = "wayland-0"
	if !DisplayAvailable(get) {
		t.Error("linux with WAYLAND_DISPLAY: unavailable")
	}
	goos = "darwin"
	if !DisplayAvailable(func(string) string { return "" }) {
		t.Error("darwin: unavailable")
	}
}
