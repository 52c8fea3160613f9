package agent_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"agenthub/app/agent"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

const testModel = "anthropic:claude-sonnet-4-6"

// guard bounds a wait that only a bug would make long; nothing is timed.
const guard = 30 * time.Second

// memRecorder is an in-memory agent.Recorder: it keeps every draft in the
// order received and applies the drafts' store ops to a scratch store at
// once (so Emit and Commit are equally durable here), and the session
// mutations to its own copy of the session record.
type memRecorder struct {
	t  *testing.T
	db *store.DB
	// onDraft, if set, sees each draft after it is recorded (outside the lock).
	onDraft func(ipc.Draft)

	mu     sync.Mutex
	sess   store.Session
	drafts []ipc.Draft
}

func (r *memRecorder) Emit(d ipc.Draft, mutate func(*store.Session)) {
	r.mu.Lock()
	if mutate != nil {
		mutate(&r.sess)
		d.Ops = append(d.Ops, store.PutSession(r.sess))
	}
	r.drafts = append(r.drafts, d)
	err := r.db.Commit(nil, d.Ops)
	r.mu.Unlock()
	if err != nil {
		r.t.Errorf("applying the ops of %s: %v", d.Type, err)
	}
	if r.onDraft != nil {
		r.onDraft(d)
	}
}

func (r *memRecorder) Commit(d ipc.Draft, mutate func(*store.Session)) { r.Emit(d, mutate) }

// types returns the recorded draft types.
func (r *memRecorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.drafts))
	for i, d := range r.drafts {
		out[i] = d.Type
	}
	return out
}

// payloads returns the payloads of type typ, in order.
func (r *memRecorder) payloads(typ string) []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []any
	for _, d := range r.drafts {
		if d.Type == typ {
			out = append(out, d.Payload)
		}
	}
	return out
}

// fixture is one turn's loop against a fake Anthropic server.
type fixture struct {
	t   *testing.T
	srv *llmtest.Server
	rec *memRecorder
	cfg agent.Config
}

func newFixture(t *testing.T, tools ...tool.Tool) *fixture {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "agent.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sess := store.Session{ID: agent.NewID(), Title: "t", WorkspacePath: t.TempDir(), ActiveModel: testModel, CreatedAt: time.Now().UTC()}
	turnID := agent.NewID()
	user := store.Message{ID: agent.NewID(), SessionID: sess.ID, TurnID: turnID, Role: store.RoleUser, Status: store.StatusComplete,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: "go"}}, CreatedAt: time.Now().UTC()}
	if err := db.Commit(nil, []store.Op{store.PutSession(sess), store.PutMessage(user)}); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	rec := &memRecorder{t: t, db: db, sess: sess}
	f := &fixture{t: t, srv: srv, rec: rec}
	f.cfg = agent.Config{
		SessionID: sess.ID, TurnID: turnID, Model: testModel,
		Providers: llm.New(llm.Config{AnthropicAPIKey: "k", AnthropicBaseURL: srv.URL, IgnoreEnv: true}),
		Tools:     tools,
		Env:       tool.Env{Workspace: sess.WorkspacePath},
		Context: func(ctx context.Context) (string, []store.Message, error) {
			ms, _, err := db.Messages(sess.ID, 0, 0)
			return "test system prompt", ms, err
		},
		Recorder: rec,
		Backoff:  func(int, time.Duration) time.Duration { return 0 },
	}
	return f
}

func (f *fixture) run(ctx context.Context) agent.Outcome { return agent.Run(ctx, f.cfg) }

// scripted makes the loop's provider the in-memory twin playing replies
// (for tests of the loop's logic, not of a provider's wire format).
func (f *fixture) scripted(replies ...llmtest.Reply) *llmtest.Scripted {
	s := llmtest.NewScripted(replies...)
	f.cfg.Providers = s
	return s
}

// toolCalls is a scripted reply calling each [id, name] with {}.
func toolCalls(calls ...[2]string) llmtest.Reply {
	var r llmtest.Reply
	for _, c := range calls {
		r.Blocks = append(r.Blocks, llmtest.Block{ToolID: c[0], ToolName: c[1], ToolInput: []string{`{}`}})
	}
	return r
}

// messages returns the session's stored messages.
func (f *fixture) messages() []store.Message {
	f.t.Helper()
	ms, _, err := f.rec.db.Messages(f.cfg.SessionID, 0, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	return ms
}

// result returns the stored toolResult of callID.
func (f *fixture) result(callID string) store.Message {
	f.t.Helper()
	for _, m := range f.messages() {
		if m.Role == store.RoleToolResult && m.ToolCallID == callID {
			return m
		}
	}
	f.t.Fatalf("no stored result for %s", callID)
	return store.Message{}
}

// testTool is a tool.Tool whose Run is a test function.
type testTool struct {
	name string
	run  func(ctx context.Context, env tool.Env, input json.RawMessage) (tool.Result, error)
}

func (t testTool) Name() string        { return t.name }
func (t testTool) Description() string { return "test tool " + t.name }
func (t testTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (t testTool) Describe(json.RawMessage) (string, string) {
	return "Running " + t.name, "**" + t.name + "**\n"
}
func (t testTool) Run(ctx context.Context, env tool.Env, input json.RawMessage) (tool.Result, error) {
	return t.run(ctx, env, input)
}

// toolsReply is an assistant message calling each (id, name) with {}.
func toolsReply(calls ...[2]string) llmtest.Response {
	s := llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10})
	for _, c := range calls {
		s.ToolUse(c[0], c[1], `{}`)
	}
	return s.Finish("tool_use", 5).Response()
}

func textReply(text string) llmtest.Response {
	return llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).Text(text).Finish("end_turn", 5).Response()
}

// toolResults returns the tool_result blocks of a recorded request.
func toolResults(t *testing.T, r llmtest.Request) map[string]struct {
	Text    string
	IsError bool
} {
	t.Helper()
	var req struct {
		Messages []struct {
			Content []struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
				IsError   bool   `json:"is_error"`
				Content   []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := r.Decode(&req); err != nil {
		t.Fatal(err)
	}
	out := map[string]struct {
		Text    string
		IsError bool
	}{}
	for _, m := range req.Messages {
		for _, c := range m.Content {
			if c.Type == "tool_result" {
				text := ""
				for _, p := range c.Content {
					text += p.Text
				}
				out[c.ToolUseID] = struct {
					Text    string
					IsError bool
				}{text, c.IsError}
			}
		}
	}
	return out
}
