package rpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/rpc"
	"agenthub/ipc/rpc/hubtest"
	"agenthub/store"
)

func newHub(t *testing.T) (*hubtest.Hub, *rpc.Dispatcher) {
	t.Helper()
	h := hubtest.NewBolt(t, ipc.Options{})
	d := rpc.NewDispatcher(nil)
	rpc.RegisterHub(d, h, h.Bus.Reader())
	return h, d
}

type resp struct {
	RequestID string          `json:"requestId"`
	OK        bool            `json:"ok"`
	Payload   json.RawMessage `json:"payload"`
	Error     *rpc.Error      `json:"error"`
}

func call(t *testing.T, d *rpc.Dispatcher, method string, params any) resp {
	t.Helper()
	p, _ := json.Marshal(params)
	frame := fmt.Sprintf(`{"type":"request","requestId":"q-%s","method":%q,"params":%s}`, method, method, p)
	var r resp
	if err := json.Unmarshal(d.DispatchFrame(context.Background(), []byte(frame)), &r); err != nil {
		t.Fatal(err)
	}
	if r.RequestID != "q-"+method {
		t.Fatalf("requestId %q", r.RequestID)
	}
	return r
}

func ok[T any](t *testing.T, r resp) T {
	t.Helper()
	if !r.OK {
		t.Fatalf("error response: %+v", r.Error)
	}
	var v T
	if err := json.Unmarshal(r.Payload, &v); err != nil {
		t.Fatalf("payload %s: %v", r.Payload, err)
	}
	return v
}

func code(t *testing.T, r resp, want string) {
	t.Helper()
	if r.OK || r.Error == nil || r.Error.Code != want {
		t.Fatalf("want %s, got ok=%v %+v", want, r.OK, r.Error)
	}
}

// addMessages commits n user messages to session id.
func addMessages(t *testing.T, h *hubtest.Hub, id string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		m := store.Message{ID: fmt.Sprintf("m%03d", i), SessionID: id, Role: store.RoleUser, Status: store.StatusComplete,
			Content: []store.ContentBlock{{Type: store.BlockText, Text: fmt.Sprint(i)}}, CreatedAt: time.Now().UTC()}
		if _, err := h.Bus.Commit(context.Background(), ipc.Draft{Type: ipc.TypeSessionUpdated, SessionID: id, Actor: ipc.ActorSystem,
			Payload: ipc.SessionChanged{}, Ops: []store.Op{store.PutMessage(m)}}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	return ids
}

func TestGetAgentMessagesPaging(t *testing.T) {
	h, d := newHub(t)
	s := ok[store.Session](t, call(t, d, "createSession", map[string]string{"title": "paging"}))
	ids := addMessages(t, h, s.ID, 120)

	page := ok[rpc.MessagesPage](t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "offset": 100, "limit": 30}))
	if page.Total != 120 || page.Offset != 100 || page.Limit != 30 || len(page.Messages) != 20 || page.Messages[0].ID != ids[100] {
		t.Fatalf("offset page: total %d offset %d limit %d n %d", page.Total, page.Offset, page.Limit, len(page.Messages))
	}
	def := ok[rpc.MessagesPage](t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID}))
	if def.Limit != rpc.DefaultMessageLimit || len(def.Messages) != 50 || def.Messages[0].ID != ids[0] {
		t.Fatalf("default page: %d messages, limit %d", len(def.Messages), def.Limit)
	}
	newest := ok[rpc.MessagesBeforePage](t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "before": "", "limit": 50}))
	if !newest.HasMore || len(newest.Messages) != 50 || newest.Messages[49].ID != ids[119] {
		t.Fatalf("newest page wrong: %d has_more %v", len(newest.Messages), newest.HasMore)
	}
	older := ok[rpc.MessagesBeforePage](t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "before": ids[10], "limit": 50}))
	if older.HasMore || len(older.Messages) != 10 || older.Messages[9].ID != ids[9] {
		t.Fatalf("older page wrong: %d has_more %v", len(older.Messages), older.HasMore)
	}
	// Empty session: an empty list, never null.
	e := ok[map[string]json.RawMessage](t, call(t, d, "getAgentMessages", map[string]any{"agentId": ok[store.Session](t, call(t, d, "createSession", nil)).ID}))
	if string(e["messages"]) != "[]" {
		t.Fatalf("empty session messages = %s", e["messages"])
	}
}

func TestGetAgentMessagesErrors(t *testing.T) {
	h, d := newHub(t)
	s := ok[store.Session](t, call(t, d, "createSession", nil))
	addMessages(t, h, s.ID, 3)
	code(t, call(t, d, "getAgentMessages", map[string]any{"agentId": "01HZNOSUCHSESSION"}), rpc.CodeAgentNotFound)
	code(t, call(t, d, "getAgentMessages", map[string]any{}), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", nil), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "offset": -1}), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "limit": 0}), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "limit": 100000}), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "limit": "ten"}), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "offset": 1.5}), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "before": "nope"}), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", map[string]any{"agentId": s.ID, "before": "", "offset": 0}), rpc.CodeInvalidParams)
	code(t, call(t, d, "getAgentMessages", []int{1}), rpc.CodeInvalidParams)
	code(t, call(t, d, "noSuchMethod", nil), rpc.CodeMethodNotFound)
}

func TestHubMethods(t *testing.T) {
	h, d := newHub(t)
	s := ok[store.Session](t, call(t, d, "createSession", map[string]string{"title": "first", "model": "openai:gpt-4.1"}))
	if s.Title != "first" || s.ActiveModel != "openai:gpt-4.1" || s.ID == "" {
		t.Fatalf("created %+v", s)
	}
	list := ok[struct{ Sessions []store.Session }](t, call(t, d, "listSessions", nil))
	if len(list.Sessions) != 1 || list.Sessions[0].ID != s.ID {
		t.Fatalf("list %+v", list)
	}
	if g := ok[store.Session](t, call(t, d, "getSession", map[string]string{"agentId": s.ID})); g.ID != s.ID {
		t.Fatalf("get %+v", g)
	}
	if r := ok[store.Session](t, call(t, d, "renameSession", map[string]string{"agentId": s.ID, "title": "renamed"})); r.Title != "renamed" {
		t.Fatalf("rename %+v", r)
	}
	code(t, call(t, d, "renameSession", map[string]string{"agentId": s.ID}), rpc.CodeInvalidParams)
	sub := ok[ipc.SubmitResult](t, call(t, d, "submitTurn", map[string]string{"agentId": s.ID, "content": "hello there"}))
	if sub.TurnID == "" {
		t.Fatal("no turn id")
	}
	code(t, call(t, d, "submitTurn", map[string]string{"agentId": s.ID, "content": "  "}), rpc.CodeInvalidParams)
	code(t, call(t, d, "submitTurn", map[string]string{"agentId": "missing", "content": "x"}), rpc.CodeAgentNotFound)
	ok[rpc.OK](t, call(t, d, "cancelTurn", map[string]string{"agentId": s.ID, "turnId": sub.TurnID}))
	if c := h.Cancels(); len(c) != 1 || c[0] != s.ID+"/"+sub.TurnID+"/user_cancel" {
		t.Fatalf("cancels %v", c)
	}
	code(t, call(t, d, "cancelTurn", map[string]string{"agentId": s.ID, "turnId": "01NOPE"}), rpc.CodeInvalidParams)
	ok[rpc.OK](t, call(t, d, "compactSession", map[string]string{"agentId": s.ID}))
	md := ok[rpc.ExportResult](t, call(t, d, "exportSession", map[string]string{"agentId": s.ID}))
	if md.Format != "markdown" || md.MediaType != "text/markdown" || !strings.Contains(md.Content, "hello there") {
		t.Fatalf("export %+v", md)
	}
	js := ok[rpc.ExportResult](t, call(t, d, "exportSession", map[string]string{"agentId": s.ID, "format": "json"}))
	if !json.Valid([]byte(js.Content)) {
		t.Fatal("json export not JSON")
	}
	code(t, call(t, d, "exportSession", map[string]string{"agentId": s.ID, "format": "pdf"}), rpc.CodeInvalidParams)
	set := ok[map[string]any](t, call(t, d, "updateSettings", map[string]any{"settings": map[string]any{"dashboard_enabled": true}}))
	if set["dashboard_enabled"] != true {
		t.Fatalf("settings %v", set)
	}
	if g := ok[map[string]any](t, call(t, d, "getSettings", nil)); g["dashboard_enabled"] != true {
		t.Fatalf("settings %v", g)
	}
	code(t, call(t, d, "updateSettings", "x"), rpc.CodeInvalidParams)
	models := ok[struct{ Models []ipc.ModelInfo }](t, call(t, d, "listModels", nil))
	if len(models.Models) == 0 {
		t.Fatal("no models")
	}
	ok[rpc.OK](t, call(t, d, "deleteSession", map[string]string{"sessionId": s.ID}))
	code(t, call(t, d, "getSession", map[string]string{"agentId": s.ID}), rpc.CodeAgentNotFound)
	code(t, call(t, d, "deleteSession", map[string]string{"agentId": s.ID}), rpc.CodeAgentNotFound)
	code(t, call(t, d, "compactSession", map[string]string{"agentId": s.ID}), rpc.CodeAgentNotFound)
}
