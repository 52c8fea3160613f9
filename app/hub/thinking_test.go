package hub_test

import (
	"encoding/json"
	"testing"

	"agenthub/app/hub"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

// TestThinkingEndToEnd: with a thinking budget, the request enables thinking;
// the streamed thinking becomes thinking.delta events whose last delta
// carries the signature with empty text; the stored assistant message keeps
// the thinking block with its signature; and the next request of the tool
// loop sends that signed thinking block back.
func TestThinkingEndToEnd(t *testing.T) {
	h, s, w := watchedSession(t, func(c *hub.Config) { c.ThinkingBudget = 2048 })
	h.srv.Enqueue(
		llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).
			Thinking("sig-Zm9v", "Let me ", "look first.").
			ToolUse("tu_1", "list_dir", `{"path":`, `"."}`).
			Finish("tool_use", 40).Response(),
		textReply("Empty workspace."),
	)
	h.submit(s.ID, "what is here?")
	end := w.turnEnd(s.ID)
	if end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("turn ended %s", end.Type)
	}
	var deltas []ipc.ThinkingDelta
	var msgID string
	for _, e := range w.got {
		if e.Type == ipc.TypeThinkingDelta {
			var d ipc.ThinkingDelta
			e.decode(t, &d)
			deltas = append(deltas, d)
			msgID = d.MessageID
		}
	}
	if len(deltas) != 3 {
		t.Fatalf("%d thinking.delta events: %+v", len(deltas), deltas)
	}
	for i, d := range deltas[:2] {
		if d.Signature != nil || d.ContentBlockIndex != 0 {
			t.Fatalf("delta %d: %+v", i, d)
		}
	}
	last := deltas[2]
	if last.Signature == nil || *last.Signature != "sig-Zm9v" || last.Text != "" {
		t.Fatalf("last thinking.delta %+v", last)
	}
	var stored store.Message
	for _, m := range h.messages(s.ID) {
		if m.ID == msgID {
			stored = m
		}
	}
	if len(stored.Content) != 2 || stored.Content[0].Type != store.BlockThinking ||
		stored.Content[0].Thinking != "Let me look first." || stored.Content[0].Signature != "sig-Zm9v" {
		t.Fatalf("stored message %+v", stored)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var first struct {
		Thinking struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
	}
	if err := reqs[0].Decode(&first); err != nil || first.Thinking.Type != "enabled" || first.Thinking.BudgetTokens != 2048 {
		t.Fatalf("first request thinking %+v (%v)", first.Thinking, err)
	}
	checkValidHistory(t, reqs[1])
	var second struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := reqs[1].Decode(&second); err != nil || len(second.Messages) != 3 {
		t.Fatalf("second request: %v %s", err, reqs[1].Body)
	}
	var block struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	if err := json.Unmarshal(second.Messages[1].Content[0], &block); err != nil ||
		block.Type != "thinking" || block.Signature != "sig-Zm9v" || block.Thinking != "Let me look first." {
		t.Fatalf("signed thinking not sent back: %s", second.Messages[1].Content[0])
	}
}

// TestThinkingOffByDefault: without a budget the request has no thinking.
func TestThinkingOffByDefault(t *testing.T) {
	h, s, w := watchedSession(t)
	h.srv.Enqueue(textReply("hi"))
	h.submit(s.ID, "hi")
	w.turnEnd(s.ID)
	var req map[string]json.RawMessage
	if err := h.srv.Requests()[0].Decode(&req); err != nil {
		t.Fatal(err)
	}
	if _, ok := req["thinking"]; ok {
		t.Fatalf("thinking requested without a budget: %s", req["thinking"])
	}
}
