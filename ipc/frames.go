package ipc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MaxFrameBytes is the largest client frame a transport accepts (DESIGN.md
// §3: larger frames get frame_too_large and the connection closes 1009).
const MaxFrameBytes = 1 << 20

// Client frame types.
const (
	FrameSubscribe = "subscribe"
	FrameCancel    = "cancel"
	FramePing      = "ping"
	FramePong      = "pong"
	FrameRequest   = "request"
)

// Error codes of error frames and subscribe_error frames.
const (
	CodeInvalidFrame     = "invalid_frame"
	CodeUnknownFrameType = "unknown_frame_type"
	CodeFrameTooLarge    = "frame_too_large"
	CodeSessionNotFound  = "session_not_found"
	CodeCursorExpired    = "cursor_expired"
	CodeReplayTooLarge   = "replay_too_large"
	CodeInvalidFilter    = "invalid_filter"
	CodeClientTooSlow    = "client_too_slow"
)

// SubscribeFrame is the client's subscribe (seed 001 §4.3). Filter is kept
// raw (object or preset string) and parsed by ParseFilter.
type SubscribeFrame struct {
	Filter   json.RawMessage `json:"filter"`
	Since    *string         `json:"since"`
	Snapshot bool            `json:"snapshot"`
	// Dialect selects the wire shape of event frames (additive): "" or
	// "canonical", "seed000", "seed002", "seed004". See NewEncoder.
	Dialect string `json:"dialect,omitempty"`
	// KnownMessageIDs (additive) are the ids of the messages the client
	// already holds, e.g. what a reloaded page read from the history: a
	// dialect resume does not open them again (docs/protocol.md §7).
	KnownMessageIDs []string `json:"known_message_ids,omitempty"`
}

// CancelFrame asks to cancel a turn.
type CancelFrame struct {
	TurnID string `json:"turn_id"`
	Reason string `json:"reason,omitempty"`
}

// RequestFrame is a seed 003 RPC request.
type RequestFrame struct {
	RequestID string          `json:"requestId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params,omitempty"`
}

// ClientFrame is one decoded client→server frame; exactly the field matching
// Type is set (Nonce for ping/pong).
type ClientFrame struct {
	Type      string
	Subscribe *SubscribeFrame
	Cancel    *CancelFrame
	Request   *RequestFrame
	Nonce     string
}

// FrameError is a rejected client frame; Code is invalid_frame,
// unknown_frame_type or frame_too_large. Frame() is the error frame to send.
type FrameError struct {
	Code    string
	Message string
}

// Error implements error.
func (e *FrameError) Error() string { return e.Code + ": " + e.Message }

// Frame returns the {"type":"error",...} frame for e.
func (e *FrameError) Frame() []byte { return errorFrame("error", e.Code, e.Message) }

// DecodeClientFrame decodes one client frame. It never panics; a frame over
// MaxFrameBytes, malformed JSON, a missing or non-string type, or a field of
// the wrong JSON type is a *FrameError with code frame_too_large or
// invalid_frame; an unknown type is unknown_frame_type. Filter contents are
// validated later, by ParseFilter (invalid_filter).
func DecodeClientFrame(data []byte) (ClientFrame, error) {
	if len(data) > MaxFrameBytes {
		return ClientFrame{}, &FrameError{CodeFrameTooLarge, fmt.Sprintf("frame of %d bytes exceeds %d", len(data), MaxFrameBytes)}
	}
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return ClientFrame{}, &FrameError{CodeInvalidFrame, "not a JSON object with a string type: " + err.Error()}
	}
	if head.Type == nil {
		return ClientFrame{}, &FrameError{CodeInvalidFrame, "frame has no type"}
	}
	f := ClientFrame{Type: *head.Type}
	bad := func(err error) (ClientFrame, error) {
		return ClientFrame{}, &FrameError{CodeInvalidFrame, fmt.Sprintf("%s frame: %v", f.Type, err)}
	}
	switch f.Type {
	case FrameSubscribe:
		var s SubscribeFrame
		if err := json.Unmarshal(data, &s); err != nil {
			return bad(err)
		}
		if s.Filter != nil && bytes.Equal(bytes.TrimSpace(s.Filter), []byte("null")) {
			s.Filter = nil
		}
		f.Subscribe = &s
	case FrameCancel:
		var c CancelFrame
		if err := json.Unmarshal(data, &c); err != nil {
			return bad(err)
		}
		if c.TurnID == "" {
			return bad(fmt.Errorf("turn_id is required"))
		}
		f.Cancel = &c
	case FramePing, FramePong:
		var p struct {
			Nonce string `json:"nonce"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return bad(err)
		}
		f.Nonce = p.Nonce
	case FrameRequest:
		var r RequestFrame
		if err := json.Unmarshal(data, &r); err != nil {
			return bad(err)
		}
		if r.RequestID == "" || r.Method == "" {
			return bad(fmt.Errorf("requestId and method are required"))
		}
		f.Request = &r
	default:
		return ClientFrame{}, &FrameError{CodeUnknownFrameType, fmt.Sprintf("unknown frame type %q", truncate(f.Type))}
	}
	return f, nil
}

// SubscribeAckFrame is the subscribe_ack frame (seed 001 §4.2) plus the
// additive epoch and dialect fields.
type SubscribeAckFrame struct {
	Type             string  `json:"type"` // "subscribe_ack"
	ResolvedFilter   Filter  `json:"resolved_filter"`
	Since            *string `json:"since"`
	Snapshot         bool    `json:"snapshot"`
	ReplayEventCount int     `json:"replay_event_count"`
	Epoch            string  `json:"epoch"`
	Dialect          string  `json:"dialect"` // additive: the resolved dialect
}

// JSON returns the frame's bytes.
func (a SubscribeAckFrame) JSON() []byte {
	b, _ := json.Marshal(a) // cannot fail: plain strings and bools
	return b
}

// SubscribeError is a refused subscription; Code is one of session_not_found,
// cursor_expired, replay_too_large, invalid_filter, or client_too_slow when a
// live subscription is closed for overflowing its queue.
type SubscribeError struct {
	Code    string
	Message string
}

// Error implements error.
func (e *SubscribeError) Error() string { return e.Code + ": " + e.Message }

// Frame returns the subscribe_error frame (for client_too_slow: the JSON close
// reason {"code","message"} a transport sends with close status 1008).
func (e *SubscribeError) Frame() []byte {
	if e.Code == CodeClientTooSlow {
		b, _ := json.Marshal(map[string]string{"code": e.Code, "message": e.Message})
		return b
	}
	return errorFrame("subscribe_error", e.Code, e.Message)
}

func errorFrame(typ, code, msg string) []byte {
	b, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}{typ, code, msg})
	return b
}

// PingFrame returns {"type":"ping","nonce":nonce}.
func PingFrame(nonce string) []byte { return nonceFrame(FramePing, nonce) }

// PongFrame returns {"type":"pong","nonce":nonce}.
func PongFrame(nonce string) []byte { return nonceFrame(FramePong, nonce) }

func nonceFrame(typ, nonce string) []byte {
	b, _ := json.Marshal(struct {
		Type  string `json:"type"`
		Nonce string `json:"nonce"`
	}{typ, nonce})
	return b
}

// OutFrame is one server→client frame. EventID is the event's id for event
// frames ("" otherwise); Data is the complete JSON frame, shared between
// subscribers — never modify it.
type OutFrame struct {
	EventID string
	Data    []byte
	ev      *Event // the event decoded, when the publisher had it for a dialect subscriber
}

// eventFrame wraps envelope JSON as {"type":"event","event":...}.
func eventFrame(envelope []byte) []byte {
	const pre, post = `{"type":"event","event":`, `}`
	b := make([]byte, 0, len(pre)+len(envelope)+len(post))
	b = append(b, pre...)
	b = append(b, envelope...)
	return append(b, post...)
}
