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
		ClientStall: 5 * time.Second, MaxConnections: 256, ToolOutputLog: 4 << 20, ToolOutputMax: 64 << 20,
		Sandbox: "auto",
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
		"--client-stall", "2s", "--max-connections", "3", "--tool-output-log", "64KiB", "--tool-output-max", "1m",
		"--sandbox", "off", "--approval-mode", "auto-edits",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Version: "dev", Headless: true, Listen: "127.0.0.1:0", ListenSet: true, DataDir: "/d", Workspace: "/w", WorkspaceSet: true,
		Model: "openai:llama3.1", EventRetention: 2 * time.Hour, DeltaRetention: 5 * time.Minute,
		Heartbeat: 10 * time.Second, ClientQueue: 7, ReplayLimit: 9, TurnTimeout: time.Minute,
		ClientStall: 2 * time.Second, MaxConnections: 3, ToolOutputLog: 64 << 10, ToolOutputMax: 1 << 20,
		Sandbox: "off", ApprovalMode: "auto-edits",
	}
	if cfg != want {
		t.Errorf("\n got %+v\nwant %+v", cfg, want)
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
		"--delta-retention", "--heartbeat", "--client-queue", "--replay-limit", "--turn-timeout", "--version", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL",
		"--client-stall", "--max-connections", "--tool-output-log", "--tool-output-max"} {
		if !strings.Contains(help, f) {
			t.Errorf("--help lacks %s", f)
		}
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
		{[]string{"--client-stall", "0s"}, "--client-stall"},
		{[]string{"--max-connections", "0"}, "--max-connections"},
		{[]string{"--tool-output-log", "12 parsecs"}, "tool-output-log"},
		{[]string{"--tool-output-log", "1k"}, "--tool-output-log"},
		{[]string{"--tool-output-max", "-5MiB"}, "tool-output-max"},
		{[]string{"--turn-timeout", "banana"}, "turn-timeout"},
		{[]string{"--sandbox", "maybe"}, "want auto or off"},
		{[]string{"--approval-mode", "yolo"}, "--approval-mode"},
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

func TestByteSize(t *testing.T) {
	for in, want := range map[string]ByteSize{"0": 0, "1000": 1000, "4MiB": 4 << 20, "4m": 4 << 20, "512k": 512 << 10,
		"64 KiB": 64 << 10, "2GB": 2 << 30, "7b": 7} {
		got, err := ParseByteSize(in)
		if err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MiB", "-1", "1.5MiB", "4TiB", "99999999999999999999"} {
		if _, err := ParseByteSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for v, want := range map[ByteSize]string{4 << 20: "4MiB", 64 << 10: "64KiB", 1000: "1000", 3 << 30: "3GiB", 0: "0"} {
		if v.String() != want {
			t.Errorf("%d prints %q, want %q", v, v.String(), want)
		}
	}
}
