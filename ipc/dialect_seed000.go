package ipc

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"agenthub/store"
)

// seed000 is seed 000's StreamPayload dialect. streamId groups the events
// of one assistant turn (the turn id; the session id for events outside a
// turn; "compaction:{agentId}" for compaction); agentId is the session
// that produced the event (a worker's for a sub-agent's events). Additive
// fields: eventId on every frame, messageId on message_* frames (the
// messages of one turn share its streamId).
type seed000 struct {
	msgs  map[string]*accum
	order []string          // open messages, oldest first (deterministic flushes)
	tools map[string]string // running tool call → its turn (the streamId)
}

// accum is one streamed message's accumulated content.
type accum struct {
	c          *contentBuilder
	stream     string    // its streamId
	agent      string    // its agentId
	lastUpdate time.Time // ts of the last message_update sent
	lastSize   int       // content size (c.size) at that update
	pending    bool      // content changed since then
}

// due reports whether a message_update should go out at event time now:
// content changed, and either none was sent yet, or UpdateInterval passed
// and (below UpdateGrowthFloor) any growth or (above it) growth by at
// least UpdateGrowth of the size at the last update.
func (a *accum) due(now time.Time) bool {
	switch {
	case !a.pending:
		return false
	case a.lastUpdate.IsZero():
		return true
	case now.Sub(a.lastUpdate) < UpdateInterval:
		return false
	case a.lastSize < UpdateGrowthFloor:
		return true
	}
	return float64(a.c.size-a.lastSize) >= UpdateGrowth*float64(a.lastSize)
}

type streamPayload struct {
	StreamID  string `json:"streamId"`
	AgentID   string `json:"agentId"`
	Event     any    `json:"event"`
	MessageID string `json:"messageId,omitempty"`
	EventID   string `json:"eventId,omitempty"`
}

type s000Message struct {
	Role       string `json:"role"`
	Content    []any  `json:"content"`
	StopReason string `json:"stopReason,omitempty"`
}

// s000MessageEvent is a message_start, message_update or message_end.
type s000MessageEvent struct {
	Type    string      `json:"type"`
	Message s000Message `json:"message"`
}

// s000Stream is the streamId of ev: its turn, else its session.
func s000Stream(ev Event) string {
	if t := turnOf(ev); t != "" {
		return t
	}
	return ev.SessionID
}

func (e *seed000) open(id, stream, agent string) *accum {
	a, ok := e.msgs[id]
	if !ok {
		a = &accum{c: newContentBuilder(nil), stream: stream, agent: agent}
		e.msgs[id] = a
		e.order = append(e.order, id)
	}
	return a
}

func (e *seed000) close(id string) {
	delete(e.msgs, id)
	e.order = slices.DeleteFunc(e.order, func(s string) bool { return s == id })
}

func (e *seed000) Resume(r ResumePoint) ([][]byte, error) {
	stream := r.TurnID
	if stream == "" {
		stream = r.SessionID
	}
	var out [][]byte
	if m := r.Message; m != nil {
		a := e.open(m.ID, stream, r.SessionID)
		a.c = newContentBuilder(m.Content)
		for _, typ := range []string{"message_start", "message_update"} {
			content := AgentContent(a.c.content())
			if typ == "message_start" {
				content = []any{}
			}
			b, err := json.Marshal(streamPayload{StreamID: stream, AgentID: r.SessionID, MessageID: m.ID, EventID: r.EventID,
				Event: s000MessageEvent{typ, s000Message{Role: store.RoleAssistant, Content: content}}})
			if err != nil {
				return nil, fmt.Errorf("ipc: encode resumed %s: %w", typ, err)
			}
			out = append(out, b)
		}
	}
	for _, t := range r.Tools {
		e.tools[t.ID] = stream
	}
	return out, nil
}

func (e *seed000) Snapshot(frame []byte) ([]byte, error) {
	return dialectSnapshot(frame, ToAgentMessages)
}

func (e *seed000) update(ev Event, id string, a *accum) ([]byte, error) {
	a.lastUpdate, a.lastSize, a.pending = ev.TS.Time, a.c.size, false
	b, err := json.Marshal(streamPayload{StreamID: a.stream, AgentID: a.agent, MessageID: id, EventID: ev.ID.String(),
		Event: s000MessageEvent{"message_update", s000Message{Role: store.RoleAssistant, Content: AgentContent(a.c.content())}}})
	if err != nil {
		return nil, fmt.Errorf("ipc: encode message_update: %w", err)
	}
	return b, nil
}

func (e *seed000) Encode(ev Event) ([][]byte, error) {
	out, err := e.encode(ev)
	if err != nil {
		return nil, err
	}
	// Flush withheld updates whose interval has passed by this event's time.
	for _, id := range e.order {
		if a := e.msgs[id]; a.due(ev.TS.Time) {
			b, err := e.update(ev, id, a)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
	return out, nil
}

// frame is one StreamPayload frame of ev.
func (e *seed000) frame(ev Event, stream, messageID string, event any) ([][]byte, error) {
	return marshalFrame(streamPayload{StreamID: stream, AgentID: ev.SessionID, Event: event, MessageID: messageID, EventID: ev.ID.String()})
}

func (e *seed000) encode(ev Event) ([][]byte, error) {
	switch ev.Type {
	case TypeMessageStart:
		return e.messageStart(ev)
	case TypeMessageReset, TypeTextDelta, TypeThinkingDelta, TypeToolUseStart, TypeToolUseInputDelta, TypeToolUseEnd:
		return e.streaming(ev)
	case TypeMessageComplete:
		return e.messageEnd(ev)
	case TypeToolCalled:
		return e.toolStart(ev)
	case TypeToolCompleted, TypeToolFailed:
		return e.toolEnd(ev)
	case TypeCompactionStarted:
		return e.frame(ev, "compaction:"+ev.SessionID, "", struct {
			Type string `json:"type"`
		}{"compaction_start"})
	case TypeCompactionComplete:
		return e.compactionEnd(ev)
	}
	return nil, nil
}

func (e *seed000) messageStart(ev Event) ([][]byte, error) {
	p, err := decodeAs[MessageStart](ev)
	if err != nil {
		return nil, err
	}
	return e.start(ev, p.MessageID)
}

// start opens message id (ev's turn is its stream) and returns its
// message_start frame.
func (e *seed000) start(ev Event, id string) ([][]byte, error) {
	a := e.open(id, s000Stream(ev), ev.SessionID)
	return e.frame(ev, a.stream, id, s000MessageEvent{"message_start", s000Message{Role: store.RoleAssistant, Content: []any{}}})
}

// streaming folds a streaming event into its message's content and sends
// a message_update when one is due. A message whose start this encoder
// never saw (a worker's, after a resume) is opened with a synthetic
// message_start first.
func (e *seed000) streaming(ev Event) ([][]byte, error) {
	id, err := streamingMessageID(ev)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	a, known := e.msgs[id]
	if !known {
		start, err := e.start(ev, id)
		if err != nil {
			return nil, err
		}
		out, a = start, e.msgs[id]
	}
	if err := a.c.apply(ev.Type, ev.Payload); err != nil {
		return nil, fmt.Errorf("ipc: event %s: %w", ev.ID.String(), err)
	}
	a.pending = true
	if ev.Type == TypeMessageReset { // the retry's empty content goes out at once: the partial is void
		a.lastUpdate, a.lastSize = time.Time{}, 0
	}
	if !a.due(ev.TS.Time) {
		return out, nil
	}
	b, err := e.update(ev, id, a)
	if err != nil {
		return nil, err
	}
	return append(out, b), nil
}

func (e *seed000) messageEnd(ev Event) ([][]byte, error) {
	p, err := decodeAs[MessageComplete](ev)
	if err != nil {
		return nil, err
	}
	stream := s000Stream(ev)
	if a, ok := e.msgs[p.MessageID]; ok {
		stream = a.stream
	}
	e.close(p.MessageID)
	return e.frame(ev, stream, p.MessageID, s000MessageEvent{"message_end",
		s000Message{Role: store.RoleAssistant, Content: AgentContent(p.FinalContent), StopReason: p.StopReason}})
}

func (e *seed000) toolStart(ev Event) ([][]byte, error) {
	p, err := decodeAs[ToolCalled](ev)
	if err != nil {
		return nil, err
	}
	stream := s000Stream(ev)
	e.tools[p.ToolUseID] = stream
	args := p.Input
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	return e.frame(ev, stream, "", struct {
		Type       string          `json:"type"`
		ToolCallID string          `json:"toolCallId"`
		ToolName   string          `json:"toolName"`
		Args       json.RawMessage `json:"args"`
	}{"tool_execution_start", p.ToolUseID, p.ToolName, args})
}

// toolEnd is tool.completed or tool.failed as a tool_execution_end.
func (e *seed000) toolEnd(ev Event) ([][]byte, error) {
	end := struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId"`
		Result     string `json:"result"`
		IsError    bool   `json:"isError"`
	}{Type: "tool_execution_end"}
	if ev.Type == TypeToolCompleted {
		p, err := decodeAs[ToolCompleted](ev)
		if err != nil {
			return nil, err
		}
		end.ToolCallID, end.Result, end.IsError = p.ToolUseID, p.Output, p.IsError
	} else {
		p, err := decodeAs[ToolFailed](ev)
		if err != nil {
			return nil, err
		}
		end.ToolCallID, end.Result, end.IsError = p.ToolUseID, p.Message, true
	}
	stream, ok := e.tools[end.ToolCallID]
	if !ok {
		stream = s000Stream(ev)
	}
	delete(e.tools, end.ToolCallID)
	return e.frame(ev, stream, "", end)
}

func (e *seed000) compactionEnd(ev Event) ([][]byte, error) {
	p, err := decodeAs[CompactionCompleted](ev)
	if err != nil {
		return nil, err
	}
	return e.frame(ev, "compaction:"+ev.SessionID, "", struct {
		Type          string `json:"type"`
		Removed       int    `json:"removed"`
		Kept          int    `json:"kept"`
		TokensRemoved int64  `json:"tokensRemoved"`
		TokensKept    int64  `json:"tokensKept"`
		Reason        string `json:"reason"`
	}{"compaction_end", p.Removed, p.Kept, p.TokensRemoved, p.TokensKept, p.Reason})
}
