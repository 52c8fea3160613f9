package dialect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// seed002 is seed 002's message.start / message.chunk / message.end
// dialect, plus message.new for the user message that starts a turn (the
// seed keeps message.new for user messages), shaped as the client of the
// project that wrote the document (indie-dev-portal's AgentChatContext)
// handles it. Each message's chunks are accumulated so message.end can
// say whether they add up to the final text ("validated", additive) and
// so a message that ends without completing still gets a message.end: a
// cancelled or interrupted one with a visible note after its text. A
// failed or broken stream is that client's "error" frame (code
// STREAMING_ERROR, details {sessionId, messageId}): it removes the partial
// message and stops the typing indicator. Every frame carries the
// additive "eventId".
type seed002 struct {
	open    map[string]*s002Stream
	order   []string        // open messages, oldest first
	errored map[string]bool // messages of the running turn a STREAMING_ERROR removed ("" : the turn's)
	shared  *sharedFrames   // message.chunk frames, encoded once for every subscriber
}

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
	s002Complete    = "complete"
	s002Cancelled   = "cancelled"
	s002Interrupted = "interrupted"
	s002Failed      = "failed"
	s002Retrying    = "retrying" // message.reset: the text is emptied, the retry's chunks follow
)

// s002Noted is a message's text as seed002 shows it: a cancelled,
// interrupted or failed message ends with a note saying so, so a client
// that shows message.end's text never shows it as an ordinary answer.
func s002Noted(text, status string) string {
	var note string
	switch status {
	case s002Cancelled:
		note = "_(cancelled)_"
	case s002Interrupted:
		note = "_(interrupted)_"
	case s002Failed:
		note = "_(failed)_"
	default:
		return text
	}
	if text == "" {
		return note
	}
	return text + "\n\n" + note
}

// s002Retried is a retried call's message text: its text and a note
// saying so (as the window shows "retried N× (reason)").
func s002Retried(text string, r *store.Retries) string {
	if r == nil {
		return text
	}
	note := fmt.Sprintf("_(retried %d× after %s)_", r.Count, r.ErrorClass)
	if text == "" {
		return note
	}
	return text + "\n\n" + note
}

// s002Visible reports whether a stored message shows in seed002 and as
// what: user and assistant messages, an assistant message's text with its
// status note; a failed one (a broken or failed stream, removed live by
// the STREAMING_ERROR frame) does not show.
func s002Visible(m store.Message) (role, text, status string, ok bool) {
	switch m.Role {
	case store.RoleUser:
		return "user", store.TextOf(m.Content), s002Complete, true
	case store.RoleAssistant:
		status = s002StatusOf(m.Status)
		if status == s002Failed {
			return "", "", "", false
		}
		return "agent", s002Noted(s002Retried(store.TextOf(m.Content), m.Retries), status), status, true
	}
	return "", "", "", false // seed 002 streams no tool results: history shows what streaming showed
}

// s002Row is a message of seed002's history: the row indie-dev-portal's
// loadSessionMessages reads (its server's AgentMessage), content being
// the JSON text of {type: "text", text}.
type s002Row struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	Role      string `json:"role"`
	Content   string `json:"content"`
	Timestamp string `json:"timestamp"`
}

// seed002Rows converts messages to seed002 history rows (see s002Visible).
func seed002Rows(ms []store.Message) []s002Row {
	out := []s002Row{}
	for _, m := range ms {
		role, text, _, ok := s002Visible(m)
		if !ok {
			continue
		}
		content, _ := json.Marshal(s002Content{"text", text}) // two strings: cannot fail
		out = append(out, s002Row{ID: m.ID, SessionID: m.SessionID, Role: role, Content: string(content), Timestamp: s002Time(m.CreatedAt)})
	}
	return out
}

// s002Error is the error frame's payload (indie-dev-portal's WSError).
type s002Error struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details s002ErrorDetail `json:"details"`
}

type s002ErrorDetail struct {
	SessionID string `json:"sessionId"`
	MessageID string `json:"messageId"`
}

// s002StreamingError is the error code of a failed or broken stream.
const s002StreamingError = "STREAMING_ERROR"

func s002Time(t time.Time) string { return t.UTC().Format(ipc.TimeFormat) }

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

// Resume reopens the message in flight at the resume point, unless the
// client holds it: one it names in known_message_ids, or — when it names
// none — one it saw start before its cursor. indie-dev-portal appends a
// placeholder for every message.start without looking for the id, so a
// second start for a message it holds would show it twice.
func (e *seed002) Resume(r ipc.ResumePoint) ([][]byte, error) {
	m := r.Message
	if m == nil {
		return nil, nil
	}
	held := r.FromCursor
	if r.Known != nil {
		held = r.Known[m.ID]
	}
	if held { // continue it: the chunks after the resume point append to what the client has
		if _, ok := e.open[m.ID]; !ok {
			e.open[m.ID] = &s002Stream{session: r.SessionID}
			e.order = append(e.order, m.ID)
		}
		e.open[m.ID].text.WriteString(store.TextOf(m.Content))
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
			role, text, status, ok := s002Visible(m)
			if !ok {
				continue
			}
			out = append(out, s002Record{SessionID: m.SessionID, MessageID: m.ID, Role: role,
				Content: s002Content{"text", text}, Timestamp: s002Time(m.CreatedAt),
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
	case store.StatusInterrupted:
		return s002Interrupted
	}
	return s002Failed
}

func (e *seed002) Encode(ev ipc.Event) ([][]byte, error) {
	one := func(b []byte, err error) ([][]byte, error) {
		if err != nil {
			return nil, err
		}
		return [][]byte{b}, nil
	}
	switch ev.Type {
	case ipc.TypeTurnStarted:
		p, err := ipc.PayloadAs[ipc.TurnStarted](ev)
		if err != nil {
			return nil, err
		}
		clear(e.errored)
		return one(s002Marshal("message.new", ev.ID.String(), s002Record{SessionID: ev.SessionID, MessageID: p.UserMessageID, Role: "user",
			Content: s002Content{"text", p.Input}, Timestamp: s002Time(ev.TS.Time), IsComplete: true, Status: s002Complete}))
	case ipc.TypeMessageStart:
		p, err := ipc.PayloadAs[ipc.MessageStart](ev)
		if err != nil {
			return nil, err
		}
		return one(e.start(ev.SessionID, p.MessageID, ev.ID.String(), ev.TS.Time))
	case ipc.TypeTextDelta:
		return e.chunk(ev)
	case ipc.TypeMessageComplete:
		return e.end(ev)
	case ipc.TypeLLMCallFailed:
		return e.callFailed(ev)
	case ipc.TypeMessageReset:
		return e.reset(ev)
	case ipc.TypeTurnCompleted, ipc.TypeTurnCancelled:
		return e.abandon(ev)
	}
	return nil, nil
}

// streamingError ends message id of session ("" : the turn's, when no
// message was open) as a failed stream, once: a message.end with its text
// and a note (for a client that knows no error frame), then the
// STREAMING_ERROR frame, on which indie-dev-portal removes the message,
// shows msg and stops its typing indicator.
func (e *seed002) streamingError(ev ipc.Event, session, id, msg string) ([][]byte, error) {
	if e.errored[id] {
		return nil, nil
	}
	e.errored[id] = true
	var out [][]byte
	if st, ok := e.open[id]; ok {
		text := st.text.String()
		e.close(id)
		b, err := s002Marshal("message.end", ev.ID.String(), s002End{MessageID: id, Content: s002Content{"text", s002Noted(text, s002Failed)},
			IsComplete: false, Timestamp: s002Time(ev.TS.Time), Status: s002Failed, Validated: true})
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	b, err := s002Marshal("error", ev.ID.String(), s002Error{Code: s002StreamingError, Message: msg,
		Details: s002ErrorDetail{SessionID: session, MessageID: id}})
	if err != nil {
		return nil, err
	}
	return append(out, b), nil
}

// callFailed: a model call that failed for good ends its message's stream
// with STREAMING_ERROR (the message's own message.complete usually did
// already). One that will be retried keeps its partial until the retry
// streams (message.reset); a call a cancel stopped is not a failure: its
// message ends cancelled.
func (e *seed002) callFailed(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.LLMCallFailed](ev)
	if err != nil || p.Purpose != "" || p.WillRetry || p.ErrorClass == errclass.Cancelled {
		return nil, err
	}
	return e.streamingError(ev, ev.SessionID, p.MessageID, fmt.Sprintf("%s: %s", p.ErrorClass, p.Message))
}

// reset is message.reset: the retried call streams the message again.
// seed 002 has no frame that takes text back but message.end, which
// replaces the text (both the document's client and indie-dev-portal's
// look the message up by id and replace it): a message.end with no text
// (status "retrying", additive) empties the message, and the retry's
// chunks append to it again up to its final message.end.
func (e *seed002) reset(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.MessageReset](ev)
	if err != nil {
		return nil, err
	}
	st, ok := e.open[p.MessageID]
	if !ok {
		return nil, nil
	}
	st.text.Reset()
	b, err := s002Marshal("message.end", ev.ID.String(), s002End{MessageID: p.MessageID, Content: s002Content{"text", ""},
		IsComplete: false, Timestamp: s002Time(ev.TS.Time), Status: s002Retrying, Validated: true})
	if err != nil {
		return nil, err
	}
	return [][]byte{b}, nil
}

// chunk is a text.delta as a message.chunk (after ensureOpen's start).
func (e *seed002) chunk(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.TextDelta](ev)
	if err != nil {
		return nil, err
	}
	out, st, err := e.ensureOpen(ev, p.MessageID)
	if err != nil {
		return nil, err
	}
	st.text.WriteString(p.Text)
	b, err := e.shared.frame(Seed002, ev.ID, func() ([]byte, error) {
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
func (e *seed002) ensureOpen(ev ipc.Event, id string) ([][]byte, *s002Stream, error) {
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
func (e *seed002) end(ev ipc.Event) ([][]byte, error) {
	p, err := ipc.PayloadAs[ipc.MessageComplete](ev)
	if err != nil {
		return nil, err
	}
	out, st, err := e.ensureOpen(ev, p.MessageID)
	if err != nil {
		return nil, err
	}
	sent := st.text.String()
	full := store.TextOf(p.FinalContent)
	status := s002Complete
	switch p.StopReason {
	case "cancelled":
		status = s002Cancelled
	case "error":
		fs, err := e.streamingError(ev, ev.SessionID, p.MessageID, "the model's stream failed")
		return append(out, fs...), err
	}
	e.close(p.MessageID)
	b, err := s002Marshal("message.end", ev.ID.String(), s002End{MessageID: p.MessageID, Content: s002Content{"text", s002Noted(s002Retried(full, p.Retries), status)},
		IsComplete: status == s002Complete, Timestamp: s002Time(ev.TS.Time), Status: status, Validated: sent == full})
	if err != nil {
		return nil, err
	}
	return append(out, b), nil
}

// abandon ends the messages of ev's session still open when its turn ends
// without their message.complete: after a cancel or a crash, message.end
// with what was streamed and the note; after a failure, STREAMING_ERROR.
// A failed turn that removed no message yet gets its STREAMING_ERROR too,
// so the client stops waiting.
func (e *seed002) abandon(ev ipc.Event) ([][]byte, error) {
	status, failure, turnFailed := s002Cancelled, "", false
	if ev.Type == ipc.TypeTurnCancelled {
		if p, err := ipc.PayloadAs[ipc.TurnCancelled](ev); err == nil && p.Reason == "interrupted" {
			status = s002Interrupted
		}
	} else if p, err := ipc.PayloadAs[ipc.TurnCompleted](ev); err != nil {
		return nil, err
	} else {
		status, failure, turnFailed = s002Failed, "the message ended without completing", p.Status == ipc.TurnStatusFailed
		if turnFailed {
			failure = fmt.Sprintf("%s: %s", p.ErrorClass, p.Error)
		}
	}
	var out [][]byte
	for _, id := range slices.Clone(e.order) {
		st := e.open[id]
		if st.session != ev.SessionID {
			continue
		}
		if status == s002Failed {
			fs, err := e.streamingError(ev, ev.SessionID, id, failure)
			if err != nil {
				return nil, err
			}
			out = append(out, fs...)
			continue
		}
		text := st.text.String()
		e.close(id)
		b, err := s002Marshal("message.end", ev.ID.String(), s002End{MessageID: id, Content: s002Content{"text", s002Noted(text, status)},
			IsComplete: status == s002Complete, Timestamp: s002Time(ev.TS.Time), Status: status, Validated: true})
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if turnFailed && len(e.errored) == 0 {
		fs, err := e.streamingError(ev, ev.SessionID, "", failure)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	clear(e.errored)
	return out, nil
}
