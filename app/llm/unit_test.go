package llm

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"agenthub/ipc/errclass"
	"agenthub/store"
)

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCostArithmetic(t *testing.T) {
	ResetPrices()
	t.Cleanup(ResetPrices)
	cases := []struct {
		model string
		u     store.Usage
		want  float64
	}{
		// Sonnet: $3 in / $15 out per MTok: 1M in + 1M out = $18.
		{"claude-sonnet-4-6", store.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 18},
		// Cache: write 1.25× ($3.75), read 0.1× ($0.30) of the $3 input price.
		{"anthropic:claude-sonnet-4-6", store.Usage{CacheWriteTokens: 1_000_000, CacheReadTokens: 1_000_000}, 4.05},
		// Opus 4.1: $15/$75; 10k in + 2k out = 0.15 + 0.15.
		{"claude-opus-4-1-20250805", store.Usage{InputTokens: 10_000, OutputTokens: 2_000}, 0.30},
		// Haiku 4.5: $1/$5.
		{"claude-haiku-4-5", store.Usage{InputTokens: 2_000_000, OutputTokens: 100_000}, 2.5},
		// gpt-4.1: $2 in, $0.50 cached, $8 out; reasoning inside output is not billed twice.
		{"openai:gpt-4.1", store.Usage{InputTokens: 600, CacheReadTokens: 400, OutputTokens: 300, ReasoningTokens: 100}, (600*2 + 400*0.5 + 300*8) / 1e6},
		// gpt-4o-mini dated snapshot uses gpt-4o-mini, not gpt-4o.
		{"gpt-4o-mini-2024-07-18", store.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 0.75},
		{"gpt-4o-2024-08-06", store.Usage{InputTokens: 1_000_000}, 2.5},
		{"o4-mini", store.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 5.5},
		{"llama3.1:8b", store.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 0},
	}
	for _, c := range cases {
		if got := Cost(c.model, c.u); !approx(got, c.want) {
			t.Errorf("Cost(%s) = %v, want %v", c.model, got, c.want)
		}
	}
	SetPrices(map[string]Price{"llama3.1": {Input: 1, Output: 2}, "gpt-4.1": {Input: 10}})
	if got := Cost("llama3.1:8b", store.Usage{InputTokens: 1_000_000}); got != 0 {
		t.Errorf("override keyed llama3.1 must not match llama3.1:8b (no '-' boundary), got %v", got)
	}
	if got := Cost("llama3.1", store.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}); !approx(got, 3) {
		t.Errorf("override cost = %v", got)
	}
	if got := Cost("gpt-4.1", store.Usage{InputTokens: 1_000_000}); !approx(got, 10) {
		t.Errorf("replaced entry cost = %v", got)
	}
	if p := Prices()["claude-sonnet-4-6"]; p.Input != 3 {
		t.Errorf("untouched entry changed: %+v", p)
	}
}

func TestContextWindow(t *testing.T) {
	for m, want := range map[string]int64{
		"claude-sonnet-4-6": 200_000, "anthropic:claude-some-future": 200_000, "gpt-4.1": 1_047_576,
		"openai:gpt-4o-2024-08-06": 128_000, "o3": 200_000, "llama3.1": 128_000, "gpt-5-mini": 400_000,
	} {
		if got := ContextWindow(m); got != want {
			t.Errorf("ContextWindow(%s) = %d, want %d", m, got, want)
		}
	}
}

func TestBackoff(t *testing.T) {
	p := BackoffPolicy{Base: time.Second, Max: 30 * time.Second, MaxRetryAfter: time.Minute, Rand: func() float64 { return 0 }}
	for attempt, want := range map[int]time.Duration{0: 500 * time.Millisecond, 1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 6: 15 * time.Second, 50: 15 * time.Second} {
		if got := p.Delay(attempt, 0); got != want {
			t.Errorf("Delay(%d) = %v, want %v", attempt, got, want)
		}
	}
	p.Rand = func() float64 { return 0.999999 }
	if got := p.Delay(50, 0); got > 30*time.Second || got < 29*time.Second {
		t.Errorf("capped delay = %v", got)
	}
	if got := p.Delay(1, 7*time.Second); got != 7*time.Second {
		t.Errorf("retry-after = %v", got)
	}
	if got := p.Delay(1, time.Hour); got != time.Minute {
		t.Errorf("capped retry-after = %v", got)
	}
	if d := Backoff(1, 0); d < 500*time.Millisecond || d > time.Second {
		t.Errorf("Backoff(1) = %v", d)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
	if got := retryAfter(h, now); got != 90*time.Second {
		t.Errorf("date = %v", got)
	}
	h.Set("Retry-After", "2.5")
	if got := retryAfter(h, now); got != 2500*time.Millisecond {
		t.Errorf("seconds = %v", got)
	}
	h.Set("Retry-After", "soon")
	if got := retryAfter(h, now); got != 0 {
		t.Errorf("garbage = %v", got)
	}
}

func TestRepairJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": "b`:          `{"a": "b"}`,
		`{"a": [1, {"b": 2`: `{"a": [1, {"b": 2}]}`,
		`{"a": "x\"y`:       `{"a": "x\"y"}`,
		`{"a": "}"`:         `{"a": "}"}`,
		`{"a": 1}`:          `{"a": 1}`,
	} {
		if got := repairJSON(in); got != want {
			t.Errorf("repairJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRepairToolPairs(t *testing.T) {
	call := func(id string) store.ContentBlock {
		return store.ContentBlock{Type: store.BlockToolCall, ID: id, Name: "bash"}
	}
	in := []store.Message{
		{Role: store.RoleToolResult, ToolCallID: "early"}, // no call before it
		{Role: store.RoleAssistant, Content: []store.ContentBlock{call("a"), call("b")}},
		{Role: store.RoleToolResult, ToolCallID: "b"},
		{Role: store.RoleToolResult, ToolCallID: "b"}, // duplicate
		{Role: store.RoleAssistant, Content: []store.ContentBlock{call("c")}},
	}
	out := RepairToolPairs(in)
	var got []string
	for _, m := range out {
		s := m.Role + ":" + m.ToolCallID
		if m.IsError {
			s += "!"
		}
		got = append(got, s)
	}
	want := []string{"assistant:", "toolResult:b", "toolResult:a!", "assistant:", "toolResult:c!"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if len(in) != 5 || in[0].ToolCallID != "early" {
		t.Fatalf("input modified")
	}
}

func TestClassifyAPI(t *testing.T) {
	e := classifyAPI("Anthropic", 200, "overloaded_error", "Overloaded", nil, nil)
	if e.Class != errclass.Overloaded || !e.Retriable {
		t.Fatalf("%+v", e)
	}
	e = classifyAPI("OpenAI", 400, "invalid_request_error", "Please reduce the length of the messages; maximum context length is 8192", nil, nil)
	if e.Class != errclass.ContextOverflow || e.Retriable {
		t.Fatalf("%+v", e)
	}
	e = classifyAPI("OpenAI", 429, "insufficient_quota", "You exceeded your current quota", nil, nil)
	if e.Class != errclass.Auth || e.Retriable {
		t.Fatalf("quota: %+v", e)
	}
	typ, msg := errorBody(`{"type":"error","error":{"type":"rate_limit_error","message":"m"}}`)
	if typ != "rate_limit_error" || msg != "m" {
		t.Fatalf("errorBody = %q %q", typ, msg)
	}
}

func TestCleanTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the flaky test":             "Fix the flaky test",
		"\n  \"Fix the flaky test.\"\n":  "Fix the flaky test",
		"Title: **Rust borrow checker**": "Rust borrow checker",
		"“Résumé des tests”!":            "Résumé des tests",
		"   \n\n":                        "",
		strings.Repeat("word ", 40):      strings.TrimSpace(strings.Repeat("word ", 16)) + "…",
	} {
		if got := CleanTitle(in); got != want {
			t.Errorf("CleanTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
