package ipc

import (
	"strings"

	"agenthub/store"
)

// ---- seed002: message.start / message.chunk / message.end ----

// seed002 accumulates each message's text so message.end carries it even
// when message.complete's final content is not text-only.
type seed002 struct {
	text map[string]*strings.Builder
}

type s002Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (e *seed002) Seed(m store.Message) {
	var sb strings.Builder
	for _, b := range m.Content {
		if b.Type == store.BlockText {
			sb.WriteString(b.Text)
		}
	}
	e.text[m.ID] = &sb
}

func (e *seed002) Encode(ev Event) ([][]byte, error) {
	frame := func(typ string, payload any) ([][]byte, error) {
		return marshalFrame(struct {
			Type    string `json:"type"`
			Payload any    `json:"payload"`
		}{typ, payload})
	}
	ts := ev.TS.UTC().Format(TimeFormat)
	switch ev.Type {
	case TypeMessageStart:
		p, err := decodeAs[MessageStart](ev)
		if err != nil {
			return nil, err
		}
		e.text[p.MessageID] = &strings.Builder{}
		return frame("message.start", struct {
			SessionID string `json:"sessionId"`
			MessageID string `json:"messageId"`
			Role      string `json:"role"`
			Timestamp string `json:"timestamp"`
		}{ev.SessionID, p.MessageID, "agent", ts})
	case TypeTextDelta:
		p, err := decodeAs[TextDelta](ev)
		if err != nil {
			return nil, err
		}
		sb, ok := e.text[p.MessageID]
		if !ok {
			sb = &strings.Builder{}
			e.text[p.MessageID] = sb
		}
		sb.WriteString(p.Text)
		return frame("message.chunk", struct {
			MessageID string      `json:"messageId"`
			Content   s002Content `json:"content"`
		}{p.MessageID, s002Content{"text", p.Text}})
	case TypeMessageComplete:
		p, err := decodeAs[MessageComplete](ev)
		if err != nil {
			return nil, err
		}
		var text strings.Builder
		hasText := false
		for _, b := range p.FinalContent {
			if b.Type == store.BlockText {
				text.WriteString(b.Text)
				hasText = true
			}
		}
		full := text.String()
		if sb, ok := e.text[p.MessageID]; ok && !hasText {
			full = sb.String()
		}
		delete(e.text, p.MessageID)
		return frame("message.end", struct {
			MessageID  string      `json:"messageId"`
			Content    s002Content `json:"content"`
			IsComplete bool        `json:"isComplete"`
			Timestamp  string      `json:"timestamp"`
		}{p.MessageID, s002Content{"text", full}, true, ts})
	}
	return nil, nil
}

// ---- seed004: ChatAgentResponse ----

type callInfo struct {
	name       string
	delegation bool
}

// seed004 remembers each call's tool name and kind for its streamed parts.
type seed004 struct {
	calls map[string]callInfo
}

type chatAgentResponse struct {
	Response  string             `json:"response"`
	ToolCalls []toolCallResponse `json:"tool_calls"`
	Citations []string           `json:"citations"`
}

type toolCallResponse struct {
	CallID          string         `json:"call_id"`
	EventType       string         `json:"event_type"` // call | result | delegation_call | delegation_result
	ToolName        string         `json:"tool_name"`
	ToolResponse    string         `json:"tool_response"`
	ToolCallDetails map[string]any `json:"tool_call_details"`
	StreamPart      *string        `json:"stream_part,omitempty"`
	IsComplete      bool           `json:"is_complete"`
}

// delegateToolName is the tool name seed004 frames show for delegation.
const delegateToolName = "delegate"

func (e *seed004) Seed(store.Message) {}

func (e *seed004) Encode(ev Event) ([][]byte, error) {
	switch ev.Type {
	case TypeTextDelta:
		p, err := decodeAs[TextDelta](ev)
		if err != nil {
			return nil, err
		}
		return marshalFrame(chatAgentResponse{Response: p.Text, ToolCalls: []toolCallResponse{}, Citations: []string{}})
	case TypeToolCalled:
		return e.toolCall(ev)
	case TypeToolCompleted, TypeToolFailed:
		return e.toolResult(ev)
	case TypeDelegateStarted:
		return e.delegationCall(ev)
	case TypeDelegateCompleted, TypeDelegateFailed:
		return e.delegationResult(ev)
	case TypeToolOutputDelta:
		return e.streamPart(ev)
	}
	return nil, nil
}

// s004Call is a ChatAgentResponse carrying the one tool call part tc.
func s004Call(tc toolCallResponse) ([][]byte, error) {
	return marshalFrame(chatAgentResponse{ToolCalls: []toolCallResponse{tc}, Citations: []string{}})
}

// s004Details are a part's tool_call_details: the Markdown summary, plus
// what the caller adds.
func s004Details(summary string) map[string]any { return map[string]any{"summary": summary} }

func (e *seed004) toolCall(ev Event) ([][]byte, error) {
	p, err := decodeAs[ToolCalled](ev)
	if err != nil {
		return nil, err
	}
	e.calls[p.ToolUseID] = callInfo{name: p.ToolName}
	return s004Call(toolCallResponse{CallID: p.ToolUseID, EventType: "call", ToolName: p.ToolName,
		ToolResponse: p.StatusText, ToolCallDetails: s004Details(p.Summary), IsComplete: true})
}

// toolResult is tool.completed or tool.failed as a "result" part.
func (e *seed004) toolResult(ev Event) ([][]byte, error) {
	var tc toolCallResponse
	if ev.Type == TypeToolCompleted {
		p, err := decodeAs[ToolCompleted](ev)
		if err != nil {
			return nil, err
		}
		tc = toolCallResponse{CallID: p.ToolUseID, ToolName: p.ToolName, ToolResponse: p.StatusText, ToolCallDetails: s004Details(p.Summary)}
		tc.ToolCallDetails["is_error"] = p.IsError
	} else {
		p, err := decodeAs[ToolFailed](ev)
		if err != nil {
			return nil, err
		}
		tc = toolCallResponse{CallID: p.ToolUseID, ToolName: p.ToolName, ToolResponse: p.StatusText, ToolCallDetails: s004Details(p.Summary)}
		tc.ToolCallDetails["is_error"], tc.ToolCallDetails["error_class"] = true, p.ErrorClass
	}
	delete(e.calls, tc.CallID)
	tc.EventType, tc.IsComplete = "result", true
	return s004Call(tc)
}

func (e *seed004) delegationCall(ev Event) ([][]byte, error) {
	p, err := decodeAs[DelegateStarted](ev)
	if err != nil {
		return nil, err
	}
	e.calls[p.ToolUseID] = callInfo{name: delegateToolName, delegation: true}
	d := s004Details(p.Summary)
	d["worker_session_id"], d["task"], d["depth"] = p.WorkerSessionID, p.Task, p.Depth
	return s004Call(toolCallResponse{CallID: p.ToolUseID, EventType: "delegation_call", ToolName: delegateToolName,
		ToolResponse: p.StatusText, ToolCallDetails: d, IsComplete: true})
}

// delegationResult is delegate.completed or delegate.failed as a
// "delegation_result" part.
func (e *seed004) delegationResult(ev Event) ([][]byte, error) {
	tc := toolCallResponse{EventType: "delegation_result", ToolName: delegateToolName, IsComplete: true}
	if ev.Type == TypeDelegateCompleted {
		p, err := decodeAs[DelegateCompleted](ev)
		if err != nil {
			return nil, err
		}
		tc.CallID, tc.ToolResponse, tc.ToolCallDetails = p.ToolUseID, p.StatusText, s004Details(p.Summary)
		tc.ToolCallDetails["success"] = p.Success
	} else {
		p, err := decodeAs[DelegateFailed](ev)
		if err != nil {
			return nil, err
		}
		tc.CallID, tc.ToolResponse, tc.ToolCallDetails = p.ToolUseID, p.StatusText, s004Details(p.Summary)
		tc.ToolCallDetails["success"], tc.ToolCallDetails["failure_mode"] = false, p.FailureMode
	}
	delete(e.calls, tc.CallID)
	return s004Call(tc)
}

// streamPart is tool.output_delta as an incomplete part of its call (a
// delegation's when the call is one or the text is a worker's).
func (e *seed004) streamPart(ev Event) ([][]byte, error) {
	p, err := decodeAs[ToolOutputDelta](ev)
	if err != nil {
		return nil, err
	}
	info := e.calls[p.ToolUseID]
	typ := "result"
	if info.delegation || p.Stream == "worker" {
		typ = "delegation_result"
	}
	part := p.Text
	return s004Call(toolCallResponse{CallID: p.ToolUseID, EventType: typ, ToolName: info.name,
		ToolCallDetails: s004Details(""), StreamPart: &part, IsComplete: false})
}
