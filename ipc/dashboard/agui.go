package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/agui"
	"agenthub/store"
)

// MaxAGUIBodyBytes bounds a RunAgentInput body (the client resends the
// whole thread; only its last user message is read).
const MaxAGUIBodyBytes = 8 << 20

// aguiKeepAlive is how often an idle AG-UI stream gets an SSE comment.
const aguiKeepAlive = 15 * time.Second

// aguiSnapshotLimit bounds the history in MESSAGES_SNAPSHOT (newest kept).
const aguiSnapshotLimit = 500

// runAgentInput is the part of AG-UI's RunAgentInput the hub reads.
type runAgentInput struct {
	ThreadID string            `json:"threadId"`
	RunID    string            `json:"runId"`
	Messages []json.RawMessage `json:"messages"`
}

// aguiInputMessage is one message of RunAgentInput.messages.
type aguiInputMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// lastUserMessage returns the last user message's id and text (its content
// string, or its text parts joined), and every message id of the input
// (what the client already holds).
func lastUserMessage(msgs []json.RawMessage) (id, text string, ids map[string]bool, err error) {
	ids = map[string]bool{}
	last := -1
	var lm aguiInputMessage
	for i, raw := range msgs {
		var m aguiInputMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", "", nil, fmt.Errorf("messages[%d] is not a message object: %v", i, err)
		}
		ids[m.ID] = true
		if m.Role == "user" {
			last, lm = i, m
		}
	}
	if last < 0 {
		return "", "", nil, errors.New("messages has no user message to start the run")
	}
	var s string
	if json.Unmarshal(lm.Content, &s) == nil {
		return lm.ID, s, ids, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(lm.Content, &parts); err != nil {
		return "", "", nil, fmt.Errorf("messages[%d].content must be a string or an array of parts", last)
	}
	var sb strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			sb.WriteString(p.Text)
		}
	}
	return lm.ID, sb.String(), ids, nil
}

// agui serves POST /ag-ui (docs/protocol.md "AG-UI"): the body is AG-UI's
// RunAgentInput; its last user message starts a turn in the thread's
// session, stored under the client's message id (earlier messages are the
// hub's own history, not the client's copy); the response streams the turn
// as AG-UI events over SSE, RUN_STARTED first (runId = the turn id),
// MESSAGES_SNAPSHOT next when the thread already had history (preceded by
// one without this run's message when the client lacks some of the
// history, so the stock client keeps the thread's order), RUN_FINISHED or
// RUN_ERROR last. A threadId that is a session id uses that session; any
// other creates a session remembered under it. The client closing the
// request cancels the turn.
func (a *API) agui(w http.ResponseWriter, r *http.Request) {
	if !acceptsEventStream(r.Header.Get("Accept")) {
		writeError(w, http.StatusNotAcceptable, "not_acceptable", "POST /ag-ui answers text/event-stream; send Accept: text/event-stream")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxAGUIBodyBytes))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("RunAgentInput exceeds %d bytes", MaxAGUIBodyBytes))
		return
	}
	var in runAgentInput
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_json", "body is not an AG-UI RunAgentInput: "+err.Error())
		return
	}
	if strings.TrimSpace(in.ThreadID) == "" || len(in.ThreadID) > 200 {
		writeError(w, http.StatusBadRequest, "invalid_input", "threadId is required (at most 200 bytes)")
		return
	}
	msgID, text, held, err := lastUserMessage(in.Messages)
	if err == nil && strings.TrimSpace(text) == "" {
		err = errors.New("the last user message has no text")
	}
	if err == nil && msgID != "" {
		err = ipc.ValidClientMessageID(msgID)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_input", err.Error())
		return
	}
	ctx := r.Context()
	sid, err := a.aguiSession(ctx, in.ThreadID)
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	first, _, _ := a.bus.Reader().MessagesBefore(sid, "", 1)
	history := len(first) > 0
	sub, err := a.bus.Subscribe(ctx, ipc.SubscribeRequest{SessionID: sid, Filter: json.RawMessage(`"preset:chat"`), Name: "ag-ui"}) // every type the encoder maps
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	defer sub.Close()
	var res ipc.SubmitResult
	if ids, ok := a.hub.(ipc.IDSubmitter); ok && msgID != "" {
		res, err = ids.SubmitTurnWithID(ctx, sid, msgID, text)
	} else {
		res, err = a.hub.SubmitTurn(ctx, sid, text)
	}
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	enc := agui.NewEncoder(in.ThreadID, res.TurnID, func() []store.Message { return a.aguiHistory(sid, "") })
	if !s.send(enc.Started()) {
		a.aguiAbort(sid, res.TurnID)
		return
	}
	run := aguiRun{sid: sid, turnID: res.TurnID, history: history, held: held}
	if a.aguiStream(ctx, s, sub, enc, run) {
		return
	}
	a.aguiAbort(sid, res.TurnID)
}

// aguiRun is what the stream of one run needs to know: its session and
// turn, whether the thread had history before it, and the message ids the
// client sent (those it holds).
type aguiRun struct {
	sid, turnID string
	history     bool
	held        map[string]bool
}

// snapshot is the run's MESSAGES_SNAPSHOT (the thread up to and including
// the run's user message), preceded by one without that message when the
// client lacks some of the history: the stock client keeps the messages it
// holds in place and appends the others, so a client holding only its new
// message (a fresh client) would otherwise get the history after it.
func (a *API) snapshot(r aguiRun, userMessageID string) []agui.Event {
	msgs := agui.Messages(a.aguiHistory(r.sid, userMessageID))
	out := []agui.Event{}
	for i, m := range msgs {
		if !r.held[m.ID] && i < len(msgs)-1 {
			out = append(out, agui.Event{Type: agui.MessagesSnapshot, Messages: msgs[:len(msgs)-1]})
			break
		}
	}
	return append(out, agui.Event{Type: agui.MessagesSnapshot, Messages: msgs})
}

// aguiStream relays the turn's events until the run ends (true) or the
// client or the server goes away (false: the caller cancels the turn).
func (a *API) aguiStream(ctx context.Context, s *sseWriter, sub *ipc.Subscription, enc *agui.Encoder, r aguiRun) bool {
	keepAlive := time.NewTicker(aguiKeepAlive)
	defer keepAlive.Stop()
	frames := sub.Frames()
	for {
		select {
		case f, ok := <-frames:
			if !ok && ctx.Err() != nil {
				// The subscription lives on the request's context: a client
				// that aborts ends both, and select picks either. The abort
				// must win, or the run is never cancelled.
				return false
			}
			if !ok {
				reason := "the event stream ended"
				if err := sub.Err(); err != nil {
					reason = err.Error()
				}
				s.send(agui.Event{Type: agui.RunError, Message: "Agent Hub stopped streaming this run: " + reason, Code: "stream_ended"})
				return true // the turn goes on; the client can read it elsewhere
			}
			var fr struct {
				Event ipc.Event `json:"event"`
			}
			if f.EventID == "" || json.Unmarshal(f.Data, &fr) != nil || fr.Event.TurnID == nil || *fr.Event.TurnID != r.turnID {
				continue
			}
			var out []agui.Event
			if fr.Event.Type == ipc.TypeTurnStarted && r.history {
				if p, err := decodeTurnStarted(fr.Event); err == nil {
					out = a.snapshot(r, p.UserMessageID)
				}
			}
			evs, err := enc.Encode(fr.Event)
			if err != nil {
				a.log.Warn("ag-ui: skipped an event it could not read", "event", fr.Event.ID, "err", err)
			}
			for _, e := range append(out, evs...) {
				if !s.send(e) {
					return false
				}
			}
			if enc.Done() {
				return true
			}
		case <-keepAlive.C:
			if !s.comment("keep-alive") {
				return false
			}
		case <-ctx.Done():
			return false
		case <-a.stopped:
			s.send(agui.Event{Type: agui.RunError, Message: "Agent Hub is shutting down", Code: "shutting_down"})
			return true
		}
	}
}

func decodeTurnStarted(ev ipc.Event) (ipc.TurnStarted, error) {
	var p ipc.TurnStarted
	err := json.Unmarshal(ev.Payload, &p)
	return p, err
}

// aguiAbort cancels a run whose client went away (AG-UI clients own their
// runs: aborting the request is the cancel).
func (a *API) aguiAbort(sid, turnID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.hub.CancelTurn(ctx, sid, turnID, "user_cancel"); err != nil {
		a.log.Warn("ag-ui: cancelling the run of a closed request failed", "session", sid, "turn", turnID, "err", err)
	}
}

// aguiHistory returns the thread's messages for MESSAGES_SNAPSHOT: the
// newest aguiSnapshotLimit of the current path, up to and including
// userMessageID (this turn's answers stream live instead; "": all).
func (a *API) aguiHistory(sid, userMessageID string) []store.Message {
	ms, _, err := a.bus.Reader().MessagesBefore(sid, "", aguiSnapshotLimit)
	if err != nil {
		return nil
	}
	for i, m := range ms {
		if m.ID == userMessageID {
			return ms[:i+1]
		}
	}
	return ms
}

// aguiSession resolves a threadId: a session id names that session; any
// other thread id finds the session created for it, or creates one.
func (a *API) aguiSession(ctx context.Context, threadID string) (string, error) {
	if s, err := a.hub.GetSession(ctx, threadID); err == nil {
		return s.ID, nil
	} else if !errors.Is(err, ipc.ErrSessionNotFound) {
		return "", err
	}
	a.aguiMu.Lock() // one session per new thread, even for concurrent first runs
	defer a.aguiMu.Unlock()
	ss, err := a.hub.ListSessions(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range ss {
		if s.AGUIThreadID == threadID {
			return s.ID, nil
		}
	}
	s, err := a.hub.CreateSession(ctx, ipc.CreateSessionRequest{AGUIThreadID: threadID})
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

// acceptsEventStream reports whether an Accept header admits
// text/event-stream.
func acceptsEventStream(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && (mt == "text/event-stream" || mt == "*/*" || mt == "text/*") {
			return true
		}
	}
	return false
}

// sseWriter writes server-sent events and flushes each.
type sseWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (s *sseWriter) send(e agui.Event) bool {
	b := agui.Encoded(e)
	buf := make([]byte, 0, len(b)+8)
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	buf = append(buf, "\n\n"...)
	if _, err := s.w.Write(buf); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}

func (s *sseWriter) comment(text string) bool {
	if _, err := io.WriteString(s.w, ": "+text+"\n\n"); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}
