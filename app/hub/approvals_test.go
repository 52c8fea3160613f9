package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/agent"
	"agenthub/app/hub"
	"agenthub/app/permission"
	"agenthub/ipc"
	"agenthub/ipc/wailsipc"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

func asking(c *hub.Config) { c.ApprovalMode = permission.ModeAsk }

// approvalOf waits for the next tool.approval_requested of the session.
func (w *watcher) approvalRequest() ipc.ToolApprovalRequested {
	e := w.untilType(ipc.TypeToolApprovalRequested)
	var p ipc.ToolApprovalRequested
	e.decode(w.t, &p)
	return p
}

func (w *watcher) approvalResolution() ipc.ToolApprovalResolved { // the next one after the events read so far
	e := w.untilType(ipc.TypeToolApprovalResolved)
	var p ipc.ToolApprovalResolved
	e.decode(w.t, &p)
	return p
}

func (h *harness) approve(sid, toolUseID, decision, message string) {
	h.t.Helper()
	if err := h.hub.ApproveTool(context.Background(), ipc.ApproveToolRequest{SessionID: sid, ToolUseID: toolUseID, Decision: decision, Message: message, By: "dashboard"}); err != nil {
		h.t.Fatalf("ApproveTool: %v", err)
	}
}

// bashCall is a model reply calling bash with cmd.
func bashCall(id, cmd string) [3]string {
	return [3]string{id, "bash", mustJSON(map[string]string{"command": cmd})}
}

// An asked call waits; approving it once runs it; answering it again is
// refused; the session's record counts the wait.
func TestApprovalOnceRunsTheCall(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	h.srv.Enqueue(toolReply(bashCall("tu_1", "echo approved > out.txt")), textReply("done"))
	h.submit(s.ID, "write it")
	req := w.approvalRequest()
	if req.ToolUseID != "tu_1" || req.ToolName != "bash" || req.Risk != ipc.RiskHigh || !strings.Contains(req.Summary, "echo approved") || req.Reason == "" {
		t.Fatalf("request %+v", req)
	}
	if rec, _ := h.hub.GetSession(context.Background(), s.ID); rec.PendingApprovals != 1 {
		t.Fatalf("pending approvals %d while waiting", rec.PendingApprovals)
	}
	if fileExists(h.ws, "out.txt") {
		t.Fatal("the call ran before it was approved")
	}
	if ps, err := h.hub.PendingApprovals(context.Background(), s.ID); err != nil || len(ps) != 1 || ps[0].ToolUseID != "tu_1" || ps[0].Summary != req.Summary {
		t.Fatalf("listing while waiting: %+v %v", ps, err)
	}
	h.approve(s.ID, "tu_1", ipc.DecisionOnce, "")
	if res := w.approvalResolution(); res.Decision != ipc.DecisionOnce || res.By != "dashboard" {
		t.Fatalf("resolution %+v", res)
	}
	w.untilType(ipc.TypeToolCompleted)
	w.turnEnd(s.ID)
	if !fileExists(h.ws, "out.txt") {
		t.Fatal("the approved call did not run")
	}
	err := h.hub.ApproveTool(context.Background(), ipc.ApproveToolRequest{SessionID: s.ID, ToolUseID: "tu_1", Decision: ipc.DecisionOnce})
	if !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("a second answer: %v", err)
	}
	if rec, _ := h.hub.GetSession(context.Background(), s.ID); rec.PendingApprovals != 0 {
		t.Fatalf("pending approvals %d after the answer", rec.PendingApprovals)
	}
	if ps, err := h.hub.PendingApprovals(context.Background(), s.ID); err != nil || len(ps) != 0 {
		t.Fatalf("listing after the answer: %+v %v", ps, err)
	}
	// Who approved is part of the history (issue 34 row 15): a reload shows it.
	if a := storedApproval(t, h, s.ID, "tu_1"); a == nil || a.Decision != ipc.DecisionOnce || a.By != "dashboard" {
		t.Fatalf("the stored result's approval = %+v", a)
	}
}

// storedApproval is the approval stored with the result of call toolUseID.
func storedApproval(t *testing.T, h *harness, sid, toolUseID string) *store.ToolApproval {
	t.Helper()
	for _, m := range h.messages(sid) {
		if m.Role == store.RoleToolResult && m.ToolCallID == toolUseID {
			return m.Approval
		}
	}
	t.Fatalf("no stored result of %s", toolUseID)
	return nil
}

// A denial with a message reaches the model as the call's result.
func TestApprovalDenyWithMessageReachesTheModel(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	h.srv.Enqueue(toolReply(bashCall("tu_1", "rm -rf ./src")), textReply("ok, I won't"))
	h.submit(s.ID, "clean up")
	w.approvalRequest()
	h.approve(s.ID, "tu_1", ipc.DecisionDeny, "keep src, delete build/ instead")
	e := w.untilType(ipc.TypeToolFailed)
	var f ipc.ToolFailed
	e.decode(t, &f)
	if f.ErrorClass != ipc.ToolErrDenied || !strings.Contains(f.Message, "keep src") {
		t.Fatalf("tool.failed %+v", f)
	}
	w.turnEnd(s.ID)
	reqs := h.srv.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "The user denied this tool call") || !strings.Contains(last, "keep src, delete build/ instead") {
		t.Fatalf("the model's next request does not carry the denial: %s", last)
	}
	if a := storedApproval(t, h, s.ID, "tu_1"); a == nil || a.Decision != ipc.DecisionDeny || a.Message != "keep src, delete build/ instead" {
		t.Fatalf("the stored result's approval = %+v", a)
	}
}

// "Always" stores an allow rule for the workspace: the next matching call
// runs without asking, a different command still asks.
func TestApprovalAlwaysPersistsPerWorkspace(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	h.srv.Enqueue(toolReply(bashCall("tu_1", "ls -la")), toolReply(bashCall("tu_2", "ls src")), toolReply(bashCall("tu_3", "cat x")), textReply("done"))
	h.submit(s.ID, "look")
	w.approvalRequest()
	h.approve(s.ID, "tu_1", ipc.DecisionAlways, "")
	third := w.approvalRequest() // tu_2 ran without asking
	if third.ToolUseID != "tu_3" {
		t.Fatalf("asked for %s, want tu_3 (ls is allowed now)", third.ToolUseID)
	}
	h.approve(s.ID, "tu_3", ipc.DecisionOnce, "")
	w.turnEnd(s.ID)
	rules, err := h.hub.PermissionRules(context.Background(), s.WorkspacePath)
	if err != nil || len(rules) != 1 || rules[0] != (ipc.PermissionRule{Tool: "bash", Prefix: "ls", Action: "allow"}) {
		t.Fatalf("rules %+v %v", rules, err)
	}
	b, err := os.ReadFile(filepath.Join(h.dir, permission.FileName))
	if err != nil || !strings.Contains(string(b), `"prefix": "ls"`) {
		t.Fatalf("rules file: %s %v", b, err)
	}
}

// Cancelling while a call waits: the tool never ran (tool.failed
// cancelled), the request resolves cancelled by cancel.
func TestApprovalCancelWhileWaiting(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	h.srv.Enqueue(toolReply(bashCall("tu_1", "echo ran > out.txt")))
	r := h.submit(s.ID, "go")
	w.approvalRequest()
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, ""); err != nil {
		t.Fatal(err)
	}
	if res := w.approvalResolution(); res.Decision != ipc.DecisionCancelled || res.By != ipc.ResolvedByCancel {
		t.Fatalf("resolution %+v", res)
	}
	e := w.untilType(ipc.TypeToolFailed)
	var f ipc.ToolFailed
	e.decode(t, &f)
	if f.ErrorClass != ipc.ToolErrCancelled {
		t.Fatalf("tool.failed %+v", f)
	}
	if end := w.turnEnd(s.ID); end.Type != ipc.TypeTurnCancelled {
		t.Fatalf("turn ended with %s", end.Type)
	}
	if fileExists(h.ws, "out.txt") {
		t.Fatal("a cancelled call ran")
	}
}

// The wait does not count against --turn-timeout.
//
// The timeout is derived from the work: the same turn (one bash call, two
// model calls) is first run without asking and timed, and the timeout leaves
// ten times that after the approval — a fixed 300 ms ran out on a machine
// at load 16 once the call was approved.
func TestApprovalWaitPausesTheTurnTimeout(t *testing.T) {
	warm := newHarness(t)
	ws := warm.session()
	ww := warm.watch(ws.ID, false)
	warm.srv.Enqueue(toolReply(bashCall("tu_1", "true")), textReply("done"))
	start := time.Now()
	warm.submit(ws.ID, "go")
	if end := ww.turnEnd(ws.ID); end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("the timed turn ended with %s", end.Type)
	}
	timeout := 300*time.Millisecond + 10*time.Since(start)

	h, s, w := watchedSession(t, asking, func(c *hub.Config) { c.TurnTimeout = timeout })
	h.srv.Enqueue(toolReply(bashCall("tu_1", "true")), textReply("done"))
	h.submit(s.ID, "go")
	w.approvalRequest()
	// Wait past the timeout, observed through the session record staying
	// busy: the turn must still be waiting, not cancelled.
	deadline := time.Now().Add(3 * timeout / 2)
	for time.Now().Before(deadline) {
		if rec, _ := h.hub.GetSession(context.Background(), s.ID); rec.CurrentTurnID == "" {
			t.Fatal("the turn ended while its call waited for approval")
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.approve(s.ID, "tu_1", ipc.DecisionOnce, "")
	if end := w.turnEnd(s.ID); end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("turn ended with %s", end.Type)
	}
}

// Modes and precedence through the hub: auto-all runs bash at once, a deny
// rule wins over it, auto-edits runs write_file and still asks for bash.
func TestApprovalModesAndPrecedence(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	ctx := context.Background()
	if _, err := h.hub.SetApprovalMode(ctx, s.ID, "yolo"); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("a bad mode: %v", err)
	}
	rec, err := h.hub.SetApprovalMode(ctx, s.ID, string(permission.ModeAutoAll))
	if err != nil || rec.ApprovalMode != "auto-all" {
		t.Fatalf("set mode: %+v %v", rec, err)
	}
	if _, err := h.hub.SetPermissionRules(ctx, s.WorkspacePath, []ipc.PermissionRule{{Tool: "bash", Prefix: "rm", Action: "deny"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.hub.SetPermissionRules(ctx, s.WorkspacePath, []ipc.PermissionRule{{Tool: "read_file", Prefix: "x", Action: "allow"}}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("an invalid rule: %v", err)
	}
	h.srv.Enqueue(toolReply(bashCall("tu_1", "echo a > a.txt"), bashCall("tu_2", "rm -f a.txt")), textReply("done"))
	h.submit(s.ID, "go")
	end := w.turnEnd(s.ID)
	if noAsk := countType(w.got, ipc.TypeToolApprovalRequested); noAsk != 0 || end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("auto-all asked %d times; turn %s", noAsk, end.Type)
	}
	if !fileExists(h.ws, "a.txt") {
		t.Fatal("the denied rm ran, or the allowed echo did not")
	}
	if !deniedByRule(t, w.got, "tu_2", `bash "rm": deny`) {
		t.Fatal("the rm call was not refused by the deny rule")
	}
	h.setMode(s.ID, string(permission.ModeAutoEdits))
	h.srv.Enqueue(toolReply([3]string{"tu_3", "write_file", `{"path":"b.txt","content":"b"}`}, bashCall("tu_4", "true")), textReply("done"))
	h.submit(s.ID, "again")
	if req := w.approvalRequest(); req.ToolUseID != "tu_4" {
		t.Fatalf("auto-edits asked for %s, want only tu_4 (bash)", req.ToolUseID)
	}
	h.approve(s.ID, "tu_4", ipc.DecisionOnce, "")
	w.turnEnd(s.ID)
	if !fileExists(h.ws, "b.txt") || countType(w.got, ipc.TypeToolApprovalRequested) != 1 {
		t.Fatalf("auto-edits: b.txt written %v, %d requests", fileExists(h.ws, "b.txt"), countType(w.got, ipc.TypeToolApprovalRequested))
	}
}

// The app stopping while a call waits (a graceful stop, and a crash whose
// log has an unanswered request): the request resolves cancelled by
// restart, and after the restart nothing waits.
func TestApprovalInterruptedByRestart(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	h.srv.Enqueue(toolReply(bashCall("tu_1", "true")))
	h.submit(s.ID, "go")
	w.approvalRequest()
	h.close() // graceful: the turn is cancelled by the shutdown
	h.open()
	if res := resolutionsIn(t, h, s.ID); len(res) != 1 || res[0].Decision != ipc.DecisionCancelled || res[0].By != ipc.ResolvedByRestart {
		t.Fatalf("resolutions after a stop: %+v", res)
	}
	if rec, _ := h.hub.GetSession(context.Background(), s.ID); rec.PendingApprovals != 0 || rec.CurrentTurnID != "" {
		t.Fatalf("record after restart: pending %d, turn %q", rec.PendingApprovals, rec.CurrentTurnID)
	}

	// A crash: the log has a running turn with an unanswered request.
	ctx := context.Background()
	now := time.Now().UTC()
	turn := store.Turn{ID: agent.NewID(), SessionID: s.ID, Status: store.TurnRunning, CreatedAt: now, StartedAt: now}
	d := func(typ string, p any, ops ...store.Op) ipc.Draft {
		return ipc.Draft{Type: typ, SessionID: s.ID, TurnID: turn.ID, Actor: ipc.ActorTool, Payload: p, Ops: ops}
	}
	rec, _ := h.hub.GetSession(ctx, s.ID)
	rec.CurrentTurnID, rec.PendingApprovals = turn.ID, 1
	if _, err := h.bus.Commit(ctx,
		d(ipc.TypeTurnStarted, ipc.TurnStarted{Input: "go"}, store.PutTurn(turn), store.PutSession(rec)),
		d(ipc.TypeToolApprovalRequested, ipc.ToolApprovalRequested{ToolUseID: "tu_crash", ToolName: "bash", Risk: ipc.RiskHigh}),
	); err != nil {
		t.Fatal(err)
	}
	h.close()
	h.open()
	res := resolutionsIn(t, h, s.ID)
	if last := res[len(res)-1]; last.ToolUseID != "tu_crash" || last.Decision != ipc.DecisionCancelled || last.By != ipc.ResolvedByRestart {
		t.Fatalf("resolution after a crash: %+v", last)
	}
	if rec, _ := h.hub.GetSession(ctx, s.ID); rec.PendingApprovals != 0 {
		t.Fatalf("pending approvals %d after recovery", rec.PendingApprovals)
	}
}

// resolutionsIn returns the session's tool.approval_resolved payloads in
// log order.
func resolutionsIn(t *testing.T, h *harness, sid string) []ipc.ToolApprovalResolved {
	t.Helper()
	var out []ipc.ToolApprovalResolved
	err := h.db.SessionEvents(sid, ulid.ULID{}, func(r store.EventRecord) error {
		if r.Type != ipc.TypeToolApprovalResolved {
			return nil
		}
		var e ev
		if err := json.Unmarshal(r.Data, &e); err != nil {
			return err
		}
		var p ipc.ToolApprovalResolved
		e.decode(t, &p)
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A delegated worker's request surfaces in its parent's session (with
// worker_session_id) and is answered there.
func TestApprovalOfAWorkerSurfacesInTheParent(t *testing.T) {
	h := newHarness(t, func(c *hub.Config) { c.ApprovalMode = permission.ModeAutoEdits }) // delegate is not an edit: it asks too
	s := h.session()
	w := h.watch(s.ID, false) // the parent's own events only
	h.srv.Enqueue(
		toolReply(delegateCall("tu_d", "touch a file")),
		toolReply(bashCall("tu_w", "touch from-worker.txt")), // the worker
		textReply("touched"),                                 // the worker's follow-up
		textReply("done"),                                    // the parent's follow-up
	)
	h.submit(s.ID, "delegate it")
	if req := w.approvalRequest(); req.ToolUseID != "tu_d" {
		t.Fatalf("first request %+v, want the delegate call", req)
	}
	h.approve(s.ID, "tu_d", ipc.DecisionOnce, "")
	req := w.approvalRequest()
	// A worker's calls get minted ids: unique beside the parent's own calls.
	if !strings.HasPrefix(req.ToolUseID, agent.MintedCallPrefix) || req.WorkerSessionID == "" || req.WorkerSessionID == s.ID {
		t.Fatalf("the worker's request as the parent sees it: %+v", req)
	}
	if ps, _ := h.hub.PendingApprovals(context.Background(), s.ID); len(ps) != 1 || ps[0].WorkerSessionID != req.WorkerSessionID {
		t.Fatalf("the parent's listing: %+v", ps)
	}
	h.approve(s.ID, req.ToolUseID, ipc.DecisionOnce, "") // answered from the parent's view
	if end := w.turnEnd(s.ID); end.Type != ipc.TypeTurnCompleted || !fileExists(h.ws, "from-worker.txt") {
		t.Fatalf("turn %s; worker's file written %v", end.Type, fileExists(h.ws, "from-worker.txt"))
	}
	var got []string
	for _, e := range w.got {
		if e.Type == ipc.TypeToolApprovalResolved {
			var r ipc.ToolApprovalResolved
			e.decode(t, &r)
			got = append(got, r.ToolUseID+"/"+r.Decision+"/"+r.WorkerSessionID)
		}
	}
	if want := []string{"tu_d/once/", req.ToolUseID + "/once/" + req.WorkerSessionID}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("resolutions in the parent %v, want %v", got, want)
	}
}

func TestSetSandboxOptions(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	rec, err := h.hub.SetSandboxOptions(context.Background(), s.ID, true, true)
	if err != nil || !rec.SandboxReadWorkspaceOnly || !rec.SandboxNoNetwork {
		t.Fatalf("%+v %v", rec, err)
	}
	if got, _ := h.hub.GetSession(context.Background(), s.ID); !got.SandboxReadWorkspaceOnly || !got.SandboxNoNetwork {
		t.Fatalf("stored %+v", got)
	}
	if _, err := h.hub.SetSandboxOptions(context.Background(), "nope", false, false); !errors.Is(err, ipc.ErrSessionNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}

// nopEmitter drops the window's frames (this test drives RPC only).
type nopEmitter struct{}

func (nopEmitter) Emit(string, ...any) {}

// The window's path with the real hub: the page answers over the bound
// Bridge's one RPC method, and the resolution says the window answered.
func TestApprovalOverTheWailsBridge(t *testing.T) {
	h, s, w := watchedSession(t, asking)
	svc, err := wailsipc.NewService(wailsipc.Options{Bus: h.bus, Hub: h.hub, Emitter: nopEmitter{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	h.srv.Enqueue(toolReply(bashCall("tu_1", "true")), textReply("done"))
	h.submit(s.ID, "go")
	w.approvalRequest()
	resp, err := svc.Bridge().Request(`{"type":"request","requestId":"a1","method":"approveTool","params":{"session_id":"` + s.ID + `","tool_use_id":"tu_1","decision":"once"}}`)
	if err != nil || !strings.Contains(string(resp.(json.RawMessage)), `"ok":true`) {
		t.Fatalf("approveTool over the bridge: %s %v", resp, err)
	}
	if res := w.approvalResolution(); res.Decision != ipc.DecisionOnce || res.By != "window" {
		t.Fatalf("resolution %+v", res)
	}
	if end := w.turnEnd(s.ID); end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("turn %s", end.Type)
	}
}
