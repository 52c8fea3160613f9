package llm_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

func openaiProvider(t *testing.T, srv *llmtest.Server, idle time.Duration) llm.Provider {
	t.Helper()
	p, err := llm.New(llm.Config{OpenAIBaseURL: srv.URL + "/v1", IdleTimeout: idle, IgnoreEnv: true}).Provider("openai")
	if err != nil {
		t.Fatalf("Provider: %v", err)
	}
	return p
}

func TestOpenAIStreamReasoningTextTools(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewOpenAIStream("qwen3").
		Reasoning("reasoning_content", "Need ", "two files.").
		Text("Reading ", "both.").
		ToolCall(0, "call_a", "read_file", `{"pa`, `th":"a.go"}`).
		ToolCall(1, "call_b", "read_file").
		ToolArgs(1, `{"path"`).ToolArgs(1, `:"b.go"`).ToolArgs(1, `}`).
		Finish("tool_calls").
		Usage(1000, 300, 400, 100).
		Done().Response())
	rec := &llmtest.Recorder{}
	res, err := openaiProvider(t, srv, 0).Stream(context.Background(), llm.Request{Model: "qwen3", Messages: []store.Message{userMsg("x")}}, rec)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := []store.ContentBlock{
		{Type: store.BlockThinking, Thinking: "Need two files."},
		{Type: store.BlockText, Text: "Reading both."},
		{Type: store.BlockToolCall, ID: "call_a", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)},
		{Type: store.BlockToolCall, ID: "call_b", Name: "read_file", Arguments: json.RawMessage(`{"path":"b.go"}`)},
	}
	if !reflect.DeepEqual(res.Content, want) {
		t.Fatalf("content = %+v", res.Content)
	}
	// prompt 1000 includes 400 cached; completion 300 includes 100 reasoning.
	wantUsage := store.Usage{InputTokens: 600, CacheReadTokens: 400, OutputTokens: 300, ReasoningTokens: 100}
	if res.Usage != wantUsage || res.StopReason != llm.StopToolUse {
		t.Fatalf("usage = %+v stop %q", res.Usage, res.StopReason)
	}
	if rec.Thinking(0) != "Need two files." || rec.Text(1) != "Reading both." || rec.ToolInput(3) != `{"path":"b.go"}` {
		t.Fatalf("deltas wrong: %+v", rec.Events())
	}
	ev := rec.Events()
	if ev[0].Kind != llmtest.KindMessageStart {
		t.Fatalf("first = %+v", ev[0])
	}
	n := len(ev)
	if ev[n-2].Kind != llmtest.KindToolEnd || ev[n-2].ID != "call_a" || ev[n-1].ID != "call_b" || string(ev[n-1].Input) != `{"path":"b.go"}` {
		t.Fatalf("tool ends = %+v %+v", ev[n-2], ev[n-1])
	}
}

func TestOpenAIFixtureOllamaStyle(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(recorded(t, "openai_tool_calls.sse"),
		// Ollama style: "reasoning" field, tool call in one chunk, finish "stop", no usage details.
		llmtest.NewOpenAIStream("llama3.1").Reasoning("reasoning", "hmm").
			ToolCall(0, "call_x", "list_dir", `{"path":"."}`).Finish("stop").Usage(50, 10, 0, 0).Done().Response())
	p, err := llm.New(llm.Config{OpenAIAPIKey: "sk-test", OpenAIBaseURL: srv.URL, IgnoreEnv: true}).Provider("openai")
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Stream(context.Background(), llm.Request{Model: "gpt-4.1", Messages: []store.Message{userMsg("weather")}}, &llmtest.Recorder{})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if len(res.Content) != 1 || string(res.Content[0].Arguments) != `{"location":"Paris, France"}` || res.Content[0].ID != "call_Dn2RJJSxzDm49vlVTehseJ0k" {
		t.Fatalf("content = %+v", res.Content)
	}
	if res.Usage.InputTokens != 86 || res.Usage.CacheReadTokens != 1920 || res.Usage.OutputTokens != 17 {
		t.Fatalf("usage = %+v", res.Usage)
	}
	wantCost := (86*2 + 17*8 + 1920*0.5) / 1e6
	if d := res.Usage.CostUSD - wantCost; d > 1e-12 || d < -1e-12 {
		t.Fatalf("cost = %v want %v", res.Usage.CostUSD, wantCost)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Fatalf("auth header = %q", got)
	}
	res, err = p.Stream(context.Background(), llm.Request{Model: "llama3.1", Messages: []store.Message{userMsg("ls")}}, &llmtest.Recorder{})
	if err != nil {
		t.Fatalf("Stream 2: %v", err)
	}
	if res.StopReason != llm.StopToolUse || len(res.Content) != 2 || res.Content[0].Thinking != "hmm" || res.Usage.CostUSD != 0 {
		t.Fatalf("ollama result = %+v", res)
	}
}

func TestOpenAIRequestConversion(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewOpenAIStream("llama3.1").Text("ok").Finish("stop").Done().Response())
	history := []store.Message{
		{Role: store.RoleUser, Content: []store.ContentBlock{{Type: store.BlockText, Text: "look"}, {Type: store.BlockImage, Source: &store.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgo="}}}},
		{Role: store.RoleAssistant, Content: []store.ContentBlock{
			{Type: store.BlockThinking, Thinking: "not sent back"},
			{Type: store.BlockText, Text: "Listing."},
			{Type: store.BlockToolCall, ID: "c1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)},
			{Type: store.BlockToolCall, ID: "c2", Name: "bash"},
		}},
		{Role: store.RoleToolResult, ToolCallID: "c1", Content: []store.ContentBlock{{Type: store.BlockText, Text: "a.go"}}},
		{Role: store.RoleToolResult, ToolCallID: "c2", IsError: true, Content: []store.ContentBlock{{Type: store.BlockText, Text: "denied"}}},
		userMsg("thanks"),
	}
	req := llm.Request{Model: "llama3.1", System: "sys", Messages: history, MaxTokens: 100,
		Tools: []llm.ToolSpec{{Name: "list_dir", Description: "List", InputSchema: json.RawMessage(`{"properties":{"path":{"type":"string"}}}`)}}}
	if _, err := openaiProvider(t, srv, 0).Stream(context.Background(), req, &llmtest.Recorder{}); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "" {
		t.Fatalf("path %q auth %q", r.Path, r.Header.Get("Authorization"))
	}
	assertBody(t, r, `{
		"model":"llama3.1","max_tokens":100,"stream":true,"stream_options":{"include_usage":true},
		"tools":[{"type":"function","function":{"name":"list_dir","description":"List","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}],
		"messages":[
		 {"role":"system","content":"sys"},
		 {"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},
		 {"role":"assistant","content":"Listing.","tool_calls":[
		   {"id":"c1","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}},
		   {"id":"c2","type":"function","function":{"name":"bash","arguments":"{}"}}]},
		 {"role":"tool","tool_call_id":"c1","content":"a.go"},
		 {"role":"tool","tool_call_id":"c2","content":"[tool error] denied"},
		 {"role":"user","content":"thanks"}
		]}`)
}

func TestOpenAIOfficialUsesMaxCompletionTokens(t *testing.T) {
	// The official endpoint is recognised by host; point the HTTP client at
	// the fake server through a transport rewrite.
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewOpenAIStream("o4-mini").Text("ok").Finish("stop").Done().Response())
	client := rewriteClient(t, srv.URL)
	p, err := llm.New(llm.Config{OpenAIAPIKey: "sk", OpenAIBaseURL: "https://api.openai.com/v1", HTTPClient: client, IgnoreEnv: true}).Provider("openai")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), llm.Request{Model: "o4-mini", Messages: []store.Message{userMsg("x")}, MaxTokens: 500, ThinkingBudget: 20000}, &llmtest.Recorder{}); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	var got map[string]any
	if err := srv.Requests()[0].Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got["max_completion_tokens"] != 500.0 || got["max_tokens"] != nil || got["reasoning_effort"] != "high" {
		t.Fatalf("body = %v", got)
	}
}

func TestOpenAIErrors(t *testing.T) {
	cases := []struct {
		name       string
		resp       llmtest.Response
		class      string
		retryAfter time.Duration
	}{
		{"401", llmtest.HTTPError(401, llmtest.OpenAIErrorBody("invalid_request_error", "invalid_api_key", "Incorrect API key provided")), errclass.Auth, 0},
		{"429 ms", llmtest.HTTPError(429, llmtest.OpenAIErrorBody("requests", "rate_limit_exceeded", "Rate limit reached"), "Retry-After-Ms", "1500"), errclass.RateLimit, 1500 * time.Millisecond},
		{"400 overflow", llmtest.HTTPError(400, llmtest.OpenAIErrorBody("invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens.")), errclass.ContextOverflow, 0},
		{"400 ollama overflow", llmtest.HTTPError(400, `{"error":"input length exceeds the context length"}`), errclass.ContextOverflow, 0},
		{"422", llmtest.HTTPError(422, `{"detail":"bad"}`), errclass.InvalidRequest, 0},
		{"502", llmtest.HTTPError(502, "bad gateway"), errclass.Server, 0},
		{"mid-stream", llmtest.NewOpenAIStream("m").Text("par").Error("server_error", "", "The server had an error").Response(), errclass.Server, 0},
		{"no finish", llmtest.NewOpenAIStream("m").Text("par").Response(), errclass.Network, 0},
		{"hangup", llmtest.NewOpenAIStream("m").Text("par").Hangup().Response(), errclass.Network, 0},
		{"invalid tool json", llmtest.NewOpenAIStream("m").Text("par").ToolCall(0, "c", "bash", `{"a":`).Finish("tool_calls").Done().Response(), errclass.Server, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(tc.resp)
			res, err := openaiProvider(t, srv, 0).Stream(context.Background(), llm.Request{Model: "m", Messages: []store.Message{userMsg("x")}}, &llmtest.Recorder{})
			e := mustErr(t, err, tc.class)
			if e.RetryAfter != tc.retryAfter {
				t.Fatalf("retry after = %v", e.RetryAfter)
			}
			if len(srv.Requests()) != 1 {
				t.Fatalf("adapter retried")
			}
			if res.StopReason != llm.StopError {
				t.Fatalf("stop = %q", res.StopReason)
			}
			if tc.resp.Steps != nil && (len(res.Content) == 0 || res.Content[0].Text != "par") {
				t.Fatalf("partial = %+v", res.Content)
			}
		})
	}
}

func TestOpenAICancelAndIdle(t *testing.T) {
	srv := llmtest.NewServer(t)
	g1, g2 := llmtest.NewGate(), llmtest.NewGate()
	srv.Enqueue(
		llmtest.NewOpenAIStream("m").Text("Hi").ToolCall(0, "c1", "read_file", `{"path":"x`).Stall(g1).Response(),
		llmtest.NewOpenAIStream("m").Text("Hi").Stall(g2).Response(),
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := cancelAtToolDelta(cancel)
	res, err := openaiProvider(t, srv, 0).Stream(ctx, llm.Request{Model: "m", Messages: []store.Message{userMsg("x")}}, rec)
	mustErr(t, err, errclass.Cancelled)
	if res.StopReason != llm.StopCancelled || len(res.Content) != 2 || string(res.Content[1].Arguments) != `{"path":"x"}` {
		t.Fatalf("partial = %+v", res)
	}
	res, err = openaiProvider(t, srv, 200*time.Millisecond).Stream(context.Background(), llm.Request{Model: "m", Messages: []store.Message{userMsg("x")}}, &llmtest.Recorder{})
	mustErr(t, err, errclass.Timeout)
	if res.StopReason != llm.StopError || res.Content[0].Text != "Hi" {
		t.Fatalf("partial = %+v", res)
	}
}

// OpenAI-compatible servers cache a prompt's prefix automatically: the
// request of a later step of a tool loop must begin with exactly the
// previous request's system message, tools and messages (same bytes), so
// only the new messages are uncached.
func TestOpenAIStablePrefixAcrossSteps(t *testing.T) {
	srv := llmtest.NewServer(t)
	for range 2 {
		srv.Enqueue(llmtest.NewOpenAIStream("gpt-4.1").Text("ok").Finish("stop").Done().Response())
	}
	tools := []llm.ToolSpec{
		{Name: "read_file", Description: "Read", InputSchema: json.RawMessage(`{"properties":{"path":{"type":"string"},"limit":{"type":"integer"},"offset":{"type":"integer"}},"required":["path"]}`)},
		{Name: "bash", Description: "Run", InputSchema: json.RawMessage(`{"properties":{"command":{"type":"string"}}}`)},
	}
	step1 := []store.Message{
		userMsg("fix the bug"),
		{Role: store.RoleAssistant, Content: []store.ContentBlock{{Type: store.BlockToolCall, ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go","offset":1}`)}}},
		{Role: store.RoleToolResult, ToolCallID: "c1", Content: []store.ContentBlock{{Type: store.BlockText, Text: "package a"}}},
	}
	step2 := append(append([]store.Message(nil), step1...),
		store.Message{Role: store.RoleAssistant, Content: []store.ContentBlock{{Type: store.BlockToolCall, ID: "c2", Name: "bash", Arguments: json.RawMessage(`{"command":"go test"}`)}}},
		store.Message{Role: store.RoleToolResult, ToolCallID: "c2", Content: []store.ContentBlock{{Type: store.BlockText, Text: "ok"}}},
	)
	p := openaiProvider(t, srv, 0)
	for _, msgs := range [][]store.Message{step1, step2} {
		req := llm.Request{Model: "gpt-4.1", System: "You are a coding agent.", Messages: msgs, MaxTokens: 100, Tools: tools}
		if _, err := p.Stream(context.Background(), req, &llmtest.Recorder{}); err != nil {
			t.Fatalf("Stream: %v", err)
		}
	}
	var bodies [2]struct {
		Tools    []json.RawMessage `json:"tools"`
		Messages []json.RawMessage `json:"messages"`
	}
	for i, r := range srv.Requests() {
		if err := r.Decode(&bodies[i]); err != nil {
			t.Fatal(err)
		}
	}
	a, b := bodies[0], bodies[1]
	if len(a.Tools) != len(tools) || len(b.Tools) != len(a.Tools) {
		t.Fatalf("tools: %d then %d", len(a.Tools), len(b.Tools))
	}
	for i := range a.Tools {
		if string(a.Tools[i]) != string(b.Tools[i]) {
			t.Fatalf("tool %d differs between steps:\n%s\n%s", i, a.Tools[i], b.Tools[i])
		}
	}
	if len(b.Messages) != len(a.Messages)+2 {
		t.Fatalf("messages: %d then %d", len(a.Messages), len(b.Messages))
	}
	for i := range a.Messages {
		if string(a.Messages[i]) != string(b.Messages[i]) {
			t.Fatalf("message %d differs between steps:\n%s\n%s", i, a.Messages[i], b.Messages[i])
		}
	}
}
