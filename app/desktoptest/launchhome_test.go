//go:build smoketest

package desktoptest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/llm/llmtest"
	"agenthub/app/smoketest"
)

// TestDesktopLaunchFromHome is issue 40 row 1 with the real window: the app
// started the way a desktop launcher starts it — in $HOME, with no
// --workspace and no --data-dir, so its data dir is a fresh one under that
// home — offers no folder: a session without one is refused (the window
// asks for a folder on the first message). When the user then does pick
// $HOME itself, the model's writes of the data dir's settings.json (an "MCP
// server" that is a shell) and permissions.json (allow everything) in
// auto-edits are refused and nothing in the data dir changes.
func TestDesktopLaunchFromHome(t *testing.T) {
	bin, artifacts := setup(t)
	ctx := context.Background()
	home := t.TempDir()
	dataDir := filepath.Join(home, ".local", "share", "agenthub")
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	usage := llmtest.AnthropicUsage{Input: 10, Output: 1}
	srv.Enqueue(
		llmtest.NewAnthropicStream(model, usage).
			ToolUse("toolu_1", "write_file", `{"path":".local/share/agenthub/settings.json","content":"{\"mcp_servers\":{\"x\":{\"command\":\"sh\",\"args\":[\"-c\",\"touch PWNED\"]}}}"}`).
			ToolUse("toolu_2", "write_file", `{"path":".local/share/agenthub/permissions.json","content":"{\"rules\":[{\"tool\":\"*\",\"action\":\"allow\"}]}"}`).
			Finish("tool_use", 30).Response(),
		llmtest.NewAnthropicStream(model, usage).Text("Done.").Finish("end_turn", 5).Response(),
	)
	env := []string{"HOME=" + home, "XDG_DATA_HOME=", "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=",
		"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test-key"}
	d := startDesktopIn(t, home, bin, artifacts, env,
		"--listen", "127.0.0.1:0", "--model", "anthropic:"+model, "--approval-mode", "auto-edits")
	d.awaitReport("the app started in the page", func(r smoketest.PageReport) bool { return r.Ready })
	dash := readDashboard(t, dataDir) // the data dir is the fresh one under this home
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "click", "selector": ".welcome-actions .btn-primary"}})
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "paint"}})
	d.awaitReport("a painted frame", func(r smoketest.PageReport) bool { return r.Kind == "painted" })
	d.screenshot("desktop-launch-from-home.png") // the new session asks for a folder

	// No folder is assumed: not the launch directory ($HOME).
	dash.call(ctx, t, http.MethodPost, "/sessions", map[string]string{"title": "no folder"}, http.StatusBadRequest, nil)
	before := dataDirFiles(t, dataDir)

	// The user picks $HOME itself: the data dir inside it stays off limits.
	var sess struct {
		SessionID string `json:"session_id"`
	}
	dash.call(ctx, t, http.MethodPost, "/sessions", map[string]string{"title": "home", "workspace_path": home}, http.StatusCreated, &sess)
	stream := dash.attach(ctx, t, sess.SessionID)
	dash.call(ctx, t, http.MethodPost, "/sessions/"+sess.SessionID+"/turns", map[string]string{"content": "set yourself up"}, http.StatusAccepted, nil)
	stream.until(t, "the turn's end", func(e event) bool { return e.Type == "turn.completed" })
	reqs := srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); strings.Count(body, "inside Agent Hub's data folder") != 2 {
		t.Errorf("the model was not told both writes were refused as inside the data folder:\n%s", body)
	}
	after := dataDirFiles(t, dataDir)
	for _, name := range []string{"settings.json", "permissions.json"} {
		if before[name] != after[name] {
			t.Errorf("%s changed:\nbefore %q\nafter  %q", name, before[name], after[name])
		}
	}
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "open", "session_id": sess.SessionID}})
	d.awaitReport("the session", func(r smoketest.PageReport) bool { return r.SessionID == sess.SessionID })
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "paint"}})
	d.awaitReport("a painted frame", func(r smoketest.PageReport) bool { return r.Kind == "painted" })
	d.screenshot("desktop-launch-from-home-refused.png")
	if _, err := os.Stat(filepath.Join(home, "PWNED")); err == nil {
		t.Error("the planted command ran")
	}
	d.quit()
}

// dataDirFiles maps the data dir's top-level regular files to their
// content ("" for none).
func dataDirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = string(b)
		}
	}
	return out
}
