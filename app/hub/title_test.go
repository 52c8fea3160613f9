package hub_test

import (
	"context"
	"encoding/json"
	"testing"

	"agenthub/app/hub"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

func autoTitle(c *hub.Config) { c.AutoTitle = true }

// untitled creates a session without a title (the UI's first message).
func (h *harness) untitled() store.Session {
	h.t.Helper()
	s, err := h.hub.CreateSession(context.Background(), ipc.CreateSessionRequest{})
	if err != nil {
		h.t.Fatalf("CreateSession: %v", err)
	}
	return s
}

// titled waits for the session.updated that names sid and returns it.
func (w *watcher) titled(sid string) store.Session {
	w.t.Helper()
	var sc ipc.SessionChanged
	w.until(func(e ev) bool {
		if e.Type != ipc.TypeSessionUpdated || e.SessionID != sid {
			return false
		}
		e.decode(w.t, &sc)
		return sc.Session.TitleSource == hub.TitleByHub
	})
	return sc.Session
}

// callOf returns the payload of the first event of typ whose purpose is purpose.
func callOf(t *testing.T, es []ev, typ, purpose string) (json.RawMessage, ev) {
	t.Helper()
	for _, e := range es {
		var p struct {
			Purpose string `json:"purpose"`
		}
		if e.Type == typ {
			e.decode(t, &p)
			if p.Purpose == purpose {
				return e.Payload, e
			}
		}
	}
	t.Fatalf("no %s with purpose %q in %v", typ, purpose, types(es))
	return nil, ev{}
}

// TestAutoTitleAfterFirstCompletedTurn: one visible title call (purpose
// "title", turn_id null, its cost in the session), the title set with
// session.updated, and no second title after the next turn.
func TestAutoTitleAfterFirstCompletedTurn(t *testing.T) {
	h := newHarness(t, autoTitle)
	s := h.untitled()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(textReply("Use a mutex."), textReply("You're welcome."))
	h.submit(s.ID, "How do I fix a data race in Go?\nIt happens in my cache.")
	w.turnEnd(s.ID)
	named := w.titled(s.ID)
	if named.Title != llmtest.DefaultTitle {
		t.Fatalf("title %q", named.Title)
	}
	_, started := callOf(t, w.got, ipc.TypeLLMCallStarted, hub.PurposeTitle)
	raw, completed := callOf(t, w.got, ipc.TypeLLMCallCompleted, hub.PurposeTitle)
	if started.TurnID != nil || completed.TurnID != nil {
		t.Fatalf("the title call belongs to a turn: %v %v", started.TurnID, completed.TurnID)
	}
	var cc ipc.LLMCallCompleted
	if err := json.Unmarshal(raw, &cc); err != nil || cc.Usage.InputTokens != 30 || cc.Usage.CostUSD <= 0 {
		t.Fatalf("title call usage %+v %v", cc.Usage, err)
	}
	rec, err := h.db.Session(s.ID)
	if err != nil || rec.Title != llmtest.DefaultTitle || rec.TitleSource != hub.TitleByHub || rec.Usage.InputTokens < 130 {
		t.Fatalf("stored session %+v %v", rec, err)
	}
	reqs := h.srv.TitleRequests()
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	if len(reqs) != 1 || reqs[0].Decode(&body) != nil || body.MaxTokens != llm.TitleMaxTokens {
		t.Fatalf("title requests %d, body %+v", len(reqs), body)
	}
	h.submit(s.ID, "thanks")
	w.turnEnd(s.ID)
	h.hub.Close() // waits for background work: a second title call would have started by now
	if n := len(h.srv.TitleRequests()); n != 1 {
		t.Fatalf("%d title requests after two turns", n)
	}
}

// TestAutoTitleFallsBackToFirstLine: a failed title call is visible as
// llm.call_failed (purpose "title") and the session takes the first line
// of its first message.
func TestAutoTitleFallsBackToFirstLine(t *testing.T) {
	h := newHarness(t, autoTitle)
	h.srv.AnswerTitles("") // the title request takes the next scripted response
	s := h.untitled()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(textReply("Sure."), llmtest.HTTPError(400, llmtest.AnthropicErrorBody("invalid_request_error", "no titles today")))
	h.submit(s.ID, "Refactor the parser\nand keep the tests green")
	w.turnEnd(s.ID)
	named := w.titled(s.ID)
	if named.Title != "Refactor the parser" {
		t.Fatalf("fallback title %q", named.Title)
	}
	raw, _ := callOf(t, w.got, ipc.TypeLLMCallFailed, hub.PurposeTitle)
	var cf ipc.LLMCallFailed
	if err := json.Unmarshal(raw, &cf); err != nil || cf.ErrorClass != ipc.ErrClassInvalidRequest || cf.WillRetry {
		t.Fatalf("failed title call %+v %v", cf, err)
	}
}

// TestNoAutoTitle: a session the user named (or renamed), a failed first
// turn, and auto titles turned off never cause a title call.
func TestNoAutoTitle(t *testing.T) {
	h := newHarness(t, autoTitle)
	named := h.session() // created with a title
	renamed := h.untitled()
	if _, err := h.hub.RenameSession(context.Background(), renamed.ID, "Mine"); err != nil {
		t.Fatal(err)
	}
	failing := h.untitled()
	for _, sid := range []string{named.ID, renamed.ID, failing.ID} {
		w := h.watch(sid, false)
		if sid == failing.ID {
			h.srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "bad key")))
		} else {
			h.srv.Enqueue(textReply("ok"))
		}
		h.submit(sid, "hello")
		w.turnEnd(sid)
	}
	h.hub.Close()
	if n := len(h.srv.TitleRequests()); n != 0 {
		t.Fatalf("%d title requests", n)
	}
	rec, _ := h.db.Session(renamed.ID)
	if rec.Title != "Mine" || rec.TitleSource != hub.TitleByUser {
		t.Fatalf("renamed session %+v", rec)
	}

	off := newHarness(t) // AutoTitle false
	s := off.untitled()
	w := off.watch(s.ID, false)
	off.srv.Enqueue(textReply("ok"))
	off.submit(s.ID, "hello")
	w.turnEnd(s.ID)
	off.hub.Close()
	if n := len(off.srv.TitleRequests()); n != 0 {
		t.Fatalf("auto titles off: %d title requests", n)
	}
}
