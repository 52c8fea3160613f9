package hub_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/hub"
	"agenthub/app/sandbox"
	"agenthub/app/tool"
	"agenthub/ipc"
)

// sandboxed confines the harness's bash with the real sandbox (the test
// binary is the helper).
func sandboxed(t *testing.T) func(*hub.Config) {
	if !sandbox.Probe().Files() {
		t.Skip(sandbox.Probe().String())
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func(c *hub.Config) {
		c.ToolOptions.Sandbox = &tool.Sandbox{Helper: self, CacheDir: t.TempDir()}
	}
}

// Protected paths: in a git repository sandboxed bash cannot write .git;
// the approval card offers git writes for the one call it approves, and the
// workspace's setting (setGitWrites, kept in permissions.json) allows them
// for every call.
func TestGitWritesOncePerApprovalOrPerWorkspace(t *testing.T) {
	h := newHarness(t, asking, sandboxed(t))
	if err := os.MkdirAll(filepath.Join(h.ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := h.session()
	w := h.watch(s.ID, false)
	write := func(id string) [3]string { return bashCall(id, "echo "+id+" > .git/"+id) }
	h.srv.Enqueue(toolReply(write("tu_plain")), toolReply(write("tu_granted")), toolReply(write("tu_after")), textReply("done"))
	h.submit(s.ID, "write .git")
	for _, c := range []struct {
		id    string
		grant bool
	}{{"tu_plain", false}, {"tu_granted", true}, {"tu_after", false}} {
		req := w.approvalRequest()
		if req.ToolUseID != c.id || !req.GitWritesOffer {
			t.Fatalf("request %+v: want %s offering git writes", req, c.id)
		}
		if err := h.hub.ApproveTool(context.Background(), ipc.ApproveToolRequest{SessionID: s.ID, ToolUseID: c.id,
			Decision: ipc.DecisionOnce, By: "dashboard", AllowGitWrites: c.grant}); err != nil {
			t.Fatal(err)
		}
	}
	w.turnEnd(s.ID)
	for id, want := range map[string]bool{"tu_plain": false, "tu_granted": true, "tu_after": false} {
		if got := fileExists(h.ws, filepath.Join(".git", id)); got != want {
			t.Errorf(".git/%s written: %v, want %v", id, got, want)
		}
	}

	on, err := h.hub.SetGitWrites(context.Background(), h.ws, true)
	if got, _ := h.hub.GitWrites(context.Background(), h.ws); err != nil || !on || !got {
		t.Fatalf("SetGitWrites: %v %v", on, err)
	}
	b, _ := os.ReadFile(filepath.Join(h.dir, "permissions.json"))
	if !strings.Contains(string(b), `"git_writes"`) {
		t.Fatalf("the setting is not in permissions.json:\n%s", b)
	}
	h.srv.Enqueue(toolReply(write("tu_setting")), textReply("done"))
	h.submit(s.ID, "again")
	if req := w.approvalRequest(); req.GitWritesOffer {
		t.Fatalf("git writes offered although the workspace allows them: %+v", req)
	}
	h.approve(s.ID, "tu_setting", ipc.DecisionOnce, "")
	w.turnEnd(s.ID)
	if !fileExists(h.ws, ".git/tu_setting") {
		t.Fatal("with the workspace's setting on, .git was not writable")
	}
	if _, err := h.hub.SetGitWrites(context.Background(), "relative", true); err == nil {
		t.Fatal("a relative workspace was accepted")
	}
}
