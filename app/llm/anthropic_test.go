package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// recorded replays the provider capture testdata/name byte for byte.
func recorded(t *testing.T, name string) llmtest.Response {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return llmtest.RawStream(string(b))
}

func anthropicProvider(t *testing.T, srv *llmtest.Server, idle time.Duration) llm.Provider {
	t.Helper()
	p, err := llm.New(llm.Config{AnthropicAPIKey: "sk-ant-test", AnthropicBaseURL: srv.URL, IdleTimeout: idle, IgnoreEnv: true}).Provider("anthropic")
	if err != nil {
		t.Fatalf("Provider: %v", err)
	}
	return p
}

func userMsg(text string) store.Message {
	return store.Message{Role: store.RoleUser, Content: []store.ContentBlock{{Type: store.BlockText, Text: text}}}
}

// cancelAtToolDelta records a stream and calls cancel once a tool call's
// input fragment has been delivered.
func cancelAtToolDelta(cancel context.CancelFunc) *llmtest.Recorder {
	return &llmtest.Recorder{OnEvent: func(e llmtest.Event) {
		if e.Kind == llmtest.KindToolDelta {
			cancel()
		}
	}}
}

func mustErr(t *testing.T, err error, class string) *llm.Error {
	t.Helper()
	e, ok := llm.AsError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not *llm.Error", err, err)
	}
	if e.Class != class {
		t.Fatalf("class = %q, want %q (%v)", e.Class, class, e)
	}
	return e
}

func TestAnthropicStreamThinkingTextTool(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 100, CacheRead: 50, CacheWrite: 20}).
		Thinking("sig-abc", "Let me ", "think.").
		Ping().
		Text("Hello", ", world").
		ToolUse("toolu_1", "read_file", `{"pa`, `th": "a/b`, `.go", "li`, `mit": 1`, `0}`).
		Finish("tool_use", 30).Response())
	rec := &llmtest.Recorder{}
	res, err := anthropicProvider(t, srv, 0).Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("hi")}}, rec)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := []store.ContentBlock{
		{Type: store.BlockThinking, Thinking: "Let me think.", Signature: "sig-abc"},
		{Type: store.BlockText, Text: "Hello, world"},
		{Type: store.BlockToolCall, ID: "toolu_1", Name: "read_file", Arguments: json.RawMessage(`{"path": "a/b.go", "limit": 10}`)},
	}
	if !reflect.DeepEqual(res.Content, want) {
		t.Fatalf("content = %+v\nwant %+v", res.Content, want)
	}
	if res.StopReason != llm.StopToolUse {
		t.Fatalf("stop = %q", res.StopReason)
	}
	wantUsage := store.Usage{InputTokens: 100, CacheReadTokens: 50, CacheWriteTokens: 20, OutputTokens: 30}
	wantUsage.CostUSD = (100*3 + 30*15 + 50*0.3 + 20*3.75) / 1e6
	if res.Usage != wantUsage {
		t.Fatalf("usage = %+v, want %+v", res.Usage, wantUsage)
	}
	ev := rec.Events()
	if ev[0].Kind != llmtest.KindMessageStart {
		t.Fatalf("first event %+v", ev[0])
	}
	// The signature rides on the thinking block's last delta, with empty text.
	var sigEv *llmtest.Event
	for i := range ev {
		if ev[i].Kind == llmtest.KindThinking && ev[i].Signature != nil {
			if sigEv != nil {
				t.Fatalf("two signature deltas")
			}
			sigEv = &ev[i]
		} else if sigEv != nil && ev[i].Kind == llmtest.KindThinking {
			t.Fatalf("thinking delta after the signature")
		}
	}
	if sigEv == nil || *sigEv.Signature != "sig-abc" || sigEv.Text != "" || sigEv.Index != 0 {
		t.Fatalf("signature event = %+v", sigEv)
	}
	if rec.Thinking(0) != "Let me think." || rec.Text(1) != "Hello, world" {
		t.Fatalf("deltas: thinking %q text %q", rec.Thinking(0), rec.Text(1))
	}
	if got := rec.ToolInput(2); got != `{"path": "a/b.go", "limit": 10}` {
		t.Fatalf("raw fragments = %q", got)
	}
	last := ev[len(ev)-1]
	if last.Kind != llmtest.KindToolEnd || last.ID != "toolu_1" || string(last.Input) != `{"path": "a/b.go", "limit": 10}` {
		t.Fatalf("last event = %+v", last)
	}
	var start *llmtest.Event
	for i := range ev {
		if ev[i].Kind == llmtest.KindToolStart {
			start = &ev[i]
		}
		if ev[i].Kind == llmtest.KindToolDelta && ev[i].Text == "" {
			t.Fatalf("empty fragment forwarded")
		}
	}
	if start == nil || start.Index != 2 || start.Name != "read_file" {
		t.Fatalf("tool start = %+v", start)
	}
}

func TestAnthropicFixtureAndEmptyToolInput(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(recorded(t, "anthropic_tool_use.sse"),
		llmtest.NewAnthropicStream("claude-haiku-4-5", llmtest.AnthropicUsage{Input: 5}).ToolUse("toolu_2", "list_dir").Finish("tool_use", 7).Response())
	p := anthropicProvider(t, srv, 0)
	rec := &llmtest.Recorder{}
	res, err := p.Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("weather?")}}, rec)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if len(res.Content) != 2 || res.Content[0].Text != "Okay, let's check the weather for San Francisco, CA:" ||
		string(res.Content[1].Arguments) != `{"location": "San Francisco, CA", "unit": "fahrenheit"}` {
		t.Fatalf("content = %+v", res.Content)
	}
	if res.Usage.InputTokens != 472 || res.Usage.OutputTokens != 89 || res.StopReason != llm.StopToolUse {
		t.Fatalf("usage/stop = %+v %q", res.Usage, res.StopReason)
	}
	res, err = p.Stream(context.Background(), llm.Request{Model: "claude-haiku-4-5", Messages: []store.Message{userMsg("ls")}}, rec)
	if err != nil {
		t.Fatalf("Stream 2: %v", err)
	}
	if string(res.Content[0].Arguments) != `{}` {
		t.Fatalf("empty input = %s, want {}", res.Content[0].Arguments)
	}
	ev := rec.Events()
	if last := ev[len(ev)-1]; last.Kind != llmtest.KindToolEnd || string(last.Input) != "{}" {
		t.Fatalf("last event = %+v", last)
	}
}

func TestAnthropicRequestConversion(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 1}).Text("ok").Finish("end_turn", 1).Response())
	history := []store.Message{
		userMsg("read two files"),
		{Role: store.RoleAssistant, Content: []store.ContentBlock{
			{Type: store.BlockThinking, Thinking: "plan", Signature: "sig1"},
			{Type: store.BlockThinking, Thinking: "unsigned, dropped"},
			{Type: store.BlockText, Text: "Reading."},
			{Type: store.BlockToolCall, ID: "t1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)},
			{Type: store.BlockToolCall, ID: "t2", Name: "read_file", Arguments: json.RawMessage(`{"path":"b"}`)},
		}},
		{Role: store.RoleToolResult, ToolCallID: "t1", Content: []store.ContentBlock{{Type: store.BlockText, Text: "A"}}},
		{Role: store.RoleToolResult, ToolCallID: "t2", IsError: true, Content: []store.ContentBlock{{Type: store.BlockText, Text: "no such file"}}},
		{Role: store.RoleToolResult, ToolCallID: "orphan", Content: []store.ContentBlock{{Type: store.BlockText, Text: "dropped"}}},
		{Role: store.RoleAssistant, Content: []store.ContentBlock{{Type: store.BlockToolCall, ID: "t3", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}},
		userMsg("stop that"), // t3 never got a result (cancelled)
	}
	req := llm.Request{
		Model: "claude-sonnet-4-6", System: "be brief", Messages: history, MaxTokens: 2000, ThinkingBudget: 4000,
		Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}},
	}
	if _, err := anthropicProvider(t, srv, 0).Stream(context.Background(), req, &llmtest.Recorder{}); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/messages" || reqs[0].Header.Get("X-Api-Key") != "sk-ant-test" ||
		reqs[0].Header.Get("Anthropic-Version") == "" {
		t.Fatalf("requests = %+v", reqs)
	}
	assertBody(t, reqs[0], `{
		"model":"claude-sonnet-4-6","max_tokens":12192,"stream":true,
		"system":[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}}],
		"thinking":{"type":"enabled","budget_tokens":4000},
		"tools":[{"name":"read_file","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false},"cache_control":{"type":"ephemeral"}}],
		"messages":[
		 {"role":"user","content":[{"type":"text","text":"read two files"}]},
		 {"role":"assistant","content":[
		   {"type":"thinking","thinking":"plan","signature":"sig1"},
		   {"type":"text","text":"Reading."},
		   {"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"}},
		   {"type":"tool_use","id":"t2","name":"read_file","input":{"path":"b"}}]},
		 {"role":"user","content":[
		   {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"A"}]},
		   {"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"no such file"}],"cache_control":{"type":"ephemeral"}}]},
		 {"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"bash","input":{"command":"ls"}}]},
		 {"role":"user","content":[
		   {"type":"tool_result","tool_use_id":"t3","is_error":true,"content":[{"type":"text","text":"Tool call was not completed (interrupted or cancelled); no result is available."}]},
		   {"type":"text","text":"stop that","cache_control":{"type":"ephemeral"}}]}
		]}`)
}

func TestAnthropicHTTPErrors(t *testing.T) {
	cases := []struct {
		name       string
		resp       llmtest.Response
		class      string
		retriable  bool
		retryAfter time.Duration
	}{
		{"401", llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")), errclass.Auth, false, 0},
		{"403", llmtest.HTTPError(403, llmtest.AnthropicErrorBody("permission_error", "no access")), errclass.Auth, false, 0},
		{"429", llmtest.HTTPError(429, llmtest.AnthropicErrorBody("rate_limit_error", "slow down"), "Retry-After", "3"), errclass.RateLimit, true, 3 * time.Second},
		{"529", llmtest.HTTPError(529, llmtest.AnthropicErrorBody("overloaded_error", "Overloaded")), errclass.Overloaded, true, 0},
		{"500", llmtest.HTTPError(500, llmtest.AnthropicErrorBody("api_error", "boom")), errclass.Server, true, 0},
		{"503 no body", llmtest.HTTPError(503, ""), errclass.Server, true, 0},
		{"400 overflow", llmtest.HTTPError(400, llmtest.AnthropicErrorBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")), errclass.ContextOverflow, false, 0},
		{"400", llmtest.HTTPError(400, llmtest.AnthropicErrorBody("invalid_request_error", "messages: roles must alternate")), errclass.InvalidRequest, false, 0},
		{"404", llmtest.HTTPError(404, llmtest.AnthropicErrorBody("not_found_error", "model: claude-nope")), errclass.InvalidRequest, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(tc.resp)
			rec := &llmtest.Recorder{}
			res, err := anthropicProvider(t, srv, 0).Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}, rec)
			e := mustErr(t, err, tc.class)
			if e.Retriable != tc.retriable || e.RetryAfter != tc.retryAfter || e.Message == "" {
				t.Fatalf("error = %+v", e)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests: the adapter must not retry", n)
			}
			if res.StopReason != llm.StopError || len(res.Content) != 0 || len(rec.Events()) != 0 {
				t.Fatalf("result = %+v, events %v", res, rec.Events())
			}
		})
	}
}

func TestAnthropicMidStreamErrorKeepsPartial(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 9}).
		BeginText().TextDelta("partial ").TextDelta("answer").
		Error("overloaded_error", "Overloaded").Response())
	res, err := anthropicProvider(t, srv, 0).Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}, &llmtest.Recorder{})
	e := mustErr(t, err, errclass.Overloaded)
	if !e.Retriable {
		t.Fatalf("overloaded must be retriable")
	}
	if res.StopReason != llm.StopError || len(res.Content) != 1 || res.Content[0].Text != "partial answer" || res.Usage.InputTokens != 9 {
		t.Fatalf("partial = %+v", res)
	}
}

func TestAnthropicIdleTimeout(t *testing.T) {
	srv := llmtest.NewServer(t)
	gate := llmtest.NewGate() // never released
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 3}).
		BeginText().TextDelta("so far").Stall(gate).Response())
	res, err := anthropicProvider(t, srv, 200*time.Millisecond).Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}, &llmtest.Recorder{})
	e := mustErr(t, err, errclass.Timeout)
	if !e.Retriable {
		t.Fatalf("timeout must be retriable")
	}
	if res.StopReason != llm.StopError || len(res.Content) != 1 || res.Content[0].Text != "so far" {
		t.Fatalf("partial = %+v", res)
	}
}

func TestAnthropicCancelMidToolUse(t *testing.T) {
	srv := llmtest.NewServer(t)
	gate := llmtest.NewGate()
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 3}).
		Text("Writing").
		BeginToolUse("toolu_9", "write_file").InputDelta(`{"path": "a.go", "content": "pack`).
		Stall(gate).Response())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the last fragment before the stall has been delivered.
	rec := cancelAtToolDelta(cancel)
	res, err := anthropicProvider(t, srv, 0).Stream(ctx, llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}, rec)
	e := mustErr(t, err, errclass.Cancelled)
	if e.Retriable {
		t.Fatalf("cancelled must not be retriable")
	}
	want := []store.ContentBlock{
		{Type: store.BlockText, Text: "Writing"},
		{Type: store.BlockToolCall, ID: "toolu_9", Name: "write_file", Arguments: json.RawMessage(`{"path": "a.go", "content": "pack"}`)},
	}
	if res.StopReason != llm.StopCancelled || !reflect.DeepEqual(res.Content, want) {
		t.Fatalf("partial = %+v", res)
	}
}

func TestAnthropicHangupAndRefused(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 3}).BeginText().TextDelta("cut").Hangup().Response())
	res, err := anthropicProvider(t, srv, 0).Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}, &llmtest.Recorder{})
	mustErr(t, err, errclass.Network)
	if len(res.Content) != 1 || res.Content[0].Text != "cut" {
		t.Fatalf("partial = %+v", res)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p, err := llm.New(llm.Config{AnthropicAPIKey: "k", AnthropicBaseURL: "http://" + addr, IgnoreEnv: true}).Provider("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}, &llmtest.Recorder{})
	e := mustErr(t, err, errclass.Network)
	if !e.Retriable || !errors.Is(err, e) {
		t.Fatalf("error = %+v", e)
	}
}

func TestAnthropicInvalidToolJSON(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 3}).
		ToolUse("toolu_x", "bash", `{"command": `, `ls}`).Finish("tool_use", 5).Response())
	rec := &llmtest.Recorder{}
	res, err := anthropicProvider(t, srv, 0).Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}, rec)
	mustErr(t, err, errclass.Server)
	if res.StopReason != llm.StopError || len(res.Content) != 1 || string(res.Content[0].Arguments) != "{}" {
		t.Fatalf("partial = %+v", res)
	}
	for _, e := range rec.Events() {
		if e.Kind == llmtest.KindToolEnd {
			t.Fatalf("ToolUseEnd called for invalid input")
		}
	}
}
