package faults

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/llm/llmtest"
)

// TestApprovalRoundTripOverTheDashboard: the real binary with its default
// approval mode (ask) holds a bash call until a dashboard client answers
// over POST /rpc; the answer reaches every subscriber; "deny" with a
// message reaches the model; nothing ran that was not approved.
func TestApprovalRoundTripOverTheDashboard(t *testing.T) {
	llm := llmtest.NewServer(t)
	d := newDirs(t)
	in := start(t, d, llm.URL, "--approval-mode", "ask")
	sid := in.session()
	cl, _ := in.attach(sid, "")
	defer cl.close()

	toolTurn(llm, [3]string{"tu_ok", "bash", `{"command":"echo approved > ok.txt"}`})
	in.submit(sid, "write ok.txt")
	req := cl.until("approval request", func(e event) bool { return e.Type == "tool.approval_requested" })
	var p struct {
		ToolUseID string `json:"tool_use_id"`
		Risk      string `json:"risk"`
	}
	_ = json.Unmarshal(req[len(req)-1].Payload, &p)
	if p.ToolUseID != "tu_ok" || p.Risk != "high" {
		t.Fatalf("request %s", req[len(req)-1].Payload)
	}
	if _, err := os.Stat(filepath.Join(d.workspace, "ok.txt")); !os.IsNotExist(err) {
		t.Fatal("the call ran before it was approved")
	}
	in.rpc(t, "approveTool", map[string]string{"session_id": sid, "tool_use_id": "tu_ok", "decision": "once"})
	evs := cl.until("turn end", turnEnded)
	if ends := toolEnds(evs); ends["tu_ok"]["event"] != "tool.completed" {
		t.Fatalf("tu_ok ended %v", ends["tu_ok"])
	}
	if !resolvedBy(evs, "tu_ok", "once", "dashboard") {
		t.Fatal("no tool.approval_resolved once by dashboard")
	}
	if b, err := os.ReadFile(filepath.Join(d.workspace, "ok.txt")); err != nil || string(b) != "approved\n" {
		t.Fatalf("ok.txt %q %v", b, err)
	}

	toolTurn(llm, [3]string{"tu_no", "bash", `{"command":"rm -f ok.txt"}`})
	in.submit(sid, "remove it")
	cl.until("approval request", func(e event) bool { return e.Type == "tool.approval_requested" })
	in.rpc(t, "approveTool", map[string]string{"session_id": sid, "tool_use_id": "tu_no", "decision": "deny", "message": "keep the file"})
	evs = cl.until("turn end", turnEnded)
	if ends := toolEnds(evs); ends["tu_no"]["error_class"] != "denied" {
		t.Fatalf("tu_no ended %v", ends["tu_no"])
	}
	if _, err := os.Stat(filepath.Join(d.workspace, "ok.txt")); err != nil {
		t.Fatal("the denied rm ran")
	}
	reqs := llm.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "keep the file") {
		t.Fatal("the model did not get the user's message")
	}
}

// resolvedBy reports whether evs hold tool.approval_resolved for id with
// the decision, answered by by.
func resolvedBy(evs []event, id, decision, by string) bool {
	for _, e := range evs {
		if e.Type != "tool.approval_resolved" {
			continue
		}
		var p struct{ ToolUseID, Decision, By string }
		var raw map[string]string
		_ = json.Unmarshal(e.Payload, &raw)
		p.ToolUseID, p.Decision, p.By = raw["tool_use_id"], raw["decision"], raw["by"]
		if p.ToolUseID == id && p.Decision == decision && p.By == by {
			return true
		}
	}
	return false
}

// rpc calls method over POST /rpc and fails the test unless it answers ok.
func (in *instance) rpc(t *testing.T, method string, params any) {
	t.Helper()
	var resp struct {
		OK    bool            `json:"ok"`
		Error json.RawMessage `json:"error"`
	}
	body := map[string]any{"type": "request", "requestId": "r-" + method, "method": method, "params": params}
	if c := in.call(http.MethodPost, "/rpc", body, &resp); c != http.StatusOK || !resp.OK {
		t.Fatalf("%s: %d %s", method, c, resp.Error)
	}
}
