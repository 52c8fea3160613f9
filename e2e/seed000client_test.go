package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// seed000Client is a seed 000 client written from the seed's own document
// (multica's docs/client-streaming-protocol.md): its store and its
// "Event Routing Pseudocode", nothing of Agent Hub's. Messages live in one
// list; message_start appends an empty assistant message whose id is the
// streamId ("Use streamId as the message ID"), message_update replaces the
// content of the message whose id is the streamId, message_end sets its
// content and stopReason and interrupts the running tool executions of
// the same agent; tool_execution_start appends a running toolResult
// message, tool_execution_end updates the one with that toolCallId;
// compaction_* set the compacting flag and the last stats. A user message
// is appended when the user sends it (the store's sendMessage), and the
// history a client loads is AgentMessages normalised as the document's
// "Message History via RPC" says. Beyond the pseudocode it keeps
// errorMessage (pi-ai's AssistantMessage field) and its cursor.
type seed000Client struct {
	*dashClient
	messages   []s0Message
	streaming  map[string]bool
	compacting bool
	compaction map[string]any // the last compaction_end's stats
	// dupStarts counts message_start frames for an id the list already
	// holds (each one a second bubble in the authors' store).
	dupStarts int
}

// s0Message is the document's client-side Message.
type s0Message struct {
	ID           string
	Role         string // user | assistant | toolResult
	Content      []any
	AgentID      string
	StopReason   string
	ErrorMessage string
	ToolCallID   string
	ToolName     string
	ToolStatus   string // running | success | error | interrupted
}

func newSeed000Client(t *testing.T, info dashboardInfo) *seed000Client {
	return &seed000Client{dashClient: newDashClient(t, info), streaming: map[string]bool{}}
}

// connect subscribes in seed000 to session sid: with the cursor, or a
// snapshot (whose AgentMessages become the message list); workers adds
// include_worker_sessions.
func (c *seed000Client) connect(ctx context.Context, sid string, snapshot, workers bool) {
	c.t.Helper()
	var since any
	if c.cursor != "" && !snapshot {
		since = c.cursor
	}
	var filter any
	if workers {
		filter = map[string]any{"include_worker_sessions": true}
	}
	ack := c.dial(ctx, sid, map[string]any{"type": "subscribe", "filter": filter, "since": since, "snapshot": snapshot, "dialect": "seed000"})
	if ack["type"] != "subscribe_ack" || ack["dialect"] != "seed000" {
		c.t.Fatalf("seed000 subscribe: %v", ack)
	}
	if snapshot {
		snap := c.read(ctx)
		if snap["type"] != "snapshot" {
			c.t.Fatalf("want the snapshot, got %v", snap)
		}
		raw, _ := snap["messages"].([]any)
		c.messages = c.loadHistory(raw)
		if at, ok := snap["snapshot_at_event_id"].(string); ok {
			c.cursor = at
		}
	}
}

// loadHistory normalises AgentMessages as the document says: string
// content becomes a text block; toolResult status from isError.
func (c *seed000Client) loadHistory(raw []any) []s0Message {
	var out []s0Message
	for _, x := range raw {
		m, _ := x.(map[string]any)
		sm := s0Message{Role: str(m["role"]), Content: contentBlocks(m["content"])}
		switch sm.Role {
		case "assistant":
			sm.ID, sm.StopReason, sm.ErrorMessage = str(m["id"]), str(m["stopReason"]), str(m["errorMessage"])
		case "toolResult":
			sm.ToolCallID, sm.ToolName, sm.ToolStatus = str(m["toolCallId"]), str(m["toolName"]), "success"
			if m["isError"] == true {
				sm.ToolStatus = "error"
			}
		}
		out = append(out, sm)
	}
	return out
}

func str(v any) string { s, _ := v.(string); return s }

// contentBlocks is content as a block list (a string becomes a text block).
func contentBlocks(v any) []any {
	switch c := v.(type) {
	case string:
		if c == "" {
			return []any{}
		}
		return []any{map[string]any{"type": "text", "text": c}}
	case []any:
		return c
	}
	return []any{}
}

// send appends the user's message (the store's sendMessage) and submits it.
func (c *seed000Client) send(sid, text string) {
	c.t.Helper()
	c.messages = append(c.messages, s0Message{Role: "user", Content: []any{map[string]any{"type": "text", "text": text}}})
	c.http("POST", "/sessions/"+sid+"/turns", map[string]any{"content": text}, nil)
}

func (c *seed000Client) index(id string) int {
	for i, m := range c.messages {
		if m.ID == id && m.Role == "assistant" {
			return i
		}
	}
	return -1
}

// apply routes one frame as handleStreamEvent does; it returns the event type.
func (c *seed000Client) apply(f map[string]any) string {
	if id, ok := f["eventId"].(string); ok {
		c.cursor = id
	}
	ev, ok := f["event"].(map[string]any)
	if !ok {
		return ""
	}
	streamID, agentID := str(f["streamId"]), str(f["agentId"])
	msg, _ := ev["message"].(map[string]any)
	typ := str(ev["type"])
	switch typ {
	case "message_start": // store.startStream: always appends
		if c.index(streamID) >= 0 {
			c.dupStarts++
		}
		c.messages = append(c.messages, s0Message{ID: streamID, Role: "assistant", Content: []any{}, AgentID: agentID})
		c.streaming[streamID] = true
		if content := contentBlocks(msg["content"]); len(content) > 0 {
			c.messages[len(c.messages)-1].Content = content
		}
	case "message_update": // store.appendStream: replaces the content of every match
		for i := range c.messages {
			if c.messages[i].ID == streamID {
				c.messages[i].Content = contentBlocks(msg["content"])
			}
		}
	case "message_end": // store.endStream
		delete(c.streaming, streamID)
		agent := ""
		for i := range c.messages {
			if c.messages[i].ID == streamID {
				agent = c.messages[i].AgentID
				c.messages[i].Content, c.messages[i].StopReason = contentBlocks(msg["content"]), str(msg["stopReason"])
				c.messages[i].ErrorMessage = str(msg["errorMessage"])
			}
		}
		for i := range c.messages {
			if m := &c.messages[i]; m.Role == "toolResult" && m.ToolStatus == "running" && m.AgentID == agent {
				m.ToolStatus = "interrupted"
			}
		}
	case "tool_execution_start":
		c.messages = append(c.messages, s0Message{Role: "toolResult", Content: []any{}, AgentID: agentID,
			ToolCallID: str(ev["toolCallId"]), ToolName: str(ev["toolName"]), ToolStatus: "running"})
	case "tool_execution_end":
		for i := range c.messages {
			if m := &c.messages[i]; m.Role == "toolResult" && m.ToolCallID == str(ev["toolCallId"]) {
				m.ToolStatus = "success"
				if ev["isError"] == true {
					m.ToolStatus = "error"
				}
				m.Content = []any{}
				if r, ok := ev["result"]; ok && r != nil {
					text, isStr := r.(string)
					if !isStr {
						b, _ := json.Marshal(r)
						text = string(b)
					}
					m.Content = []any{map[string]any{"type": "text", "text": text}}
				}
			}
		}
	case "compaction_start":
		c.compacting = true
	case "compaction_end":
		c.compacting, c.compaction = false, ev
	}
	return typ
}

// readUntil applies frames until done says so after one.
func (c *seed000Client) readUntil(ctx context.Context, done func(f map[string]any) bool) {
	c.t.Helper()
	for {
		f := c.read(ctx)
		c.apply(f)
		if done(f) {
			return
		}
	}
}

// endOf is a predicate: a message_end whose content's text is text.
func endOf(text string) func(map[string]any) bool {
	return func(f map[string]any) bool {
		ev, _ := f["event"].(map[string]any)
		msg, _ := ev["message"].(map[string]any)
		return str(ev["type"]) == "message_end" && blockText(contentBlocks(msg["content"])) == text
	}
}

// blockText is the text blocks' text, joined.
func blockText(content []any) string {
	var sb strings.Builder
	for _, b := range content {
		if m, _ := b.(map[string]any); str(m["type"]) == "text" {
			sb.WriteString(str(m["text"]))
		}
	}
	return sb.String()
}

// normBlocks renders content blocks comparably: the fields a block type
// has, arguments as compact JSON.
func normBlocks(content []any) string {
	var parts []string
	for _, b := range content {
		m, _ := b.(map[string]any)
		switch str(m["type"]) {
		case "text":
			parts = append(parts, "text:"+str(m["text"]))
		case "thinking":
			parts = append(parts, "thinking:"+str(m["thinking"]))
		case "toolCall":
			args, _ := json.Marshal(m["arguments"])
			var buf bytes.Buffer
			if json.Compact(&buf, args) != nil || buf.String() == "null" {
				buf.Reset()
				buf.WriteString("{}")
			}
			parts = append(parts, fmt.Sprintf("toolCall:%s:%s:%s", str(m["id"]), str(m["name"]), buf.String()))
		default:
			parts = append(parts, str(m["type"]))
		}
	}
	return "[" + strings.Join(parts, " | ") + "]"
}

// state is the client's message list, one line per message: what a user
// of the authors' client sees.
func (c *seed000Client) state() []string {
	var out []string
	for _, m := range c.messages {
		out = append(out, s0Line(m))
	}
	return out
}

func s0Line(m s0Message) string {
	switch m.Role {
	case "assistant":
		return fmt.Sprintf("assistant %s %s stop=%s err=%q", m.ID, normBlocks(m.Content), m.StopReason, m.ErrorMessage)
	case "toolResult":
		return fmt.Sprintf("toolResult %s %s %s", m.ToolCallID, m.ToolName, m.ToolStatus)
	}
	return fmt.Sprintf("%s %s", m.Role, normBlocks(m.Content))
}

// historyState is GET /sessions/{id}/messages as the same lines, the
// client's view of history per docs/protocol.md §7: a failed turn that
// stored no errored message shows as its "<turn id>:error" message, an
// errored message carries the turn's error.
func historyState(c *dashClient, sid string) []string {
	c.t.Helper()
	var page struct {
		Messages []struct {
			ID         string          `json:"id"`
			Role       string          `json:"role"`
			TurnID     string          `json:"turn_id"`
			Content    json.RawMessage `json:"content"`
			Status     string          `json:"status"`
			StopReason string          `json:"stop_reason"`
			ToolCallID string          `json:"tool_call_id"`
			ToolName   string          `json:"tool_name"`
			IsError    bool            `json:"is_error"`
			Turn       *struct {
				ID     string `json:"id"`
				Status string `json:"status"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			} `json:"turn"`
		} `json:"messages"`
	}
	c.http("GET", "/sessions/"+sid+"/messages?limit=500", nil, &page)
	failed := map[string]string{}
	errored := map[string]bool{}
	for _, m := range page.Messages {
		if m.Turn != nil && m.Turn.Status == "failed" && m.Turn.Error != nil {
			failed[m.Turn.ID] = m.Turn.Error.Message
		}
		if m.Role == "assistant" && m.Status == "error" {
			errored[m.TurnID] = true
		}
	}
	var out []string
	for i, m := range page.Messages {
		var content []any
		if err := json.Unmarshal(m.Content, &content); err != nil {
			c.t.Fatalf("history content %s: %v", m.Content, err)
		}
		sm := s0Message{ID: m.ID, Role: m.Role, Content: content, StopReason: m.StopReason, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
		if m.Role == "toolResult" {
			sm.ToolStatus = "success"
			if m.IsError {
				sm.ToolStatus = "error"
			}
		}
		if msg, ok := failed[m.TurnID]; ok && m.Role == "assistant" && m.Status == "error" {
			sm.ErrorMessage = msg
		}
		out = append(out, s0Line(sm))
		if msg, ok := failed[m.TurnID]; ok && !errored[m.TurnID] && (i+1 == len(page.Messages) || page.Messages[i+1].TurnID != m.TurnID) {
			out = append(out, s0Line(s0Message{ID: m.TurnID + ":error", Role: "assistant", Content: []any{}, StopReason: "error", ErrorMessage: msg}))
		}
	}
	return out
}
