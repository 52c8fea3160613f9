// Package agui speaks the AG-UI protocol (docs.ag-ui.com) from the one
// event log: Encoder turns one turn's canonical events into AG-UI events,
// and the dashboard's POST /ag-ui streams them as server-sent events. It is
// tested against the stock @ag-ui/client HttpAgent (e2e/agui.e2e.mjs).
package agui

import (
	"encoding/json"
	"strings"

	"agenthub/store"
)

// AG-UI event types the hub sends.
const (
	RunStarted              = "RUN_STARTED"
	RunFinished             = "RUN_FINISHED"
	RunError                = "RUN_ERROR"
	TextMessageStart        = "TEXT_MESSAGE_START"
	TextMessageContent      = "TEXT_MESSAGE_CONTENT"
	TextMessageEnd          = "TEXT_MESSAGE_END"
	ToolCallStart           = "TOOL_CALL_START"
	ToolCallArgs            = "TOOL_CALL_ARGS"
	ToolCallEnd             = "TOOL_CALL_END"
	ToolCallResult          = "TOOL_CALL_RESULT"
	ReasoningStart          = "REASONING_START"
	ReasoningMessageStart   = "REASONING_MESSAGE_START"
	ReasoningMessageContent = "REASONING_MESSAGE_CONTENT"
	ReasoningMessageEnd     = "REASONING_MESSAGE_END"
	ReasoningEnd            = "REASONING_END"
	StepStarted             = "STEP_STARTED"
	StepFinished            = "STEP_FINISHED"
	MessagesSnapshot        = "MESSAGES_SNAPSHOT"
	StateSnapshot           = "STATE_SNAPSHOT"
	Custom                  = "CUSTOM"
)

// Event is one AG-UI event. Only the fields of its Type are set; absent
// fields are omitted, never null (the stock client refuses explicit nulls).
type Event struct {
	Type            string    `json:"type"`
	Timestamp       int64     `json:"timestamp,omitempty"` // Unix ms of the canonical event
	ThreadID        string    `json:"threadId,omitempty"`
	RunID           string    `json:"runId,omitempty"`
	MessageID       string    `json:"messageId,omitempty"`
	Role            string    `json:"role,omitempty"`
	Delta           string    `json:"delta,omitempty"`
	ToolCallID      string    `json:"toolCallId,omitempty"`
	ToolCallName    string    `json:"toolCallName,omitempty"`
	ParentMessageID string    `json:"parentMessageId,omitempty"`
	Content         *string   `json:"content,omitempty"`
	StepName        string    `json:"stepName,omitempty"`
	Message         string    `json:"message,omitempty"`
	Code            string    `json:"code,omitempty"`
	Outcome         *Outcome  `json:"outcome,omitempty"`
	Messages        []Message `json:"messages,omitempty"`
	Name            string    `json:"name,omitempty"`
	Value           any       `json:"value,omitempty"`
	Snapshot        *State    `json:"snapshot,omitempty"`
}

// State is the agent state a STATE_SNAPSHOT carries: the session's todo
// list (todo.updated).
type State struct {
	Todos []store.Todo `json:"todos"`
}

// Outcome is RUN_FINISHED's outcome: "success" or "cancelled".
type Outcome struct {
	Type string `json:"type"`
}

// Message is an AG-UI message of a MESSAGES_SNAPSHOT.
type Message struct {
	ID         string     `json:"id"`
	Role       string     `json:"role"` // "user" | "assistant" | "tool" | "reasoning"
	Content    *string    `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	Error      string     `json:"error,omitempty"`
}

// ToolCall is an assistant message's call.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and its JSON arguments (as text).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ResultMessageID is the id of the tool message a TOOL_CALL_RESULT mints
// for a call (stable, so a snapshot and a live result agree).
func ResultMessageID(toolCallID string) string { return "result:" + toolCallID }

// ReasoningMessageID is the id of the reasoning message of assistant
// message id, live (REASONING_MESSAGE_START) and in snapshots alike.
func ReasoningMessageID(id string) string { return id + ":reasoning" }

// Messages converts stored messages to AG-UI messages: text joins into
// content; tool calls become toolCalls; an assistant message's thinking
// becomes a reasoning message (ReasoningMessageID, role "reasoning") just
// before it, as the live stream placed it; a tool result is a tool message
// (with error set when it failed). Images are left out.
func Messages(ms []store.Message) []Message {
	out := make([]Message, 0, len(ms))
	for _, m := range ms {
		var text, thinking strings.Builder
		var calls []ToolCall
		for _, b := range m.Content {
			switch b.Type {
			case store.BlockThinking:
				thinking.WriteString(b.Thinking)
			case store.BlockText:
				text.WriteString(b.Text)
			case store.BlockToolCall:
				args := string(b.Arguments)
				if args == "" || args == "null" {
					args = "{}"
				}
				calls = append(calls, ToolCall{ID: b.ID, Type: "function", Function: FunctionCall{Name: b.Name, Arguments: args}})
			}
		}
		s := text.String()
		switch m.Role {
		case store.RoleUser:
			out = append(out, Message{ID: m.ID, Role: "user", Content: &s})
		case store.RoleAssistant:
			if thinking.Len() > 0 {
				r := thinking.String()
				out = append(out, Message{ID: ReasoningMessageID(m.ID), Role: "reasoning", Content: &r})
			}
			am := Message{ID: m.ID, Role: "assistant", ToolCalls: calls}
			if s != "" || len(calls) == 0 {
				am.Content = &s
			}
			out = append(out, am)
		case store.RoleToolResult:
			tm := Message{ID: ResultMessageID(m.ToolCallID), Role: "tool", Content: &s, ToolCallID: m.ToolCallID}
			if m.IsError {
				tm.Error = firstLine(s)
			}
			out = append(out, tm)
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		s = "the tool failed"
	}
	return s
}

// marshal is json.Marshal for an Event (it cannot fail: every field is
// plain data or already valid JSON).
func marshal(e Event) []byte {
	b, _ := json.Marshal(e)
	return b
}
