package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/confine/confinetest"
	"agenthub/app/mcp"
)

// Row 9 of the attacks, for MCP servers: a stdio server gets an explicit
// environment — its configured env on top of PATH, HOME and the like —
// and none of the app's credentials. (It failed while servers inherited
// the app's whole environment.)
func TestStdioServerEnvironmentIsExplicit(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("OPENAI_API_KEY", "sk-openai-secret")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus")
	out := filepath.Join(t.TempDir(), "env.fifo")
	confinetest.MakeFIFO(t, out)
	m := mcp.NewManager(mcp.Options{DataDir: t.TempDir()})
	defer m.Close()
	m.Configure(map[string]mcp.ServerConfig{"envdump": {Command: "sh", Args: []string{"-c", `env > "$OUT"; exec sleep 60`},
		Env: map[string]string{"OUT": out, "SERVER_TOKEN": "configured"}}})
	b, err := os.ReadFile(out) // returns once the server has written it
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	if !strings.Contains(env, "SERVER_TOKEN=configured") || !strings.Contains(env, "PATH=") {
		t.Fatalf("the configured environment is missing:\n%s", env)
	}
	for _, leak := range []string{"sk-ant-secret", "sk-openai-secret", "DBUS_SESSION_BUS_ADDRESS"} {
		if strings.Contains(env, leak) {
			t.Fatalf("the server's environment holds %s:\n%s", leak, env)
		}
	}
}
