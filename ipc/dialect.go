package ipc

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"agenthub/store"
)

// Dialects a subscription may ask for with the additive subscribe field
// "dialect" (DESIGN.md §1): the canonical envelope, or one seed's wire shape
// produced from the canonical events by an Encoder.
const (
	DialectCanonical = "canonical"
	DialectSeed000   = "seed000" // StreamPayload {streamId, agentId, event}
	DialectSeed002   = "seed002" // {type: message.start|message.chunk|message.end, payload}
	DialectSeed004   = "seed004" // ChatAgentResponse {response, tool_calls, citations}
)

// Dialects lists every accepted dialect name.
var Dialects = []string{DialectCanonical, DialectSeed000, DialectSeed002, DialectSeed004}

// The seed000 message_update throttle. An update carries the whole
// accumulated content (seed 000), so one per delta is quadratic, and even
// one per UpdateInterval is quadratic in a long answer's duration. So an
// update goes out at most once per UpdateInterval of event time (the
// events' ts), and once the content passed UpdateGrowthFloor bytes only
// when it grew by UpdateGrowth since the last update; message_end carries
// the final content. The sizes of the updates above the floor then form a
// geometric series: a message of n bytes costs at most about
// n·(1+1/UpdateGrowth) bytes of updates above the floor, plus at most
// UpdateGrowthFloor per UpdateInterval below it — linear in n. Deltas
// withheld before a pause show up with the next event of the subscription
// that finds the update due, or with message_end.
const (
	UpdateInterval    = 50 * time.Millisecond
	UpdateGrowth      = 0.25
	UpdateGrowthFloor = 16 << 10
)

// Encoder turns canonical events into one dialect's frames. It is stateful
// (accumulators per message and tool call) but pure given the event
// sequence: the same events in the same order give the same frames. An
// event with no mapping in the dialect gives no frames. Not safe for
// concurrent use; a subscription owns one.
type Encoder interface {
	// Encode returns the frames (complete JSON texts) for ev, in order.
	Encode(ev Event) ([][]byte, error)
	// Seed primes the accumulators with an in-flight message (the partial
	// message of a snapshot) so later updates continue from its content.
	Seed(m store.Message)
}

// NewEncoder returns the encoder for a dialect; nil (no encoding) for
// "canonical" or "". An unknown name is a *FilterError naming it (the
// subscribe_error code is invalid_filter).
func NewEncoder(dialect string) (Encoder, error) {
	switch dialect {
	case "", DialectCanonical:
		return nil, nil
	case DialectSeed000:
		return &seed000{msgs: map[string]*accum{}, tools: map[string]string{}}, nil
	case DialectSeed002:
		return &seed002{text: map[string]*strings.Builder{}}, nil
	case DialectSeed004:
		return &seed004{calls: map[string]callInfo{}}, nil
	}
	return nil, &FilterError{Offending: truncate(dialect),
		Message: fmt.Sprintf("dialect: unknown dialect %q (want one of %s)", truncate(dialect), strings.Join(Dialects, ", "))}
}

func marshalFrame(v any) ([][]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("ipc: encode dialect frame: %w", err)
	}
	return [][]byte{b}, nil
}

// decodeAs decodes ev's payload as a T; a malformed payload is an error
// naming the event.
func decodeAs[T any](ev Event) (T, error) {
	var p T
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		return p, fmt.Errorf("ipc: %s event %s: decode payload: %w", ev.Type, ev.ID, err)
	}
	return p, nil
}

// decodePayload decodes the payload of an event of type typ as a T.
func decodePayload[T any](typ string, payload json.RawMessage) (T, error) {
	var p T
	if err := json.Unmarshal(payload, &p); err != nil {
		return p, fmt.Errorf("%s: decode payload: %w", typ, err)
	}
	return p, nil
}

// ---- seed000: StreamPayload ----

// accum is one streamed message's accumulated content.
type accum struct {
	c          *contentBuilder
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

type seed000 struct {
	msgs  map[string]*accum
	order []string          // open messages, oldest first (deterministic flushes)
	tools map[string]string // running tool call → its message (the streamId)
}

type streamPayload struct {
	StreamID string `json:"streamId"`
	AgentID  string `json:"agentId"`
	Event    any    `json:"event"`
}

type s000Message struct {
	Role       string               `json:"role"`
	Content    []store.ContentBlock `json:"content"`
	StopReason string               `json:"stopReason,omitempty"`
}

func (e *seed000) Seed(m store.Message) {
	a := e.open(m.ID)
	a.c = newContentBuilder(m.Content)
}

func (e *seed000) open(id string) *accum {
	a, ok := e.msgs[id]
	if !ok {
		a = &accum{c: newContentBuilder(nil)}
		e.msgs[id] = a
		e.order = append(e.order, id)
	}
	return a
}

func (e *seed000) close(id string) {
	delete(e.msgs, id)
	e.order = slices.DeleteFunc(e.order, func(s string) bool { return s == id })
}

func (e *seed000) update(ev Event, id string, a *accum) ([]byte, error) {
	a.lastUpdate, a.lastSize, a.pending = ev.TS.Time, a.c.size, false
	b, err := json.Marshal(streamPayload{StreamID: id, AgentID: ev.SessionID,
		Event: s000MessageEvent{"message_update", s000Message{Role: store.RoleAssistant, Content: a.c.content()}}})
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

// s000MessageEvent is a message_start, message_update or message_end.
type s000MessageEvent struct {
	Type    string      `json:"type"`
	Message s000Message `json:"message"`
}

// s000Frame is one StreamPayload frame of ev's session.
func s000Frame(ev Event, stream string, event any) ([][]byte, error) {
	return marshalFrame(streamPayload{StreamID: stream, AgentID: ev.SessionID, Event: event})
}

func (e *seed000) encode(ev Event) ([][]byte, error) {
	switch ev.Type {
	case TypeMessageStart:
		return e.messageStart(ev)
	case TypeTextDelta, TypeThinkingDelta, TypeToolUseStart, TypeToolUseInputDelta, TypeToolUseEnd:
		return e.streaming(ev)
	case TypeMessageComplete:
		return e.messageEnd(ev)
	case TypeToolCalled:
		return e.toolStart(ev)
	case TypeToolCompleted, TypeToolFailed:
		return e.toolEnd(ev)
	case TypeCompactionStarted:
		return s000Frame(ev, "compaction:"+ev.SessionID, struct {
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
	e.open(p.MessageID)
	return s000Frame(ev, p.MessageID, s000MessageEvent{"message_start", s000Message{Role: store.RoleAssistant, Content: []store.ContentBlock{}}})
}

// streaming folds a streaming event into its message's content and sends
// a message_update when one is due.
func (e *seed000) streaming(ev Event) ([][]byte, error) {
	id, err := streamingMessageID(ev)
	if err != nil {
		return nil, err
	}
	a := e.open(id)
	if err := a.c.apply(ev.Type, ev.Payload); err != nil {
		return nil, fmt.Errorf("ipc: event %s: %w", ev.ID, err)
	}
	a.pending = true
	if !a.due(ev.TS.Time) {
		return nil, nil
	}
	b, err := e.update(ev, id, a)
	if err != nil {
		return nil, err
	}
	return [][]byte{b}, nil
}

// streamingMessageID decodes a streaming event's payload as its type and
// returns its message id (a malformed payload is an error).
func streamingMessageID(ev Event) (string, error) {
	switch ev.Type {
	case TypeTextDelta:
		p, err := decodeAs[TextDelta](ev)
		return p.MessageID, err
	case TypeThinkingDelta:
		p, err := decodeAs[ThinkingDelta](ev)
		return p.MessageID, err
	case TypeToolUseStart:
		p, err := decodeAs[ToolUseStart](ev)
		return p.MessageID, err
	case TypeToolUseInputDelta:
		p, err := decodeAs[ToolUseInputDelta](ev)
		return p.MessageID, err
	case TypeToolUseEnd:
		p, err := decodeAs[ToolUseEnd](ev)
		return p.MessageID, err
	}
	return "", fmt.Errorf("ipc: %s event %s is not a streaming event", ev.Type, ev.ID)
}

func (e *seed000) messageEnd(ev Event) ([][]byte, error) {
	p, err := decodeAs[MessageComplete](ev)
	if err != nil {
		return nil, err
	}
	e.close(p.MessageID)
	content := p.FinalContent
	if content == nil {
		content = []store.ContentBlock{}
	}
	return s000Frame(ev, p.MessageID, s000MessageEvent{"message_end", s000Message{Role: store.RoleAssistant, Content: content, StopReason: p.StopReason}})
}

func (e *seed000) toolStart(ev Event) ([][]byte, error) {
	p, err := decodeAs[ToolCalled](ev)
	if err != nil {
		return nil, err
	}
	e.tools[p.ToolUseID] = p.MessageID
	args := p.Input
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return s000Frame(ev, streamOf(p.MessageID, ev), struct {
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
	msg := e.tools[end.ToolCallID]
	delete(e.tools, end.ToolCallID)
	return s000Frame(ev, streamOf(msg, ev), end)
}

func (e *seed000) compactionEnd(ev Event) ([][]byte, error) {
	p, err := decodeAs[CompactionCompleted](ev)
	if err != nil {
		return nil, err
	}
	return s000Frame(ev, "compaction:"+ev.SessionID, struct {
		Type          string `json:"type"`
		Removed       int    `json:"removed"`
		Kept          int    `json:"kept"`
		TokensRemoved int64  `json:"tokensRemoved"`
		TokensKept    int64  `json:"tokensKept"`
		Reason        string `json:"reason"`
	}{"compaction_end", p.Removed, p.Kept, p.TokensRemoved, p.TokensKept, p.Reason})
}

// streamOf is a seed000 streamId: the message id when known, else the turn
// id, else the session id.
func streamOf(messageID string, ev Event) string {
	switch {
	case messageID != "":
		return messageID
	case ev.TurnID != nil && *ev.TurnID != "":
		return *ev.TurnID
	}
	return ev.SessionID
}
