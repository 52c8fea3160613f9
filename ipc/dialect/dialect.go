// Package dialect is the seed dialects: encoders from the canonical
// events to the wire shapes of the seed projects' clients — seed000's
// StreamPayload, seed002's message.* frames, seed004's ChatAgentResponse
// (docs/protocol.md §7) — and those dialects' history shapes (History,
// GET /sessions/{id}/messages?dialect=). The bus knows them only as
// ipc.Encoder: it is given a Set in ipc.Options.Dialects, and a
// subscription that names a dialect gets one encoder of its own from it.
// Frames that depend on the event alone are encoded once per dialect and
// shared by the Set's encoders (sharedframes.go).
package dialect

import (
	"encoding/json"
	"fmt"
	"time"

	"agenthub/ipc"
	"agenthub/store"
)

// The seed dialects a subscription may ask for with the additive subscribe
// field "dialect" (docs/protocol.md "Dialects"), besides the canonical
// envelope: one seed's wire shape made from the canonical events by an
// Encoder.
const (
	Seed000 = "seed000" // StreamPayload {streamId, agentId, event}
	Seed002 = "seed002" // {type: message.new|message.start|message.chunk|message.end, payload}
	Seed004 = "seed004" // ChatAgentResponse {message, response, tool_calls, citations, thinking}
)

// Names lists every dialect name a Set accepts, the canonical one first.
var Names = []string{ipc.DialectCanonical, Seed000, Seed002, Seed004}

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

// The seams the bus knows the dialects by.
var (
	_ ipc.Dialects              = (*Set)(nil)
	_ ipc.Encoder               = (*seed000)(nil)
	_ ipc.Encoder               = (*seed002)(nil)
	_ ipc.WorkerSessionsEncoder = (*seed004)(nil)
	_ ipc.StoreSnapshotEncoder  = (*seed004)(nil)
)

// Set makes the seed dialects' encoders (an ipc.Dialects: the bus is given
// one in Options.Dialects). The encoders of one Set share the frames that
// depend on the event alone (sharedframes.go), so each is encoded once per
// dialect however many subscribers ask. Safe for concurrent use.
type Set struct {
	shared *sharedFrames
}

// New returns a Set of the seed dialects (seed000, seed002, seed004).
func New() *Set { return &Set{shared: newSharedFrames()} }

// NewEncoder implements Names: the encoder of a seed dialect for a
// subscription to sessionID. An unknown name is a *FilterError naming it
// (the subscribe_error code is invalid_filter).
func (s *Set) NewEncoder(dialect, sessionID string) (ipc.Encoder, error) {
	switch dialect {
	case Seed000:
		return &seed000{session: sessionID, msgs: map[string]*accum{}, tools: map[string]string{}, failed: map[string]bool{}}, nil
	case Seed002:
		return &seed002{open: map[string]*s002Stream{}, errored: map[string]bool{}, shared: s.shared}, nil
	case Seed004:
		e := newSeed004(sessionID)
		e.shared = s.shared
		return e, nil
	}
	return nil, ipc.UnknownDialect(dialect, Names)
}

func marshalFrame(v any) ([][]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("ipc: encode dialect frame: %w", err)
	}
	return [][]byte{b}, nil
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
		if m.Status != ipc.StatusStreaming {
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
func streamingMessageID(ev ipc.Event) (string, error) {
	switch ev.Type {
	case ipc.TypeTextDelta:
		p, err := ipc.PayloadAs[ipc.TextDelta](ev)
		return p.MessageID, err
	case ipc.TypeThinkingDelta:
		p, err := ipc.PayloadAs[ipc.ThinkingDelta](ev)
		return p.MessageID, err
	case ipc.TypeToolUseStart:
		p, err := ipc.PayloadAs[ipc.ToolUseStart](ev)
		return p.MessageID, err
	case ipc.TypeToolUseInputDelta:
		p, err := ipc.PayloadAs[ipc.ToolUseInputDelta](ev)
		return p.MessageID, err
	case ipc.TypeToolUseEnd:
		p, err := ipc.PayloadAs[ipc.ToolUseEnd](ev)
		return p.MessageID, err
	case ipc.TypeMessageReset:
		p, err := ipc.PayloadAs[ipc.MessageReset](ev)
		return p.MessageID, err
	}
	return "", fmt.Errorf("ipc: %s event %s is not a streaming event", ev.Type, ev.ID)
}

// turnOf is an event's turn id, "" for none.
func turnOf(ev ipc.Event) string {
	if ev.TurnID != nil {
		return *ev.TurnID
	}
	return ""
}
