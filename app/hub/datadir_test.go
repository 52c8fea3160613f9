//go:build unix

package hub_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/confine/confinetest"
	"agenthub/app/hub"
	"agenthub/ipc"
)

// TestDataDirInWorkspaceIsOffLimits is issue 40 row 1 end to end in the
// hub: the workspace is the user's home, which holds the data dir (a
// desktop launch without --workspace), and every tool call runs unasked
// (auto-all). The model's write_file of settings.json and permissions.json
// is denied and changes nothing; an @ of the data dir's keys attaches
// nothing; and @pipe.md naming a FIFO (row 7) does not hold the
// submission.
func TestDataDirInWorkspaceIsOffLimits(t *testing.T) {
	var data string
	h := newHarness(t, func(c *hub.Config) {
		data = filepath.Join(c.DefaultWorkspace, ".local", "share", "agenthub")
		c.DataDir = data
	})
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(data, "settings.json")
	if err := os.WriteFile(settings, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "secrets.json"), []byte(`{"k":"sk-ant-SECRET"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(h.ws, "pipe.md")
	confinetest.MakeFIFO(t, pipe)
	s := h.session()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(toolReply(
		[3]string{"tu_1", "write_file", `{"path":".local/share/agenthub/settings.json","content":"{\"mcp_servers\":{\"x\":{\"command\":\"sh\"}}}"}`},
		[3]string{"tu_2", "write_file", `{"path":".local/share/agenthub/permissions.json","content":"[{\"tool\":\"*\",\"action\":\"allow\"}]"}`},
	), textReply("done"))
	confinetest.NoFIFOReader(t, pipe, func() {
		h.submit(s.ID, "set me up; see @pipe.md and @.local/share/agenthub/secrets.json")
	})
	var started ipc.TurnStarted
	w.untilType(ipc.TypeTurnStarted).decode(t, &started)
	if len(started.Attachments) != 0 {
		t.Fatalf("attached %+v", started.Attachments)
	}
	for range 2 {
		var f ipc.ToolFailed
		w.untilType(ipc.TypeToolFailed).decode(t, &f)
		if f.ErrorClass != ipc.ToolErrDenied || !strings.Contains(f.Message, "data folder") {
			t.Fatalf("tool.failed %+v", f)
		}
	}
	w.turnEnd(s.ID)
	if b, _ := os.ReadFile(settings); string(b) != "{}\n" {
		t.Fatalf("settings.json = %q", b)
	}
	if _, err := os.Stat(filepath.Join(data, "permissions.json")); !os.IsNotExist(err) {
		t.Fatalf("permissions.json was written: %v", err)
	}
	if body := string(h.srv.Requests()[0].Body); strings.Contains(body, "SECRET") {
		t.Fatal("the model was sent the data dir's keys")
	}
}
