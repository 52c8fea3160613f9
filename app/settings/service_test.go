package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/ipc"
)

func TestSettingsServiceMasksAndKeepsEchoedKeys(t *testing.T) {
	dir := t.TempDir()
	ss := NewService(dir, Settings{}, nil, Status{})
	var seen []Settings
	ss.SetListener(func(s Settings) { seen = append(seen, s) })

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
	fi, err := os.Stat(filepath.Join(dir, File))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file mode %v err %v", fi.Mode().Perm(), err)
	}
	onDisk, err := Load(dir)
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
	ss := NewService(dir, Settings{Model: "openai:gpt-4.1"}, nil, Status{})
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
	if _, err := os.Stat(filepath.Join(dir, File)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a rejected patch wrote the file: %v", err)
	}
}

func TestSettingsServiceMCPServers(t *testing.T) {
	dir := t.TempDir()
	ss := NewService(dir, Settings{}, nil, Status{})
	var seen Settings
	ss.SetListener(func(s Settings) { seen = s })
	patch := `{"mcp_servers":{"files":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"],"env":{"A":"1"}},
		"web":{"url":"https://example.com/mcp","headers":{"Authorization":"Bearer x"},"workspace":"/home/u/p"}}}`
	if _, err := ss.Update([]byte(patch)); err != nil {
		t.Fatal(err)
	}
	if len(seen.MCPServers) != 2 || seen.MCPServers["files"].Args[0] != "-y" || seen.MCPServers["web"].Workspace != "/home/u/p" {
		t.Fatalf("listener saw %+v", seen.MCPServers)
	}
	loaded, err := Load(dir)
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

// tool_env is set through updateSettings (replacing the map), persisted,
// shown by getSettings, and refuses names a shell would not take and the
// ones Agent Hub sets itself; getSettings lists the sandbox's protections.
func TestToolEnvSetting(t *testing.T) {
	dir := t.TempDir()
	ss := NewService(dir, Settings{}, nil, Status{Sandbox: "bash sandbox: test", SandboxProtections: []string{"one", "two"}})
	out, err := ss.Update(json.RawMessage(`{"tool_env": {"NPM_TOKEN": "t0k", "JAVA_HOME": "/opt/jdk"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ToolEnv     map[string]string `json:"tool_env"`
		Protections []string          `json:"sandbox_protections"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.ToolEnv["NPM_TOKEN"] != "t0k" || len(v.Protections) != 2 {
		t.Fatalf("view %s: %v", out, err)
	}
	if again, err := Load(dir); err != nil || again.ToolEnv["JAVA_HOME"] != "/opt/jdk" {
		t.Fatalf("persisted: %+v %v", again.ToolEnv, err)
	}
	for _, bad := range []string{`{"A=B": "x"}`, `{"1X": "x"}`, `{"TMPDIR": "/x"}`, `{"AGENTHUB_TOOL_CALL": "x"}`, `{"X": "a\u0000b"}`} {
		if _, err := ss.Update(json.RawMessage(`{"tool_env": ` + bad + `}`)); !errors.Is(err, ipc.ErrInvalidInput) || !strings.Contains(err.Error(), "tool_env") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := ss.Update(json.RawMessage(`{"tool_env": {}}`)); err != nil || ss.Current().ToolEnv != nil {
		t.Fatalf("cleared: %v %v", ss.Current().ToolEnv, err)
	}
	// A client may echo the read-only status back.
	if _, err := ss.Update(json.RawMessage(`{"sandbox_protections": ["x"], "sandbox": "y"}`)); err != nil {
		t.Fatal(err)
	}
}

// AddListener keeps the listener before it: after a save both hear the new
// settings, the first one first (the gateway link follows gateway_url
// beside the providers).
func TestSettingsServiceAddListenerChains(t *testing.T) {
	ss := NewService(t.TempDir(), Settings{}, nil, Status{})
	var order []string
	ss.SetListener(func(s Settings) { order = append(order, "first:"+s.GatewayURL) })
	ss.AddListener(func(s Settings) { order = append(order, "second:"+s.GatewayURL) })
	if _, err := ss.Update(json.RawMessage(`{"gateway_url":"https://gw.example"}`)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "first:https://gw.example,second:https://gw.example" {
		t.Fatalf("listeners heard %q", got)
	}
}
