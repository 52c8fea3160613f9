package app

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/mcp"
	"agenthub/ipc"
)

func TestSettingsServiceMasksAndKeepsEchoedKeys(t *testing.T) {
	dir := t.TempDir()
	ss := newSettingsService(dir, Settings{}, nil, settingsStatus{})
	var seen []Settings
	ss.setListener(func(s Settings) { seen = append(seen, s) })

	out, err := ss.Update(json.RawMessage(`{"anthropic_api_key":"sk-ant-secret-1234","model":"anthropic:claude-sonnet-4-6","thinking_budget":2048}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "secret") {
		t.Fatalf("Update echoed the key: %s", out)
	}
	var masked Settings
	if err := json.Unmarshal(out, &masked); err != nil {
		t.Fatal(err)
	}
	if masked.AnthropicAPIKey != "••••1234" || masked.Model != "anthropic:claude-sonnet-4-6" {
		t.Fatalf("masked settings %+v", masked)
	}
	// The page sends back what it was shown: the stored key must survive.
	if _, err := ss.Update(json.RawMessage(`{"anthropic_api_key":"••••1234"}`)); err != nil {
		t.Fatal(err)
	}
	if got := ss.Current().AnthropicAPIKey; got != "sk-ant-secret-1234" {
		t.Fatalf("key after masked echo = %q", got)
	}
	if ss.ThinkingBudget() != 2048 || ss.DefaultModel() != "anthropic:claude-sonnet-4-6" {
		t.Fatalf("budget %d model %q", ss.ThinkingBudget(), ss.DefaultModel())
	}
	if len(seen) != 2 || seen[0].AnthropicAPIKey != "sk-ant-secret-1234" {
		t.Fatalf("listener calls %+v", seen)
	}
	fi, err := os.Stat(filepath.Join(dir, SettingsFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file mode %v err %v", fi.Mode().Perm(), err)
	}
	onDisk, err := LoadSettings(dir)
	if err != nil || onDisk.AnthropicAPIKey != "sk-ant-secret-1234" || onDisk.ThinkingBudget != 2048 {
		t.Fatalf("on disk %+v %v", onDisk, err)
	}
	// Clearing a key with "" is allowed.
	if _, err := ss.Update(json.RawMessage(`{"anthropic_api_key":""}`)); err != nil || ss.Current().AnthropicAPIKey != "" {
		t.Fatalf("clear key: %v %q", err, ss.Current().AnthropicAPIKey)
	}
}

func TestSettingsServiceRejectsBadPatches(t *testing.T) {
	dir := t.TempDir()
	ss := newSettingsService(dir, Settings{Model: "openai:gpt-4.1"}, nil, settingsStatus{})
	for name, patch := range map[string]string{
		"unknown field":    `{"colour":"red"}`,
		"not an object":    `[1,2]`,
		"bad model":        `{"model":"gpt-4.1"}`,
		"bad provider":     `{"provider":"acme"}`,
		"bad base url":     `{"openai_base_url":"file:///etc/passwd"}`,
		"non-loopback":     `{"dashboard_listen":"0.0.0.0:8421"}`,
		"negative price":   `{"prices":{"gpt-4.1":{"input":-1}}}`,
		"huge budget":      `{"thinking_budget":99999999}`,
		"malformed json":   `{"model":`,
		"wrong value type": `{"dashboard_enabled":"yes"}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ss.Update(json.RawMessage(patch))
			if !errors.Is(err, ipc.ErrInvalidInput) {
				t.Fatalf("Update(%s) = %v, want ErrInvalidInput", patch, err)
			}
		})
	}
	if got := ss.Current(); got.Model != "openai:gpt-4.1" || got.Provider != "" {
		t.Fatalf("a rejected patch changed the settings: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, SettingsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a rejected patch wrote the file: %v", err)
	}
}

func TestSettingsServiceMCPServers(t *testing.T) {
	dir := t.TempDir()
	ss := newSettingsService(dir, Settings{}, nil, settingsStatus{})
	var seen Settings
	ss.setListener(func(s Settings) { seen = s })
	patch := `{"mcp_servers":{"files":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"],"env":{"A":"1"}},
		"web":{"url":"https://example.com/mcp","headers":{"Authorization":"Bearer x"},"workspace":"/home/u/p"}}}`
	if _, err := ss.Update([]byte(patch)); err != nil {
		t.Fatal(err)
	}
	if len(seen.MCPServers) != 2 || seen.MCPServers["files"].Args[0] != "-y" || seen.MCPServers["web"].Workspace != "/home/u/p" {
		t.Fatalf("listener saw %+v", seen.MCPServers)
	}
	loaded, err := LoadSettings(dir)
	if err != nil || loaded.MCPServers["web"].Headers["Authorization"] != "Bearer x" {
		t.Fatalf("saved %+v %v", loaded.MCPServers, err)
	}
	// A copy handed out is not the service's own.
	cur := ss.Current()
	cur.MCPServers["files"].Env["A"] = "changed"
	if ss.Current().MCPServers["files"].Env["A"] != "1" {
		t.Fatal("Current shares the MCP maps")
	}
	for _, bad := range []string{
		`{"mcp_servers":{"a__b":{"command":"x"}}}`,
		`{"mcp_servers":{"x":{}}}`,
		`{"mcp_servers":{"x":{"command":"y","url":"http://h"}}}`,
		`{"mcp_servers":{"x":{"url":"file:///etc/passwd"}}}`,
	} {
		if _, err := ss.Update([]byte(bad)); !errors.Is(err, ipc.ErrInvalidInput) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if len(ss.Current().MCPServers) != 2 {
		t.Fatal("a refused patch changed the servers")
	}
	if _, err := ss.Update([]byte(`{"mcp_servers":{}}`)); err != nil || ss.Current().MCPServers != nil {
		t.Fatalf("clearing: %v %+v", err, ss.Current().MCPServers)
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
