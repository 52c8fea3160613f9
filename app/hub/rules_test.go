package hub_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"agenthub/app/permission"
	"agenthub/ipc"
)

// Row 6 through the hub: the request carries the rule "always" stores,
// exactly that rule is stored, and it is narrow (python3 -c … asks next).
func TestAlwaysStoresTheRuleShown(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	h.srv.Enqueue(toolReply(bashCall("tu_1", "python3 build.py")), toolReply(bashCall("tu_2", "python3 -c 'print(1)'")), textReply("done"))
	h.submit(s.ID, "build")
	req := w.approvalRequest()
	want := ipc.PermissionRule{Tool: "bash", Command: "python3 build.py", Action: "allow"}
	if req.AlwaysRule == nil || *req.AlwaysRule != want {
		t.Fatalf("always_rule %+v, want %+v", req.AlwaysRule, want)
	}
	h.approve(s.ID, "tu_1", ipc.DecisionAlways, "")
	if res := w.approvalResolution(); res.Rule == nil || *res.Rule != want {
		t.Fatalf("resolution %+v", res)
	}
	if next := w.approvalRequest(); next.ToolUseID != "tu_2" {
		t.Fatalf("asked for %s", next.ToolUseID)
	}
	h.approve(s.ID, "tu_2", ipc.DecisionDeny, "")
	w.turnEnd(s.ID)
	rules, err := h.hub.PermissionRules(context.Background(), s.WorkspacePath)
	if err != nil || len(rules) != 1 || rules[0] != want {
		t.Fatalf("stored %+v %v, want [%+v]", rules, err, want)
	}
}

// The rule edited in the prompt is stored when it is valid and covers the
// call; otherwise approveTool answers INVALID_PARAMS and the call still
// waits.
func TestAlwaysStoresAnEditedRule(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	ctx := context.Background()
	h.srv.Enqueue(toolReply(bashCall("tu_1", "git status -s")), toolReply(bashCall("tu_2", "git log -1")), textReply("done"))
	h.submit(s.ID, "look")
	req := w.approvalRequest()
	if req.AlwaysRule == nil || *req.AlwaysRule != (ipc.PermissionRule{Tool: "bash", Prefix: "git status", Action: "allow"}) {
		t.Fatalf("always_rule %+v", req.AlwaysRule)
	}
	for _, bad := range []ipc.PermissionRule{
		{Tool: "bash", Prefix: "git push", Action: "allow"},    // does not cover the call
		{Tool: "*", Action: "allow"},                           // not the call's tool
		{Tool: "bash", Prefix: "git status", Action: "deny"},   // not an allow
		{Tool: "bash", Prefix: "git $(x)", Action: "allow"},    // not fixed words
		{Tool: "bash", Command: "git status", Action: "allow"}, // the exact command differs
	} {
		err := h.hub.ApproveTool(ctx, ipc.ApproveToolRequest{SessionID: s.ID, ToolUseID: "tu_1", Decision: ipc.DecisionAlways, Rule: &bad, By: "window"})
		if !errors.Is(err, ipc.ErrInvalidInput) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
	edited := ipc.PermissionRule{Tool: "bash", Prefix: "git", Action: "allow"}
	if err := h.hub.ApproveTool(ctx, ipc.ApproveToolRequest{SessionID: s.ID, ToolUseID: "tu_1", Decision: ipc.DecisionAlways, Rule: &edited, By: "window"}); err != nil {
		t.Fatal(err)
	}
	w.turnEnd(s.ID) // git log ran without asking: the edited rule covers it
	if n := countType(w.got, ipc.TypeToolApprovalRequested); n != 1 {
		t.Fatalf("%d requests", n)
	}
	if rules, _ := h.hub.PermissionRules(ctx, s.WorkspacePath); len(rules) != 1 || rules[0] != edited {
		t.Fatalf("stored %+v", rules)
	}
}

// Without a safe rule the request says so (no always_rule), and "always"
// without a rule is refused instead of counting as once.
func TestAlwaysNotAvailable(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	ctx := context.Background()
	h.srv.Enqueue(toolReply(bashCall("tu_1", "echo hi > out.txt && git status")), textReply("done"))
	h.submit(s.ID, "go")
	if req := w.approvalRequest(); req.AlwaysRule != nil {
		t.Fatalf("always_rule %+v for a line that writes a file", req.AlwaysRule)
	}
	err := h.hub.ApproveTool(ctx, ipc.ApproveToolRequest{SessionID: s.ID, ToolUseID: "tu_1", Decision: ipc.DecisionAlways, By: "window"})
	if !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("always without a rule: %v", err)
	}
	h.approve(s.ID, "tu_1", ipc.DecisionOnce, "")
	w.turnEnd(s.ID)
	if rules, _ := h.hub.PermissionRules(ctx, s.WorkspacePath); len(rules) != 0 {
		t.Fatalf("stored %+v", rules)
	}
}

// Row 7: auto-edits and an allowed git status. write_file .git/config
// (fsmonitor runs a command on the next git status) asks, and so does an
// edit of a hook in a nested repository and a write into the data dir;
// an ordinary write still runs at once.
func TestProtectedPathsAskInAutoEdits(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(h.ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.setMode(s.ID, string(permission.ModeAutoEdits))
	if _, err := h.hub.SetPermissionRules(ctx, s.WorkspacePath, []ipc.PermissionRule{{Tool: "bash", Prefix: "git status", Action: "allow"}, {Tool: "write_file", Action: "allow"}}); err != nil {
		t.Fatal(err)
	}
	config := `{"path":".git/config","content":"[core]\n\tfsmonitor = \"touch X\"\n"}`
	h.srv.Enqueue(toolReply([3]string{"tu_1", "write_file", `{"path":"notes.txt","content":"n"}`}, [3]string{"tu_2", "write_file", config}), textReply("done"))
	h.submit(s.ID, "configure")
	req := w.approvalRequest()
	if req.ToolUseID != "tu_2" || req.AlwaysRule != nil {
		t.Fatalf("asked %+v, want tu_2 without an always rule", req)
	}
	if fileExists(h.ws, ".git/config") {
		t.Fatal(".git/config was written before the answer")
	}
	h.approve(s.ID, "tu_2", ipc.DecisionDeny, "")
	w.turnEnd(s.ID)
	if fileExists(h.ws, ".git/config") || !fileExists(h.ws, "notes.txt") || countType(w.got, ipc.TypeToolApprovalRequested) != 1 {
		t.Fatalf(".git/config written %v, notes.txt written %v, %d requests: want only the .git/config write asked (and denied)",
			fileExists(h.ws, ".git/config"), fileExists(h.ws, "notes.txt"), countType(w.got, ipc.TypeToolApprovalRequested))
	}
}

// Row 1 through the approval gate, with real bash behind it: with
// "git status" allowed and "rm" denied, a comment that hides a newline
// does not smuggle rm past the deny rule (a.txt survives), and one that
// hides touch asks instead of running.
func TestRowOneThroughTheGate(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.hub.SetPermissionRules(ctx, s.WorkspacePath, []ipc.PermissionRule{{Tool: "bash", Prefix: "git status", Action: "allow"}, {Tool: "bash", Prefix: "rm", Action: "deny"}}); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(toolReply(bashCall("tu_1", "git status #'\nrm -f a.txt\n#'"), bashCall("tu_2", "git status #'\ntouch P\n#'")), textReply("done"))
	h.submit(s.ID, "status")
	if req := w.approvalRequest(); req.ToolUseID != "tu_2" {
		t.Fatalf("asked for %s, want tu_2", req.ToolUseID)
	}
	h.approve(s.ID, "tu_2", ipc.DecisionDeny, "")
	w.turnEnd(s.ID)
	if !fileExists(h.ws, "a.txt") || fileExists(h.ws, "P") {
		t.Fatalf("a.txt kept %v, P created %v", fileExists(h.ws, "a.txt"), fileExists(h.ws, "P"))
	}
	if !deniedByRule(t, w.got, "tu_1", `bash "rm": deny`) {
		t.Fatal("tu_1 was not denied by the rm rule")
	}
}
