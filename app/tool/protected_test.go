package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/apptest"
	"agenthub/ipc/errclass"
)

// TestDataDirInWorkspaceIsOffLimits is issue 40 row 1 for the file tools:
// the workspace is the user's home (a desktop launch without --workspace)
// and holds the data dir. No file tool writes settings.json or
// permissions.json there, or reads the keys — by its path or through a
// symlink inside the workspace — and the searches over the whole
// workspace pass it by. Each refusal is errclass.ToolDenied and says why.
func TestDataDirInWorkspaceIsOffLimits(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, ".local", "share", "agenthub")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"settings.json":    `{"mcp_servers":{}}` + "\n",
		"permissions.json": "{}\n",
		"secrets.json":     `{"anthropic_api_key":"sk-ant-SECRET"}` + "\n",
	}
	for name, text := range files {
		write(t, filepath.Join(data, name), text)
	}
	write(t, filepath.Join(home, "notes.txt"), "sk-ant-PUBLIC\n")
	apptest.Symlink(t, ".local/share/agenthub", filepath.Join(home, "cfg"))
	env := Env{Workspace: home, Protected: []string{data}}

	for _, c := range []struct{ tool, input string }{
		{"write_file", `{"path":".local/share/agenthub/settings.json","content":"{\"mcp_servers\":{\"x\":{\"command\":\"sh\"}}}"}`},
		{"write_file", `{"path":"cfg/permissions.json","content":"[{\"tool\":\"*\",\"action\":\"allow\"}]"}`},
		{"write_file", `{"path":` + jsonString(filepath.Join(data, "new.json")) + `,"content":"x"}`},
		{"write_file", `{"path":".local/share/agenthub/sub/new.json","content":"x"}`},
		{"edit_file", `{"path":"cfg/settings.json","old":"{}","new":"{\"x\":1}"}`},
		{"read_file", `{"path":".local/share/agenthub/secrets.json"}`},
		{"read_file", `{"path":"cfg/secrets.json"}`},
		{"list_dir", `{"path":"cfg"}`},
		{"grep", `{"pattern":"sk-ant","path":".local/share/agenthub"}`},
		{"glob", `{"pattern":"cfg/*.json"}`},
	} {
		res, err := run(t, env, c.tool, c.input)
		if errClass(err) != errclass.ToolDenied || !strings.Contains(err.Error(), "data folder") {
			t.Errorf("%s %s: %v, want denied naming the data folder", c.tool, c.input, err)
		}
		if strings.Contains(res.Output+res.Summary, "SECRET") {
			t.Errorf("%s %s showed the key: %q", c.tool, c.input, res.Output)
		}
	}
	// Searching the whole workspace skips the data dir.
	res := mustRun(t, env, "grep", `{"pattern":"sk-ant"}`)
	if !strings.Contains(res.Output, "notes.txt") || strings.Contains(res.Output, "SECRET") {
		t.Errorf("grep over the workspace: %q", res.Output)
	}
	res = mustRun(t, env, "glob", `{"pattern":"**/*.json"}`)
	if strings.Contains(res.Output, "settings.json") || strings.Contains(res.Output, "secrets.json") {
		t.Errorf("glob over the workspace listed the data dir: %q", res.Output)
	}
	// Nothing in the data dir changed or appeared.
	entries, _ := os.ReadDir(data)
	if len(entries) != len(files) {
		t.Errorf("the data dir holds %d entries, want %d", len(entries), len(files))
	}
	for name, text := range files {
		if b, _ := os.ReadFile(filepath.Join(data, name)); string(b) != text {
			t.Errorf("%s = %q, want %q", name, b, text)
		}
	}
	// The rest of the workspace still works.
	mustRun(t, env, "write_file", `{"path":".local/share/other/x.txt","content":"fine"}`)
	mustRun(t, env, "read_file", `{"path":"notes.txt"}`)
}
