package hub_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agenthub/app/agent"
	"agenthub/app/hub"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

// openAIHarness is an asking harness whose model is an OpenAI-compatible
// server (the fake speaks Chat Completions SSE).
func openAIHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, asking, func(c *hub.Config) { c.DefaultModel = "openai:local-model" })
	h.reg = llm.New(llm.Config{OpenAIBaseURL: h.srv.URL + "/v1", IgnoreEnv: true, IdleTimeout: 20 * time.Second})
	h.hub.SetProviders(h.reg)
	return h
}

// openAIBash is a Chat Completions reply calling bash once per command,
// every call under the same id (id "" sends none).
func openAIBash(id string, commands ...string) llmtest.Response {
	s := llmtest.NewOpenAIStream("local-model")
	for i, c := range commands {
		s.ToolCall(i, id, "bash", mustJSON(map[string]string{"command": c}))
	}
	return s.Finish("tool_calls").Usage(100, 10, 0, 0).Done().Response()
}

func openAIText(text string) llmtest.Response {
	return llmtest.NewOpenAIStream("local-model").Text(text).Finish("stop").Usage(100, 5, 0, 0).Done().Response()
}

// commandOf is a bash call's command.
func commandOf(t *testing.T, input json.RawMessage) string {
	t.Helper()
	var in struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		t.Fatalf("bash input %s: %v", input, err)
	}
	return in.Command
}

// openAIChat is the part of a Chat Completions request the tests check.
type openAIChat struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

// A server that gives two calls of one message the same id: each call gets
// its own card (its own command, its own approval), approving one runs that
// one only, the other is asked separately and does not hang; the ids the
// app uses differ, and the server gets its own id back, once per message.
func TestDuplicateProviderCallIDs(t *testing.T) {
	h := openAIHarness(t)
	s := h.session()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(openAIBash("call_dup", "echo one > one.txt", "echo two > two.txt"), openAIText("both ran"))
	h.submit(s.ID, "run both")

	byID := map[string]string{} // tool_use_id → command, from tool.called
	asked := map[string]ipc.ToolApprovalRequested{}
	for len(asked) < 2 {
		e := w.until(func(e ev) bool {
			return e.Type == ipc.TypeToolCalled || e.Type == ipc.TypeToolApprovalRequested
		})
		if e.Type == ipc.TypeToolCalled {
			var c ipc.ToolCalled
			e.decode(t, &c)
			if _, dup := byID[c.ToolUseID]; dup {
				t.Fatalf("two tool.called with id %q", c.ToolUseID)
			}
			byID[c.ToolUseID] = commandOf(t, c.Input)
			continue
		}
		var r ipc.ToolApprovalRequested
		e.decode(t, &r)
		asked[r.ToolUseID] = r
	}
	var oneID, twoID string
	for id, r := range asked {
		cmd := byID[id]
		if !strings.Contains(r.Summary, cmd) || commandOf(t, r.Input) != cmd {
			t.Fatalf("the card of %s shows %q / %s, its call is %q", id, r.Summary, r.Input, cmd)
		}
		switch cmd {
		case "echo one > one.txt":
			oneID = id
		case "echo two > two.txt":
			twoID = id
		}
	}
	if oneID == "" || twoID == "" || oneID == twoID {
		t.Fatalf("calls %v, asked %v", byID, asked)
	}

	h.approve(s.ID, twoID, ipc.DecisionOnce, "")
	w.until(func(e ev) bool { return e.Type == ipc.TypeToolCompleted && strings.Contains(string(e.Payload), twoID) })
	if !fileExists(h.ws, "two.txt") || fileExists(h.ws, "one.txt") {
		t.Fatalf("approving the second call ran: two.txt %v, one.txt %v", fileExists(h.ws, "two.txt"), fileExists(h.ws, "one.txt"))
	}
	if ps, err := h.hub.PendingApprovals(context.Background(), s.ID); err != nil || len(ps) != 1 || ps[0].ToolUseID != oneID {
		t.Fatalf("still waiting: %+v %v (want only %s)", ps, err, oneID)
	}
	h.approve(s.ID, oneID, ipc.DecisionDeny, "not this one")
	if end := w.turnEnd(s.ID); end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("turn ended with %s", end.Type)
	}

	// The next request pairs each result with its own call; the server
	// sees its own id again, and no message holds one id twice.
	var req openAIChat
	if err := h.srv.Requests()[1].Decode(&req); err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	var sent []string
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			sent = append(sent, c.ID)
			results[c.ID] = ""
		}
		if m.Role == "tool" {
			results[m.ToolCallID] = mustJSON(m.Content)
		}
	}
	if len(sent) != 2 || sent[0] != "call_dup" || sent[1] == "call_dup" {
		t.Fatalf("tool_calls sent back under %v, want call_dup once and a unique id", sent)
	}
	for i, id := range sent {
		denied := strings.Contains(results[id], "denied")
		if (i == 0) != denied {
			t.Fatalf("result of call %d (%s): %s", i, id, results[id])
		}
	}
	var stored store.Message
	for _, m := range h.messages(s.ID) {
		if m.Role == store.RoleAssistant && len(m.Content) >= 2 {
			stored = m
		}
	}
	if c := stored.Content; c[0].ID == c[1].ID || c[1].ProviderID != "call_dup" || !strings.HasPrefix(c[1].ID, agent.MintedCallPrefix) {
		t.Fatalf("stored calls %+v", stored.Content)
	}
}

// A server that sends no ids (the adapter numbers them call_0… per
// response): the calls of two turns get ids unique across the session, and
// each is asked and answered on its own.
func TestMissingProviderCallIDsAcrossTurns(t *testing.T) {
	h := openAIHarness(t)
	s := h.session()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(openAIBash("", "echo first > first.txt"), openAIText("one"),
		openAIBash("", "echo second > second.txt"), openAIText("two"))
	seen := map[string]bool{}
	for _, want := range []string{"first.txt", "second.txt"} {
		h.submit(s.ID, "make "+want)
		r := w.approvalRequest()
		if seen[r.ToolUseID] || !strings.Contains(r.Summary, want) {
			t.Fatalf("asked for %s (%q), seen %v", r.ToolUseID, r.Summary, seen)
		}
		seen[r.ToolUseID] = true
		h.approve(s.ID, r.ToolUseID, ipc.DecisionOnce, "")
		if end := w.turnEnd(s.ID); end.Type != ipc.TypeTurnCompleted || !fileExists(h.ws, want) {
			t.Fatalf("turn for %s ended %s, file there: %v", want, end.Type, fileExists(h.ws, want))
		}
	}
	ids := map[string]bool{}
	for _, m := range h.messages(s.ID) {
		for _, b := range m.Content {
			if b.Type == store.BlockToolCall {
				if ids[b.ID] {
					t.Fatalf("tool call id %s twice in the session", b.ID)
				}
				ids[b.ID] = true
			}
		}
	}
	if len(ids) != 2 {
		t.Fatalf("stored tool calls %v", ids)
	}
}
