package ipc

import (
	"encoding/json"
	"fmt"
	"strings"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// DialectCanonical is the canonical envelope (docs/protocol.md): a
// subscription that names no dialect gets it, encoded once by the writer.
// Any other dialect (the subscribe frame's additive "dialect") is an
// Encoder made by the bus's Dialects (ipc/dialect: seed000, seed002,
// seed004).
const DialectCanonical = "canonical"

// Dialects makes the Encoder of a dialect a subscription asks for. The
// bus is given one in Options.Dialects (ipc/dialect.New()); without one a
// subscription may ask only for the canonical envelope.
type Dialects interface {
	// NewEncoder returns the encoder of dialect for a subscription to
	// sessionID. An unknown name is a *FilterError naming it (the
	// subscribe_error code is invalid_filter).
	NewEncoder(dialect, sessionID string) (Encoder, error)
}

// UnknownDialect is the error for a subscription asking for a dialect not
// among known: a *FilterError (subscribe_error invalid_filter) naming it.
func UnknownDialect(name string, known []string) *FilterError {
	return &FilterError{Offending: truncate(name),
		Message: fmt.Sprintf("dialect: unknown dialect %q (want one of %s)", truncate(name), strings.Join(known, ", "))}
}

// WorkerSessionsEncoder is an Encoder whose dialect shows the worker
// sessions' events with their parent's (seed004 shows a worker's tool
// calls as cards of the answer): its subscription includes them, and its
// subscribe_ack says so.
type WorkerSessionsEncoder interface {
	Encoder
	IncludesWorkerSessions() bool
}

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

// PayloadAs decodes ev's payload as a T — for a live event the draft's own
// value when it is a T (no JSON decode). A malformed payload is an error
// naming the event.
func PayloadAs[T any](ev Event) (T, error) {
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

// StoreSnapshotEncoder is an Encoder whose history shape reads more of the
// store than the canonical snapshot holds (seed004: the worker sessions'
// tool calls); a subscription's snapshot uses SnapshotIn, in the
// subscription's read transaction, instead of Snapshot.
type StoreSnapshotEncoder interface {
	Encoder
	SnapshotIn(tx StoreView, frame []byte) ([]byte, error)
}
