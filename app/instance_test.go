package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"agenthub/app/mcp"
	"agenthub/app/settings"
)

func testConfig(t *testing.T, dir string) Config {
	t.Helper()
	cfg := DefaultConfig(t.TempDir())
	cfg.DataDir = dir
	cfg.Listen = "127.0.0.1:0"
	cfg.Version = "1.0.0-test"
	return cfg
}

func TestOpenTwiceFailsNamingDataDir(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(testConfig(t, dir), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = Open(testConfig(t, dir), OpenOptions{})
	var inUse *DataDirInUseError
	if !errors.As(err, &inUse) {
		t.Fatalf("second Open: %v, want DataDirInUseError", err)
	}
	if inUse.Dir != dir || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "in use by another Agent Hub instance") {
		t.Errorf("message %q does not name %s", err, dir)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(testConfig(t, dir), OpenOptions{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	_ = again.Close()
}

func TestOpenRejectsMalformedSettingsWithoutTouchingThem(t *testing.T) {
	dir := t.TempDir()
	if err := EnsureDataDir(dir); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, settings.File)
	if err := os.WriteFile(p, []byte(`{"model":`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(testConfig(t, dir), OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("Open with malformed settings: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"model":` {
		t.Errorf("settings.json changed to %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, DBFile)); !os.IsNotExist(err) {
		t.Errorf("bbolt file created despite bad settings: %v", err)
	}
}

func TestDashboardModes(t *testing.T) {
	cfg := Config{Listen: DefaultListen}
	if _, on := dashboardAddr(cfg, settings.Settings{}, false); on {
		t.Error("desktop default: dashboard on")
	}
	if addr, on := dashboardAddr(cfg, settings.Settings{}, true); !on || addr != DefaultListen {
		t.Errorf("headless: %s %v", addr, on)
	}
	if addr, on := dashboardAddr(cfg, settings.Settings{DashboardEnabled: true, DashboardListen: "127.0.0.1:9"}, false); !on || addr != "127.0.0.1:9" {
		t.Errorf("desktop enabled in settings: %s %v", addr, on)
	}
	explicit := Config{Listen: "127.0.0.1:7", ListenSet: true}
	if addr, on := dashboardAddr(explicit, settings.Settings{DashboardListen: "127.0.0.1:9"}, false); !on || addr != "127.0.0.1:7" {
		t.Errorf("desktop --listen: %s %v", addr, on)
	}
}

func TestInstanceInfoAndAPI(t *testing.T) {
	dir := t.TempDir()
	if err := EnsureDataDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := settings.Save(dir, settings.Settings{Model: "openai:llama3.1", OpenAIBaseURL: "http://127.0.0.1:11434/v1"}); err != nil {
		t.Fatal(err)
	}
	assets := fstest.MapFS{"index.html": {Data: []byte("<html></html>")}}
	inst, err := Open(testConfig(t, dir), OpenOptions{Headless: true, Assets: assets, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	info := inst.Info()
	if info.Name != Name || info.Version != "1.0.0-test" || info.Mode != "headless" || info.DataDir != dir ||
		!info.Provider.Configured || info.Model != "openai:llama3.1" || info.DashboardURL != inst.Dashboard.URL() ||
		info.Sandbox != sandboxLine(inst.Config) {
		t.Fatalf("Info = %+v", info)
	}

	a := NewApp(inst)
	if err := a.FrontendReady(ReadyReport{Version: "other", DataDir: dir}); err == nil {
		t.Error("FrontendReady accepted a wrong version")
	}
	select {
	case <-a.ready():
		t.Fatal("ready after a wrong report")
	default:
	}
	if err := a.FrontendReady(ReadyReport{Version: info.Version, DataDir: dir}); err != nil {
		t.Fatal(err)
	}
	if err := a.FrontendReady(ReadyReport{Version: info.Version, DataDir: dir}); err != nil {
		t.Fatalf("second FrontendReady (reload): %v", err)
	}
	<-a.ready()

	// /api/info is mounted behind the dashboard's token check.
	srv := inst.Dashboard
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	defer func() { cancel(); <-done }()
	req, _ := http.NewRequest("GET", srv.BaseURL()+"/api/info", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("/api/info without token: %d", res.StatusCode)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var got Info
	if err := json.Unmarshal(body, &got); err != nil || got.DataDir != dir || got.Provider.Sources[0] != "openai: settings openai_base_url" {
		t.Errorf("/api/info = %s (%v)", body, err)
	}
}

// A hand-edited settings.json with one bad MCP entry still runs the others.
func TestValidMCPSkipsOnlyTheBadEntry(t *testing.T) {
	var logs strings.Builder
	got := validMCP(map[string]mcp.ServerConfig{
		"good": {Command: "srv"},
		"bad":  {Command: "srv", URL: "http://h"},
	}, slog.New(slog.NewTextHandler(&logs, nil)))
	if len(got) != 1 || got["good"].Command != "srv" {
		t.Fatalf("kept %+v", got)
	}
	if !strings.Contains(logs.String(), "mcp_servers.bad") {
		t.Fatalf("the skipped entry is not named in the log: %s", logs.String())
	}
}
