package ipc

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// Dialects a subscription may ask for with the additive subscribe field
// "dialect" (docs/protocol.md "Dialects"): the canonical envelope, or one
// seed's wire shape produced from the canonical events by an Encoder.
const (
	DialectCanonical = "canonical"
	DialectSeed000   = "seed000" // StreamPayload {streamId, agentId, event}
	DialectSeed002   = "seed002" // {type: message.new|message.start|message.chunk|message.end, payload}
	DialectSeed004   = "seed004" // ChatAgentResponse {message, response, tool_calls, citations, thinking}
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
// (accumulators per message and tool call) but pure given its input
// sequence: the same calls in the same order give the same frames. An
// event with no mapping in the dialect gives no frames. Every frame made
// from an event carries that event's id as the additive "eventId", so a
// client resumes from it as from a canonical cursor. Not safe for
// concurrent use; a subscription owns one.
type Encoder interface {
	// Encode returns the frames (complete JSON texts) for ev, in order.
	Encode(ev Event) ([][]byte, error)
	// Resume is called once, before any Encode, when the subscription
	// starts after a cursor or with a snapshot. It primes the accumulators
	// with what was in flight at that point and returns the frames that
	// reopen it for the client — what that takes is the dialect's (an open
	// message's start frame plus its content so far, nothing for a message
	// the client holds, or the running turn replayed) — so the live stream
	// that follows continues it.
	Resume(r ResumePoint) ([][]byte, error)
	// Snapshot re-encodes a canonical snapshot frame in the dialect: the
	// same envelope, its messages in the dialect's history shape, without
	// the in-flight partial message (Resume reopens it).
	Snapshot(frame []byte) ([]byte, error)
}

// ResumePoint is what was in flight in a session at the point a
// subscription resumes from (its cursor, or the snapshot's head).
type ResumePoint struct {
	// EventID is the id the stream resumes after ("" for an empty log);
	// synthetic frames carry it as their eventId.
	EventID string
	// FromCursor is true when the client resumes from its own cursor: it
	// already holds what it received up to EventID (the start of an open
	// message included), so an encoder continues that message rather than
	// opening it again. False for a snapshot subscription, whose client
	// holds nothing in flight.
	FromCursor bool
	// SessionID is the subscribed session.
	SessionID string
	// TurnID is the turn running at that point ("" when idle).
	TurnID string
	// Message is the assistant message being streamed, with its content so
	// far; nil when none is open.
	Message *store.Message
	// Tools are the tool calls started and not yet finished, oldest first.
	Tools []OpenTool
	// Known are the ids of the messages the client says it holds (the
	// subscribe frame's known_message_ids); nil when it said nothing.
	Known map[string]bool
	// TurnEvents, when set, walks the events of the turn running at the
	// resume point — the session's and, for a subscription that includes
	// them, its workers' — from its turn.started through EventID, in log
	// order, as the subscription's filter passes them. It may be called
	// only during Resume; nil when no turn was running.
	TurnEvents func(fn func(Event) error) error

	turnStart ulid.ULID // the running turn's turn.started (zero: none)

	// FinalFailure is the running turn's llm.call_failed that ended it (not
	// retried, not a cancel), when that came before the resume point: the
	// turn is failing and only its turn.completed is still to come.
	FinalFailure *LLMCallFailed
}

// OpenTool is a tool call in flight at a resume point.
type OpenTool struct {
	ID         string
	Name       string
	MessageID  string // the assistant message that asked for it
	Delegation bool   // delegate.started was seen for it
	Streamed   bool   // tool.output_delta was seen for it
}

// NewEncoder returns the encoder for a dialect of a subscription to
// sessionID; nil (no encoding) for "canonical" or "". An unknown name is a
// *FilterError naming it (the subscribe_error code is invalid_filter).
func NewEncoder(dialect, sessionID string) (Encoder, error) {
	switch dialect {
	case "", DialectCanonical:
		return nil, nil
	case DialectSeed000:
		return &seed000{session: sessionID, msgs: map[string]*accum{}, tools: map[string]string{}, failed: map[string]bool{}}, nil
	case DialectSeed002:
		return &seed002{open: map[string]*s002Stream{}, errored: map[string]bool{}}, nil
	case DialectSeed004:
		return newSeed004(sessionID), nil
	}
	return nil, &FilterError{Offending: truncate(dialect),
		Message: fmt.Sprintf("dialect: unknown dialect %q (want one of %s)", truncate(dialect), strings.Join(Dialects, ", "))}
}

// dialectFilter is a subscription's filter as its dialect needs it: a
// seed004 answer shows a worker's tool calls as cards of their own (as
// Potpie's stream carries a subagent's), so a seed004 subscription
// includes the worker sessions (its subscribe_ack says so).
func dialectFilter(dialect string, f Filter) Filter {
	if dialect == DialectSeed004 {
		f.IncludeWorkerSessions = true
	}
	return f
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
	if v, ok := ev.decoded.(T); ok { // the draft's own value: no decode
		return v, nil
	}
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

// canonicalSnapshot is a decoded canonical snapshot frame (see
// Bus.snapshot); dialects re-encode its messages.
type canonicalSnapshot struct {
	Type              string          `json:"type"`
	Session           json.RawMessage `json:"session"`
	Messages          []store.Message `json:"messages"`
	SnapshotAtEventID *string         `json:"snapshot_at_event_id"`
	Epoch             string          `json:"epoch"`
}

// dialectSnapshot decodes a canonical snapshot frame, drops the in-flight
// partial message and re-encodes the frame with the messages convert
// gives.
func dialectSnapshot[M any](frame []byte, convert func([]store.Message) []M) ([]byte, error) {
	var s canonicalSnapshot
	if err := json.Unmarshal(frame, &s); err != nil {
		return nil, fmt.Errorf("ipc: dialect snapshot: decode: %w", err)
	}
	msgs := s.Messages[:0]
	for _, m := range s.Messages {
		if m.Status != StatusStreaming {
			msgs = append(msgs, m)
		}
	}
	out := convert(msgs)
	if out == nil {
		out = []M{}
	}
	b, err := json.Marshal(struct {
		Type              string          `json:"type"`
		Session           json.RawMessage `json:"session"`
		Messages          []M             `json:"messages"`
		SnapshotAtEventID *string         `json:"snapshot_at_event_id"`
		Epoch             string          `json:"epoch"`
	}{s.Type, s.Session, out, s.SnapshotAtEventID, s.Epoch})
	if err != nil {
		return nil, fmt.Errorf("ipc: dialect snapshot: encode: %w", err)
	}
	return b, nil
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
	case TypeMessageReset:
		p, err := decodeAs[MessageReset](ev)
		return p.MessageID, err
	}
	return "", fmt.Errorf("ipc: %s event %s is not a streaming event", ev.Type, ev.ID)
}

// turnOf is an event's turn id, "" for none.
func turnOf(ev Event) string {
	if ev.TurnID != nil {
		return *ev.TurnID
	}
	return ""
}
