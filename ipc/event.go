// Package ipc is Agent Hub's protocol core: the event envelope and catalog,
// the single ordered log writer, subscriptions with filters and bounded
// queues, snapshot/replay, frames, dialect encoders and the transports.
// It never imports app; app publishes into it and registers RPC handlers.
package ipc

import (
	"encoding/json"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// TimeFormat is the envelope's timestamp format: RFC 3339 with milliseconds, UTC.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Event is the canonical envelope of every event in both families
// (DESIGN.md §3). ID is a bare ULID assigned by the log writer; ids are
// strictly increasing in log order.
type Event struct {
	ID        ulid.ULID       `json:"id"`
	Type      string          `json:"type"`
	SessionID string          `json:"session_id"`
	TurnID    *string         `json:"turn_id"`
	TS        Timestamp       `json:"ts"`
	Actor     string          `json:"actor"`
	Payload   json.RawMessage `json:"payload"`
	// decoded is Payload as the draft's typed value, when the publisher
	// had it (decodeAs then skips the JSON decode); never serialised.
	decoded any
}

// Timestamp marshals as RFC 3339 with milliseconds in UTC.
type Timestamp struct{ time.Time }

// MarshalJSON implements json.Marshaler.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(TimeFormat) + `"`), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}

// Draft is an event before the log writer gives it an id and timestamp.
// Ops are store mutations committed in the same bbolt transaction as the
// event, so state read in one transaction (a snapshot) is exactly the state
// as of the newest event it can see.
type Draft struct {
	Type      string
	SessionID string
	TurnID    string // "" encodes as null
	Actor     string
	Payload   any // marshalled with encoding/json; nil encodes as {}
	Ops       []store.Op
}
