package ipc

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"agenthub/store"
)

// seed002 is seed 002's message.start / message.chunk / message.end
// dialect, plus message.new for the user message that starts a turn (the
// seed keeps message.new for user messages). Each message's chunks are
// accumulated so message.end can say whether they add up to the final
// text ("validated", additive) and so a message that ends without
// completing (a crash, a cancel) still gets a message.end, marked failed.
// Every frame carries the additive "eventId".
type seed002 struct {
	open   map[string]*s002Stream
	order  []string      // open messages, oldest first
	shared *sharedFrames // message.chunk frames, encoded once for every subscriber
}

func (e *seed002) share(sf *sharedFrames) { e.shared = sf }

// s002Stream is one open message.
type s002Stream struct {
	session string
	text    strings.Builder
}

type s002Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type s002Frame struct {
	Type    string `json:"type"`
	Payload any    `json:"payload"`
	EventID string `json:"eventId,omitempty"`
}

type s002Start struct {
	SessionID string `json:"sessionId"`
	MessageID string `json:"messageId"`
	Role      string `json:"role"`
	Timestamp string `json:"timestamp"`
}

type s002Chunk struct {
	MessageID string      `json:"messageId"`
	Content   s002Content `json:"content"`
}

// s002End is message.end. IsComplete is true for a message that finished
// normally; Status says how it ended ("complete", "cancelled", "failed");
// Validated reports that the chunks sent add up to Content.
type s002End struct {
	MessageID  string      `json:"messageId"`
	Content    s002Content `json:"content"`
	IsComplete bool        `json:"isComplete"`
	Timestamp  string      `json:"timestamp"`
	Status     string      `json:"status"`
	Validated  bool        `json:"validated"`
}

// s002Record is a message of a seed002 snapshot (and of message.new).
type s002Record struct {
	SessionID  string      `json:"sessionId"`
	MessageID  string      `json:"messageId"`
	Role       string      `json:"role"` // "user" | "agent"
	Content    s002Content `json:"content"`
	Timestamp  string      `json:"timestamp"`
	IsComplete bool        `json:"isComplete"`
	Status     string      `json:"status"`
}

// seed 002 message statuses of message.end.
const (
	s002Complete  = "complete"
	s002Cancelled = "cancelled"
	s002Failed    = "failed"
)

func s002Time(t time.Time) string { return t.UTC().Format(TimeFormat) }

func s002Marshal(typ, eventID string, payload any) ([]byte, error) {
	b, err := json.Marshal(s002Frame{Type: typ, Payload: payload, EventID: eventID})
	if err != nil {
		return nil, fmt.Errorf("ipc: encode %s: %w", typ, err)
	}
	return b, nil
}

func (e *seed002) start(session, id, eventID string, at time.Time) ([]byte, error) {
	if _, ok := e.open[id]; !ok {
		e.open[id] = &s002Stream{session: session}
		e.order = append(e.order, id)
	}
	return s002Marshal("message.start", eventID, s002Start{SessionID: session, MessageID: id, Role: "agent", Timestamp: s002Time(at)})
}

func (e *seed002) close(id string) {
	delete(e.open, id)
	e.order = slices.DeleteFunc(e.order, func(s string) bool { return s == id })
}

func (e *seed002) Resume(r ResumePoint) ([][]byte, error) {
	m := r.Message
	if m == nil {
		return nil, nil
	}
	b, err := e.start(r.SessionID, m.ID, r.EventID, m.CreatedAt)
	if err != nil {
		return nil, err
	}
	out := [][]byte{b}
	text := store.TextOf(m.Content)
	if text == "" {
		return out, nil
	}
	e.open[m.ID].text.WriteString(text)
	b, err = s002Marshal("message.chunk", r.EventID, s002Chunk{MessageID: m.ID, Content: s002Content{"text", text}})
	if err != nil {
		return nil, err
	}
	return append(out, b), nil
}

func (e *seed002) Snapshot(frame []byte) ([]byte, error) {
	return dialectSnapshot(frame, func(ms []store.Message) []s002Record {
		var out []s002Record
		for _, m := range ms {
			role := "agent"
			switch m.Role {
			case store.RoleUser:
				role = "user"
			case store.RoleAssistant:
			default:
				continue // seed 002 streams no tool results: history shows what streaming showed
			}
			status := s002StatusOf(m.Status)
			out = append(out, s002Record{SessionID: m.SessionID, MessageID: m.ID, Role: role,
				Content: s002Content{"text", store.TextOf(m.Content)}, Timestamp: s002Time(m.CreatedAt),
				IsComplete: status == s002Complete, Status: status})
		}
		return out
	})
}

// s002StatusOf maps a stored message status to message.end's.
func s002StatusOf(status string) string {
	switch status {
	case store.StatusComplete, "":
		return s002Complete
	case store.StatusCancelled:
		return s002Cancelled
	}
	return s002Failed
}

func (e *seed002) Encode(ev Event) ([][]byte, error) {
	one := func(b []byte, err error) ([][]byte, error) {
		if err != nil {
			return nil, err
		}
		return [][]byte{b}, nil
	}
	switch ev.Type {
	case TypeTurnStarted:
		p, err := decodeAs[TurnStarted](ev)
		if err != nil {
			return nil, err
		}
		return one(s002Marshal("message.new", ev.ID.String(), s002Record{SessionID: ev.SessionID, MessageID: p.UserMessageID, Role: "user",
			Content: s002Content{"text", p.Input}, Timestamp: s002Time(ev.TS.Time), IsComplete: true, Status: s002Complete}))
	case TypeMessageStart:
		p, err := decodeAs[MessageStart](ev)
		if err != nil {
			return nil, err
		}
		return one(e.start(ev.SessionID, p.MessageID, ev.ID.String(), ev.TS.Time))
	case TypeTextDelta:
		return e.chunk(ev)
	case TypeMessageComplete:
		return e.end(ev)
	case TypeTurnCompleted, TypeTurnCancelled:
		return e.abandon(ev)
	}
	return nil, nil
}

// chunk is a text.delta as a message.chunk (after ensureOpen's start).
func (e *seed002) chunk(ev Event) ([][]byte, error) {
	p, err := decodeAs[TextDelta](ev)
	if err != nil {
		return nil, err
	}
	out, st, err := e.ensureOpen(ev, p.MessageID)
	if err != nil {
		return nil, err
	}
	st.text.WriteString(p.Text)
	b, err := e.shared.frame(DialectSeed002, ev.ID, func() ([]byte, error) {
		return s002Marshal("message.chunk", ev.ID.String(), s002Chunk{MessageID: p.MessageID, Content: s002Content{"text", p.Text}})
	})
	if err != nil {
		return nil, err
	}
	return append(out, b), nil
}

// ensureOpen returns message id's stream, opening it with a synthetic
// message.start (returned) when this encoder never saw its start — a
// worker's message, say — so a seed client does not drop what follows.
func (e *seed002) ensureOpen(ev Event, id string) ([][]byte, *s002Stream, error) {
	if st, ok := e.open[id]; ok {
		return nil, st, nil
	}
	b, err := e.start(ev.SessionID, id, ev.ID.String(), ev.TS.Time)
	if err != nil {
		return nil, nil, err
	}
	return [][]byte{b}, e.open[id], nil
}

// end is message.complete as message.end with the final text (the chunks'
// text when the message has no text block, e.g. tool calls only).
func (e *seed002) end(ev Event) ([][]byte, error) {
	p, err := decodeAs[MessageComplete](ev)
	if err != nil {
		return nil, err
	}
	out, st, err := e.ensureOpen(ev, p.MessageID)
	if err != nil {
		return nil, err
	}
	sent := st.text.String()
	full := store.TextOf(p.FinalContent)
	e.close(p.MessageID)
	status := s002Complete
	switch p.StopReason {
	case "cancelled":
		status = s002Cancelled
	case "error":
		status = s002Failed
	}
	b, err := s002Marshal("message.end", ev.ID.String(), s002End{MessageID: p.MessageID, Content: s002Content{"text", full},
		IsComplete: status == s002Complete, Timestamp: s002Time(ev.TS.Time), Status: status, Validated: sent == full})
	if err != nil {
		return nil, err
	}
	return append(out, b), nil
}

// abandon ends the messages of ev's session still open when its turn ends
// without their message.complete (a crash, a cancel before the provider
// answered): message.end with what was streamed, failed or cancelled.
func (e *seed002) abandon(ev Event) ([][]byte, error) {
	status := s002Failed
	if ev.Type == TypeTurnCancelled {
		if p, err := decodeAs[TurnCancelled](ev); err == nil && p.Reason != "interrupted" {
			status = s002Cancelled
		}
	}
	var out [][]byte
	for _, id := range slices.Clone(e.order) {
		st := e.open[id]
		if st.session != ev.SessionID {
			continue
		}
		text := st.text.String()
		e.close(id)
		b, err := s002Marshal("message.end", ev.ID.String(), s002End{MessageID: id, Content: s002Content{"text", text},
			IsComplete: false, Timestamp: s002Time(ev.TS.Time), Status: status, Validated: true})
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
