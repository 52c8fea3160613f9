package rpc_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/rpc"
	"agenthub/store"
)

// routedCall sends one seed 003 RoutedMessage request and decodes the
// routed response.
func routedCall(t *testing.T, d *rpc.Dispatcher, frame string) (rpc.RoutedMessage, resp) {
	t.Helper()
	var env rpc.RoutedMessage
	out := d.DispatchFrame(context.Background(), []byte(frame))
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	var r resp
	if err := json.Unmarshal(env.Payload, &r); err != nil {
		t.Fatalf("payload %s: %v", env.Payload, err)
	}
	var top map[string]json.RawMessage
	if _ = json.Unmarshal(env.Payload, &top); top["type"] != nil {
		t.Fatalf("routed payload carries the flat frame's type: %s", env.Payload)
	}
	return env, r
}

// A request in seed 003's RoutedMessage envelope is answered in it: a
// UUIDv7 id, uid null, from the hub to the sender, action "response"; and
// getAgentMessages answers with the seed's AgentMessage shapes.
func TestRoutedRequests(t *testing.T) {
	h, d := newHub(t)
	s := ok[store.Session](t, call(t, d, "createSession", nil))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, m := range []store.Message{
		{ID: "01J0000000000000000000000A", SessionID: s.ID, Offset: 0, Role: store.RoleUser, Status: store.StatusComplete, CreatedAt: at,
			Content: []store.ContentBlock{{Type: store.BlockText, Text: "Hello"}}},
		{ID: "01J0000000000000000000000B", SessionID: s.ID, Offset: 1, Role: store.RoleAssistant, Status: store.StatusComplete, CreatedAt: at.Add(time.Second),
			Model: "anthropic:claude-sonnet-4-6", StopReason: "tool_use", Usage: &store.Usage{InputTokens: 10, OutputTokens: 15},
			Content: []store.ContentBlock{{Type: store.BlockText, Text: ""}, {Type: store.BlockToolCall, ID: "t1", Name: "list_dir"}}},
		{ID: "01J0000000000000000000000C", SessionID: s.ID, Offset: 2, Role: store.RoleToolResult, Status: store.StatusComplete, CreatedAt: at.Add(2 * time.Second),
			ToolCallID: "t1", ToolName: "list_dir", Content: []store.ContentBlock{{Type: store.BlockText, Text: "a.txt"}}},
	} {
		if _, err := h.Bus.Commit(context.Background(), ipc.Draft{Type: ipc.TypeSessionUpdated, SessionID: s.ID, Actor: ipc.ActorSystem,
			Payload: ipc.SessionChanged{}, Ops: []store.Op{store.PutMessage(m)}}); err != nil {
			t.Fatal(err)
		}
	}
	env, r := routedCall(t, d, `{"id":"0190a0e4-7b3c-7000-8000-000000000001","uid":null,"from":"client-1","to":"agenthub","action":"request",
		"payload":{"requestId":"0190a0e4-7b3c-7000-8000-000000000002","method":"getAgentMessages","params":{"agentId":"`+s.ID+`","offset":0,"limit":10}}}`)
	if env.Action != rpc.ActionResponse || env.From != rpc.HubID || env.To != "client-1" || env.UID != nil || !r.OK ||
		r.RequestID != "0190a0e4-7b3c-7000-8000-000000000002" {
		t.Fatalf("envelope %+v payload %+v", env, r)
	}
	if len(env.ID) != 36 || env.ID[14] != '7' {
		t.Fatalf("response id %q is not a UUIDv7", env.ID)
	}
	want := `{"messages":[` +
		`{"id":"01J0000000000000000000000A","role":"user","content":"Hello","timestamp":1767323045000,"status":"complete"},` +
		`{"id":"01J0000000000000000000000B","role":"assistant","content":[{"type":"text","text":""},{"type":"toolCall","id":"t1","name":"list_dir","arguments":{}}],"timestamp":1767323046000,"status":"complete","model":"claude-sonnet-4-6","provider":"anthropic","usage":{"input":10,"output":15,"cacheRead":0,"cacheWrite":0,"totalTokens":25,"cost":0},"stopReason":"tool_use"},` +
		`{"id":"01J0000000000000000000000C","role":"toolResult","content":[{"type":"text","text":"a.txt"}],"timestamp":1767323047000,"status":"complete","toolCallId":"t1","toolName":"list_dir","isError":false}],` +
		`"total":3,"offset":0,"limit":10}`
	if string(r.Payload) != want {
		t.Fatalf("payload\n got %s\nwant %s", r.Payload, want)
	}
	// The flat envelope keeps the store shapes.
	flat := ok[rpc.MessagesPage](t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID}))
	if len(flat.Messages) != 3 || flat.Messages[1].Model != "anthropic:claude-sonnet-4-6" {
		t.Fatalf("flat page %+v", flat)
	}
	// Errors keep seed 003's codes; a malformed routed request is INVALID_PARAMS.
	for frame, code := range map[string]string{
		`{"id":"1","uid":null,"from":"c","to":"agenthub","action":"request","payload":{"requestId":"r","method":"nope"}}`:                                      rpc.CodeMethodNotFound,
		`{"id":"1","uid":null,"from":"c","to":"agenthub","action":"request","payload":{"requestId":"r","method":"getAgentMessages","params":{"agentId":"x"}}}`: rpc.CodeAgentNotFound,
		`{"id":"1","uid":null,"from":"c","to":"agenthub","action":"response","payload":{}}`:                                                                    rpc.CodeInvalidParams,
		`{"id":"1","uid":null,"from":"c","to":"agenthub","action":"request","payload":[1]}`:                                                                    rpc.CodeInvalidParams,
		`{"id":"1","uid":null,"from":"c","to":"agenthub","action":"request","payload":{"method":"listSessions"}}`:                                              rpc.CodeInvalidParams,
	} {
		env, r := routedCall(t, d, frame)
		if r.OK || r.Error == nil || r.Error.Code != code || env.To != "c" {
			t.Errorf("%s → %+v %+v, want %s", frame, env, r, code)
		}
	}
}
