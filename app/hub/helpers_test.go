package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/custom"
	"agenthub/app/hub"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/app/permission"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/ipc/dialect"
	"agenthub/store"
)

const testModel = "anthropic:claude-sonnet-4-6"

// waitLimit guards against a hung test; no test synchronises on time.
const waitLimit = 30 * time.Second

type harness struct {
	t   *testing.T
	dir string
	ws  string
	db  *store.DB
	bus *ipc.Bus
	hub *hub.Hub
	srv *llmtest.Server
	reg hub.Providers
	cfg hub.Config
}

type harnessOpt func(*hub.Config)

func newHarness(t *testing.T, opts ...harnessOpt) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir(), ws: fixedLengthTempDir(t), srv: llmtest.NewServer(t)}
	h.reg = llm.New(llm.Config{AnthropicAPIKey: "test-key", AnthropicBaseURL: h.srv.URL, IgnoreEnv: true, IdleTimeout: 20 * time.Second})
	h.cfg = hub.Config{
		DataDir: h.dir, DefaultWorkspace: h.ws, DefaultModel: testModel,
		Backoff:     func(int, time.Duration) time.Duration { return time.Millisecond },
		ToolOptions: tool.Options{KillGrace: 200 * time.Millisecond},
		// Tool calls run without asking unless a test is about approvals
		// (approvals_test.go sets ask).
		ApprovalMode: permission.ModeAutoAll,
		// The developer's own commands, skills and agents stay out.
		CustomDirs: func() []custom.UserDir { return nil },
	}
	for _, o := range opts {
		o(&h.cfg)
	}
	h.open()
	t.Cleanup(h.close)
	return h
}

// fixedLengthTempDir is a fresh directory whose path has the same length
// in every run (t.TempDir's random part does not): the workspace's path
// is in the system prompt, so the context estimates the recorded traces
// hold would otherwise change with it.
func fixedLengthTempDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("agenthub-ws-%010d", rand.Uint32()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// scripted makes the hub's providers the in-memory twin playing replies
// (for tests of the hub's logic, not of a provider's wire format).
func (h *harness) scripted(replies ...llmtest.Reply) *llmtest.Scripted {
	s := llmtest.NewScripted(replies...)
	h.reg = s
	h.hub.SetProviders(s)
	return s
}

// open opens the store, bus and hub on h.dir and starts the hub.
func (h *harness) open() {
	t := h.t
	t.Helper()
	db, err := store.Open(filepath.Join(h.dir, "agenthub.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	bus, err := ipc.NewBus(ipc.BoltStore(db), ipc.Options{PruneInterval: -1, ClientQueue: 100000, Dialects: dialect.New()})
	if err != nil {
		t.Fatalf("NewBus: %v", err)
	}
	hb, err := hub.New(h.cfg, bus, h.reg, nil)
	if err != nil {
		t.Fatalf("hub.New: %v", err)
	}
	h.db, h.bus, h.hub = db, bus, hb
	if err := hb.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
}

func (h *harness) close() {
	if h.hub == nil {
		return
	}
	h.hub.Close()
	h.bus.Close()
	h.db.Close()
	h.hub = nil
}

// watchedSession is the start of most tests: a harness (with opts), one
// session and a watch of it (its workers left out).
func watchedSession(t *testing.T, opts ...harnessOpt) (*harness, store.Session, *watcher) {
	t.Helper()
	h := newHarness(t, opts...)
	s := h.session()
	return h, s, h.watch(s.ID, false)
}

// session creates a session with the default workspace and model.
func (h *harness) session() store.Session {
	h.t.Helper()
	s, err := h.hub.CreateSession(context.Background(), ipc.CreateSessionRequest{Title: "test"})
	if err != nil {
		h.t.Fatalf("CreateSession: %v", err)
	}
	return s
}

// ev is a decoded event.
type ev struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	SessionID string          `json:"session_id"`
	TurnID    *string         `json:"turn_id"`
	Actor     string          `json:"actor"`
	Payload   json.RawMessage `json:"payload"`
}

func (e ev) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(e.Payload, v); err != nil {
		t.Fatalf("%s payload: %v", e.Type, err)
	}
}

// watcher is a preset:full subscription (optionally with worker sessions).
type watcher struct {
	t   *testing.T
	sub *ipc.Subscription
	got []ev
}

func (h *harness) watch(sessionID string, workers bool) *watcher {
	h.t.Helper()
	filter := json.RawMessage(`"preset:full"`)
	if workers {
		filter = json.RawMessage(`{"include_worker_sessions": true}`)
	}
	sub, err := h.bus.Subscribe(context.Background(), ipc.SubscribeRequest{SessionID: sessionID, Filter: filter, Name: "test"})
	if err != nil {
		h.t.Fatalf("Subscribe: %v", err)
	}
	h.t.Cleanup(sub.Close)
	return &watcher{t: h.t, sub: sub}
}

// next returns the next event.
func (w *watcher) next() ev {
	w.t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for {
		select {
		case f, ok := <-w.sub.Frames():
			if !ok {
				w.t.Fatalf("subscription ended: %v", w.sub.Err())
			}
			var fr struct {
				Type  string `json:"type"`
				Event ev     `json:"event"`
			}
			if err := json.Unmarshal(f.Data, &fr); err != nil {
				w.t.Fatalf("frame: %v", err)
			}
			if fr.Type != "event" {
				continue
			}
			w.got = append(w.got, fr.Event)
			return fr.Event
		case <-timer.C:
			w.t.Fatalf("no event within %v; got so far: %v", waitLimit, types(w.got))
		}
	}
}

// until returns the first event (from now) satisfying pred.
func (w *watcher) until(pred func(ev) bool) ev {
	w.t.Helper()
	for {
		if e := w.next(); pred(e) {
			return e
		}
	}
}

// untilType returns the next event of type typ (in sessionID when non-empty).
func (w *watcher) untilType(typ string) ev {
	w.t.Helper()
	return w.until(func(e ev) bool { return e.Type == typ })
}

// turnEnd reads until the turn.completed/turn.cancelled of session sid.
func (w *watcher) turnEnd(sid string) ev {
	w.t.Helper()
	return w.until(func(e ev) bool {
		return e.SessionID == sid && (e.Type == ipc.TypeTurnCompleted || e.Type == ipc.TypeTurnCancelled)
	})
}

// awaitWarning reads until the next bus.handler_warning and fails unless
// its code is code.
func (w *watcher) awaitWarning(code string) {
	w.t.Helper()
	var hw ipc.HandlerWarning
	w.untilType(ipc.TypeBusHandlerWarning).decode(w.t, &hw)
	if hw.Code != code {
		w.t.Fatalf("warning %+v, want code %s", hw, code)
	}
}

func types(es []ev) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type
	}
	return out
}

// compress collapses runs of the same type into "type*".
func compress(ts []string) []string {
	var out []string
	for i := 0; i < len(ts); i++ {
		j := i
		for j+1 < len(ts) && ts[j+1] == ts[i] {
			j++
		}
		if j > i {
			out = append(out, ts[i]+"*")
		} else {
			out = append(out, ts[i])
		}
		i = j
	}
	return out
}

// only keeps the events of session sid, dropping session.* bookkeeping.
func only(es []ev, sid string) []string {
	var out []string
	for _, e := range es {
		if e.SessionID == sid && e.Type != ipc.TypeSessionUpdated && e.Type != ipc.TypeSessionCreated {
			out = append(out, e.Type)
		}
	}
	return out
}

func assertSeq(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("event sequence\n got: %v\nwant: %v", got, want)
	}
}

func textReply(chunks ...string) llmtest.Response {
	return llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 100, Output: 0}).
		Text(chunks...).Finish("end_turn", 20).Response()
}

// stalledReply is an assistant text reply held by gate after its text.
func stalledReply(gate *llmtest.Gate, text string) llmtest.Response {
	return llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 1}).Text(text).Stall(gate).Finish("end_turn", 1).Response()
}

// toolReply is an assistant message calling one tool per (id, name, input).
func toolReply(calls ...[3]string) llmtest.Response {
	s := llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 100})
	for _, c := range calls {
		in := c[2]
		s.ToolUse(c[0], c[1], in[:len(in)/2], in[len(in)/2:])
	}
	return s.Finish("tool_use", 30).Response()
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func (h *harness) submit(sid, text string) ipc.SubmitResult {
	h.t.Helper()
	r, err := h.hub.SubmitTurn(context.Background(), sid, text)
	if err != nil {
		h.t.Fatalf("SubmitTurn: %v", err)
	}
	return r
}

// setMode sets the session's approval mode or fails the test.
func (h *harness) setMode(sid, mode string) {
	h.t.Helper()
	if _, err := h.hub.SetApprovalMode(context.Background(), sid, mode); err != nil {
		h.t.Fatalf("SetApprovalMode %s: %v", mode, err)
	}
}

// messages is the session's current path, as every reader sees it.
func (h *harness) messages(sid string) []store.Message {
	h.t.Helper()
	ms, _, err := h.bus.Reader().Messages(sid, 0, 0)
	if err != nil {
		h.t.Fatalf("Messages: %v", err)
	}
	return ms
}

func describe(ms []store.Message) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%d:%s/%s ", m.Offset, m.Role, m.Status)
	}
	return b.String()
}

// anthropicRequest is the part of a recorded request the tests check.
type anthropicRequest struct {
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		} `json:"content"`
	} `json:"messages"`
}

// checkValidHistory asserts every tool_use in the request has a tool_result
// in the next message.
func checkValidHistory(t *testing.T, r llmtest.Request) anthropicRequest {
	t.Helper()
	var req anthropicRequest
	if err := r.Decode(&req); err != nil {
		t.Fatalf("decode request: %v", err)
	}
	for i, m := range req.Messages {
		for _, c := range m.Content {
			if c.Type != "tool_use" {
				continue
			}
			found := false
			if i+1 < len(req.Messages) {
				for _, n := range req.Messages[i+1].Content {
					if n.Type == "tool_result" && n.ToolUseID == c.ID {
						found = true
					}
				}
			}
			if !found {
				t.Fatalf("tool_use %s has no tool_result in the next message: %s", c.ID, r.Body)
			}
		}
	}
	return req
}

// deniedByRule reports whether es holds the tool.failed of toolUseID that a
// permission rule refused (error class denied, message naming the rule).
func deniedByRule(t *testing.T, es []ev, toolUseID, rule string) bool {
	t.Helper()
	for _, e := range es {
		if e.Type != ipc.TypeToolFailed {
			continue
		}
		var f ipc.ToolFailed
		e.decode(t, &f)
		if f.ToolUseID == toolUseID && f.ErrorClass == ipc.ToolErrDenied && strings.Contains(f.Message, rule) {
			return true
		}
	}
	return false
}

func fileExists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
