package dashboard_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/rpc"
	"agenthub/store"
)

// GET /sessions/{id}/messages?dialect= answers the page in the history
// shape of seed002 (indie-dev-portal's rows: content a JSON string) or
// seed004 (Potpie's messages: one answer per turn), a bare array as those
// clients map over; without dialect the answer is unchanged; another
// dialect is 400; a seed client's page size above the bound is read as the
// bound (Potpie asks for 1000).
func TestDialectHistoryRoute(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	msg := func(mid, role, status, text string, blocks ...store.ContentBlock) store.Message {
		if text != "" {
			blocks = append([]store.ContentBlock{{Type: store.BlockText, Text: text}}, blocks...)
		}
		at = at.Add(time.Second)
		return store.Message{ID: mid, SessionID: id, TurnID: "T1", Role: role, Status: status, Content: blocks, CreatedAt: at}
	}
	result := msg("R1", store.RoleToolResult, store.StatusComplete, "a.txt")
	result.ToolCallID, result.ToolName, result.StatusText, result.Summary = "tu_1", "list_dir", "Listed . (1 entry)", "1 entry"
	ops := []store.Op{
		store.PutTurn(store.Turn{ID: "T1", SessionID: id, UserMessageID: "U1", Status: store.TurnCompleted, CreatedAt: at}),
		store.PutMessage(msg("U1", store.RoleUser, store.StatusComplete, "list it")),
		store.PutMessage(msg("A1", store.RoleAssistant, store.StatusComplete, "Listing.",
			store.ContentBlock{Type: store.BlockToolCall, ID: "tu_1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)})),
		store.PutMessage(result),
		store.PutMessage(msg("A2", store.RoleAssistant, store.StatusError, "Broken")),
		store.PutMessage(msg("A3", store.RoleAssistant, store.StatusCancelled, "One file")),
	}
	if _, err := f.bus.Commit(context.Background(), ipc.Draft{Type: ipc.TypeSessionUpdated, SessionID: id, Actor: ipc.ActorSystem,
		Payload: map[string]any{}, Ops: ops}); err != nil {
		t.Fatal(err)
	}

	resp, b := f.do("GET", "/sessions/"+id+"/messages?dialect=seed002", "")
	rows := decode[[]map[string]string](t, b)
	want := []map[string]string{
		{"id": "U1", "role": "user", "content": `{"type":"text","text":"list it"}`},
		{"id": "A1", "role": "agent", "content": `{"type":"text","text":"Listing."}`},
		{"id": "A3", "role": "agent", "content": `{"type":"text","text":"One file\n\n_(cancelled)_"}`},
	}
	if resp.StatusCode != 200 || len(rows) != len(want) {
		t.Fatalf("seed002 history %d %s", resp.StatusCode, b)
	}
	for i, w := range want {
		if rows[i]["id"] != w["id"] || rows[i]["role"] != w["role"] || rows[i]["content"] != w["content"] || rows[i]["sessionId"] != id || rows[i]["timestamp"] == "" {
			t.Fatalf("seed002 row %d %v, want %v", i, rows[i], w)
		}
	}

	resp, b = f.do("GET", "/sessions/"+id+"/messages?dialect=seed004&start=0&limit=1000", "")
	var potpie []struct {
		ID        string           `json:"id"`
		Content   string           `json:"content"`
		Type      string           `json:"type"`
		ToolCalls []map[string]any `json:"tool_calls"`
		Thinking  *string          `json:"thinking"`
	}
	if err := json.Unmarshal(b, &potpie); err != nil || resp.StatusCode != 200 || len(potpie) != 2 {
		t.Fatalf("seed004 history %d %s (%v)", resp.StatusCode, b, err)
	}
	if h, a := potpie[0], potpie[1]; h.Type != "HUMAN" || h.Content != "list it" || h.ToolCalls != nil ||
		a.Type != "AI_GENERATED" || a.ID != "A1" || a.Content != "Listing.\n\nBroken\n\nOne file" || len(a.ToolCalls) != 1 ||
		a.ToolCalls[0]["event_type"] != "result" || a.ToolCalls[0]["tool_response"] != "Listed . (1 entry)" {
		t.Fatalf("seed004 history %s", b)
	}
	if args := obj(potpie[1].ToolCalls[0]["tool_call_details"])["arguments"]; obj(args)["path"] != "." {
		t.Fatalf("seed004 history: the call's arguments %v", args)
	}

	resp, b = f.do("GET", "/sessions/"+id+"/messages?limit=2", "")
	if page := decode[rpc.MessagesBeforePage](t, b); resp.StatusCode != 200 || len(page.Messages) != 2 || !page.HasMore {
		t.Fatalf("the canonical history changed: %s", b)
	}
	resp, b = f.do("GET", "/sessions/"+id+"/messages?dialect=seed000", "")
	f.wantError(resp, b, 400, "invalid_input")
	resp, b = f.do("GET", "/sessions/nope/messages?dialect=seed002", "")
	f.wantError(resp, b, 404, "session_not_found")
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
