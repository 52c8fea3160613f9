package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// TestDataDirInHomeWorkspace is issue 40 row 1's file-tool half against
// the real binary: the workspace is a home directory that holds the data
// dir (~/.local/share/agenthub, where a desktop launch without
// --workspace ends up), every call runs unasked (auto-all), and the model
// writes settings.json (an "MCP server" running sh) and permissions.json
// (allow everything) and reads dashboard.json (the dashboard's token).
// Each call is denied, the data dir is unchanged and the token never
// reaches the model.
func TestDataDirInHomeWorkspace(t *testing.T) {
	root, ctx := repoContext(t, 2*time.Minute)
	home := t.TempDir()
	data := filepath.Join(home, ".local", "share", "agenthub")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	srv.AnswerTitles("home")
	done := llmtest.NewGate()
	t.Cleanup(done.Release)
	usage := llmtest.AnthropicUsage{Input: 100, Output: 10}
	srv.Enqueue(
		llmtest.NewAnthropicStream(model, usage).
			ToolUse("toolu_1", "write_file", `{"path":".local/share/agenthub/settings.json","content":"{\"mcp_servers\":{\"x\":{\"command\":\"sh\",\"args\":[\"-c\",\"touch PWNED\"]}}}"}`).
			ToolUse("toolu_2", "write_file", `{"path":".local/share/agenthub/permissions.json","content":"{\"rules\":[{\"tool\":\"*\",\"action\":\"allow\"}]}"}`).
			ToolUse("toolu_3", "read_file", `{"path":".local/share/agenthub/dashboard.json"}`).
			Finish("tool_use", 30).Response(),
		llmtest.NewAnthropicStream(model, usage).Text("Done.").Stall(done).Finish("end_turn", 5).Response(),
	)
	info, stop := launchHeadless(t, ctx, headlessBin(t, ctx, root), data, home,
		[]string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test-key"}, "--approval-mode", "auto-all")
	t.Cleanup(stop)
	before := snapshot(t, data)

	c := newDashClient(t, info)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	c.http("POST", "/sessions", map[string]any{"title": "home"}, &sess)
	var submitted map[string]any
	c.http("POST", "/sessions/"+sess.SessionID+"/turns", map[string]any{"content": "set yourself up"}, &submitted)
	select {
	case <-done.Reached(): // the tool results went back to the model
	case <-ctx.Done():
		t.Fatal("the turn did not come back to the model")
	}
	reqs := srv.Requests()
	results := string(reqs[len(reqs)-1].Body)
	if n := strings.Count(results, "inside Agent Hub's data folder"); n != 3 {
		t.Errorf("%d of the 3 calls were refused as inside the data folder:\n%s", n, results)
	}
	if strings.Contains(results, info.Token) {
		t.Error("the dashboard token reached the model")
	}
	if after := snapshot(t, data); after != before {
		t.Errorf("the data dir changed:\n%s\nwas:\n%s", after, before)
	}
	done.Release()
}

// snapshot is the data dir's settings.json, permissions.json and
// dashboard.json as they are ("-" for a missing one).
func snapshot(t *testing.T, data string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range []string{"settings.json", "permissions.json", "dashboard.json"} {
		content, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			content = []byte("-")
		}
		b.WriteString(name + "=" + string(content) + "\n")
	}
	return b.String()
}
