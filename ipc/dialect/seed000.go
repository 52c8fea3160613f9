package dialect

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"agenthub/ipc"
	"agenthub/store"
)

// seed000 is seed 000's StreamPayload dialect, as the seed's authors'
// client reads it (docs/protocol.md §7): streamId is the message id of a
// message_* frame — "use streamId as the message ID" — so a store keyed by
// it holds every message of a turn once; tool_execution_* frames carry the
// id of the message that asked for the call; compaction frames
// "compaction:{agentId}". agentId is the subscribed session: frames of its
// worker sessions (include_worker_sessions) are left out, as the authors'
// hub never streams a sub-agent to a chat client (the delegate call's
// tool_execution_* frames carry the task and the result). A failed turn
// ends in a message_end with stopReason "error" and errorMessage (pi-ai's
// AssistantMessage), on its errored message or on one of its own
// ("<turn id>:error") when no message was streamed. Additive fields:
// eventId on every frame, messageId on message_* frames.
type seed000 struct {
	session string
	msgs    map[string]*accum
	order   []string          // open messages, oldest first (deterministic flushes)
	tools   map[string]string // running tool call → its streamId
	// errored is a message completed with stop_reason "error", whose
	// message_end waits for the llm.call_failed that says why (next in the
	// log); nil when none.
	errored *erroredEnd
	// failed: turns whose failure a message_end already showed.
	failed map[string]bool
}

// erroredEnd is a withheld message_end of an errored message.
type erroredEnd struct {
	id, turn string
	content  []any
}

// accum is one streamed message's accumulated content.
type accum struct {
	c          *ipc.ContentBuilder
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
	return float64(a.c.Size()-a.lastSize) >= UpdateGrowth*float64(a.lastSize)
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
	// ErrorMessage says why a message with stopReason "error" failed
	// (pi-ai's AssistantMessage.errorMessage).
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// s000MessageEvent is a message_start, message_update or message_end.
type s000MessageEvent struct {
	Type    string      `json:"type"`
	Message s000Message `json:"message"`
}

func (e *seed000) open(id, agent string) *accum {
	a, ok := e.msgs[id]
	if !ok {
		a = &accum{c: ipc.NewContentBuilder(nil), stream: id, agent: agent}
		e.msgs[id] = a
		e.order = append(e.order, id)
	}
	return a
}

func (e *seed000) close(id string) {
	delete(e.msgs, id)
	e.order = slices.DeleteFunc(e.order, func(s string) bool { return s == id })
}

// Resume continues what was open at the resume point. A client resuming
// from its cursor already holds the open message (it saw its
// message_start): it gets one message_update with the whole content so
// far, never a second message_start. A snapshot client holds nothing in
// flight: it gets message_start, then that update.
func (e *seed000) Resume(r ipc.ResumePoint) ([][]byte, error) {
	var out [][]byte
	if m := r.Message; m != nil {
		a := e.open(m.ID, r.SessionID)
		a.c = ipc.NewContentBuilder(m.Content)
		types := []string{"message_start", "message_update"}
		if r.FromCursor {
			types = types[1:]
		}
		for _, typ := range types {
			content := ipc.AgentContent(a.c.Content())
			if typ == "message_start" {
				content = []any{}
			}
			b, err := json.Marshal(streamPayload{StreamID: m.ID, AgentID: r.SessionID, MessageID: m.ID, EventID: r.EventID,
				Event: s000MessageEvent{Type: typ, Message: s000Message{Role: store.RoleAssistant, Content: content}}})
			if err != nil {
				return nil, fmt.Errorf("ipc: encode resumed %s: %w", typ, err)
			}
			out = append(out, b)
		}
	}
	for _, t := range r.Tools {
		e.tools[t.ID] = cmp.Or(t.MessageID, r.SessionID)
	}
	if f := r.FinalFailure; f != nil && f.MessageID != "" && r.TurnID != "" {
		e.failed[r.TurnID] = true // its errored message_end went out before the resume point
	}
	return out, nil
}

func (e *seed000) Snapshot(frame []byte) ([]byte, error) {
	return dialectSnapshot(frame, seed000History)
}

func (e *seed000) update(ev ipc.Event, id string, a *accum) ([]byte, error) {
	a.lastUpdate, a.lastSize, a.pending = ev.TS.Time, a.c.Size(), false
	b, err := json.Marshal(streamPayload{StreamID: a.stream, AgentID: a.agent, MessageID: id, EventID: ev.ID.String(),
		Event: s000MessageEvent{Type: "message_update", Message: s000Message{Role: store.RoleAssistant, Content: ipc.AgentContent(a.c.Content())}}})
	if err != nil {
		return nil, fmt.Errorf("ipc: encode message_update: %w", err)
	}
	return b, nil
}

func (e *seed000) Encode(ev ipc.Event) ([][]byte, error) {
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
func (e *seed000) frame(ev ipc.Event, stream, messageID string, event any) ([][]byte, error) {
	return marshalFrame(streamPayload{StreamID: stream, AgentID: ev.SessionID, Event: event, MessageID: messageID, EventID: ev.ID.String()})
}

func (e *seed000) encode(ev ipc.Event) ([][]byte, error) {
	if ev.SessionID != e.session && e.session != "" {
		return nil, nil // a worker's: never a bubble of the parent's chat
	}
	switch ev.Type {
	case ipc.TypeMessageStart:
		return e.messageStart(ev)
	case ipc.TypeMessageReset, ipc.TypeTextDelta, ipc.TypeThinkingDelta, ipc.TypeToolUseStart, ipc.TypeToolUseInputDelta, ipc.TypeToolUseEnd:
		return e.streaming(ev)
	case ipc.TypeMessageComplete:
		return e.messageEnd(ev)
	case ipc.TypeLLMCallFailed:
		return e.callFailed(ev)
	case ipc.TypeTurnCompleted:
		return e.turnCompleted(ev)
	case ipc.TypeTurnCancelled:
		delete(e.failed, turnOf(ev))
	case ipc.TypeToolCalled:
		return e.toolStart(ev)
	case ipc.TypeToolCompleted, ipc.TypeToolFailed:
		return e.toolEnd(ev)
	case ipc.TypeCompactionStarted:
		return e.frame(ev, "compaction:"+ev.SessionID, "", struct {
			Type string `json:"type"`
		}{"compaction_start"})
	case ipc.TypeCompactionComplete:
		return e.compactionEnd(ev)
	}
	return nil, nil
}

func (e *seed000) messageStart(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.MessageStart](ev)
	if err != nil {
		return nil, err
	}
	return e.start(ev, p.MessageID)
}

// start opens message id and returns its message_start frame.
func (e *seed000) start(ev ipc.Event, id string) ([][]byte, error) {
	e.open(id, ev.SessionID)
	return e.frame(ev, id, id, s000MessageEvent{Type: "message_start", Message: s000Message{Role: store.RoleAssistant, Content: []any{}}})
}

// streaming folds a streaming event into its message's content and sends
// a message_update when one is due (at once for a message.reset: the
// retry's content replaces the partial). A message whose start this
// encoder never saw is opened with a message_start first.
func (e *seed000) streaming(ev ipc.Event) ([][]byte, error) {
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
	if err := a.c.Apply(ev.Type, ev.Payload); err != nil {
		return nil, fmt.Errorf("ipc: event %s: %w", ev.ID.String(), err)
	}
	a.pending = true
	if ev.Type == ipc.TypeMessageReset {
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

// messageEnd is message.complete as message_end; an errored message's
// end waits for the llm.call_failed that follows it (callFailed), so it
// goes out once, with its errorMessage.
func (e *seed000) messageEnd(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.MessageComplete](ev)
	if err != nil {
		return nil, err
	}
	e.close(p.MessageID)
	var out [][]byte
	if e.errored != nil { // an errored end nothing explained (cannot happen in order): out as it is
		out, err = e.erroredEnd(ev, "")
		if err != nil {
			return nil, err
		}
	}
	if p.StopReason == stopReasonError {
		e.errored = &erroredEnd{id: p.MessageID, turn: turnOf(ev), content: ipc.AgentContent(p.FinalContent)}
		return out, nil
	}
	f, err := e.frame(ev, p.MessageID, p.MessageID, s000MessageEvent{Type: "message_end",
		Message: s000Message{Role: store.RoleAssistant, Content: ipc.AgentContent(p.FinalContent), StopReason: p.StopReason}})
	return append(out, f...), err
}

// erroredEnd sends the withheld message_end of the errored message with
// why as its errorMessage; its turn's failure is then shown.
func (e *seed000) erroredEnd(ev ipc.Event, why string) ([][]byte, error) {
	x := e.errored
	e.errored = nil
	if x.turn != "" {
		e.failed[x.turn] = true
	}
	return e.frame(ev, x.id, x.id, s000MessageEvent{Type: "message_end",
		Message: s000Message{Role: store.RoleAssistant, Content: x.content, StopReason: stopReasonError, ErrorMessage: why}})
}

// callFailed ends the errored message the failed call streamed.
func (e *seed000) callFailed(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.LLMCallFailed](ev)
	if err != nil {
		return nil, err
	}
	if e.errored == nil || (p.MessageID != "" && p.MessageID != e.errored.id) {
		return nil, nil
	}
	return e.erroredEnd(ev, p.Message)
}

// turnCompleted shows a failed turn that no errored message showed: a
// message of its own, "<turn id>:error", with no content, stopReason
// "error" and the turn's error — so a client's spinner stops and the
// failure is on screen.
func (e *seed000) turnCompleted(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.TurnCompleted](ev)
	if err != nil {
		return nil, err
	}
	turn := turnOf(ev)
	var out [][]byte
	if e.errored != nil {
		if out, err = e.erroredEnd(ev, p.Error); err != nil {
			return nil, err
		}
	}
	shown := e.failed[turn]
	delete(e.failed, turn)
	if p.Status != ipc.TurnStatusFailed || shown {
		return out, nil
	}
	id := failedTurnMessageID(turn)
	for _, typ := range []string{"message_start", "message_end"} {
		m := s000Message{Role: store.RoleAssistant, Content: []any{}}
		if typ == "message_end" {
			m.StopReason, m.ErrorMessage = stopReasonError, p.Error
		}
		f, err := e.frame(ev, id, id, s000MessageEvent{Type: typ, Message: m})
		if err != nil {
			return nil, err
		}
		out = append(out, f...)
	}
	return out, nil
}

// failedTurnMessageID is the id of the message that shows a failed turn
// which streamed no message (seed000).
func failedTurnMessageID(turn string) string { return turn + ":error" }

func (e *seed000) toolStart(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.ToolCalled](ev)
	if err != nil {
		return nil, err
	}
	stream := cmp.Or(p.MessageID, ev.SessionID)
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
func (e *seed000) toolEnd(ev ipc.Event) ([][]byte, error) {
	end := struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId"`
		Result     string `json:"result"`
		IsError    bool   `json:"isError"`
	}{Type: "tool_execution_end"}
	if ev.Type == ipc.TypeToolCompleted {
		p, err := ipc.PayloadAs[ipc.ToolCompleted](ev)
		if err != nil {
			return nil, err
		}
		end.ToolCallID, end.Result, end.IsError = p.ToolUseID, p.Output, p.IsError
	} else {
		p, err := ipc.PayloadAs[ipc.ToolFailed](ev)
		if err != nil {
			return nil, err
		}
		end.ToolCallID, end.Result, end.IsError = p.ToolUseID, p.Message, true
	}
	stream, ok := e.tools[end.ToolCallID]
	if !ok {
		stream = ev.SessionID
	}
	delete(e.tools, end.ToolCallID)
	return e.frame(ev, stream, "", end)
}

func (e *seed000) compactionEnd(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.CompactionCompleted](ev)
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

// stopReasonError is the canonical stop_reason of a message its call's
// failure ended (message.complete), and seed000's stopReason for it.
const stopReasonError = "error"

// seed000History is a page of stored messages as seed000 snapshots list
// them: AgentMessages, where a failed turn shows as live streaming showed
// it — its errored message carries the turn's error as errorMessage, and a
// failed turn that stored no errored message gets its "<turn id>:error"
// message after its last one.
func seed000History(ms []store.Message) []ipc.AgentMessage {
	failures := map[string]*store.TurnError{} // failed turns, by id
	errored := map[string]bool{}              // turns with an errored assistant message
	for _, m := range ms {
		if t := m.Turn; t != nil && t.Status == store.TurnFailed && t.Error != nil {
			failures[t.ID] = t.Error
		}
		if m.Role == store.RoleAssistant && m.Status == store.StatusError {
			errored[m.TurnID] = true
		}
	}
	out := make([]ipc.AgentMessage, 0, len(ms))
	for i, m := range ms {
		am := ipc.ToAgentMessage(m)
		if e := failures[m.TurnID]; e != nil && m.Role == store.RoleAssistant && m.Status == store.StatusError {
			am.ErrorMessage = e.Message
		}
		out = append(out, am)
		last := i+1 == len(ms) || ms[i+1].TurnID != m.TurnID
		if e := failures[m.TurnID]; e != nil && last && !errored[m.TurnID] {
			out = append(out, ipc.AgentMessage{ID: failedTurnMessageID(m.TurnID), Role: store.RoleAssistant, Content: []any{},
				Timestamp: m.CreatedAt.UnixMilli(), Status: store.StatusError, StopReason: stopReasonError, ErrorMessage: e.Message})
		}
	}
	return out
}
