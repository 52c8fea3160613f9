package gatewaylink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"agenthub/gateway/wire"
	"agenthub/ipc"
	"agenthub/ipc/dialect"
	"agenthub/ipc/rpc"
)

// Bounds of streams.
const (
	// maxStreams bounds one device's open subscriptions.
	maxStreams = 32
	// MaxFrameBytes is the largest frame sent through the gateway (under
	// the gateway's 32 MiB message bound, with room for the envelope); a
	// bigger one ends its stream with frame_too_large.
	MaxFrameBytes = 16 << 20
	// writablePoll is how often a stream waiting for the socket to drain
	// looks again.
	writablePoll = 2 * time.Millisecond
	// DefaultDialect is the dialect of a subscription that names none:
	// seed 000's StreamPayload, as the seed says gateway streams arrive.
	DefaultDialect = dialect.Seed000
)

// stream is one subscription of a device, forwarded by its own goroutine.
type stream struct {
	id     string
	sub    *ipc.Subscription
	cancel context.CancelFunc
}

// subscribeParams is subscribe's params: the local port's subscribe frame
// plus the session (any of agentId, sessionId, session_id).
type subscribeParams struct {
	AgentID         string          `json:"agentId"`
	SessionID       string          `json:"sessionId"`
	SessionIDSnake  string          `json:"session_id"`
	Filter          json.RawMessage `json:"filter"`
	Since           *string         `json:"since"`
	Snapshot        bool            `json:"snapshot"`
	Dialect         string          `json:"dialect"`
	KnownMessageIDs []string        `json:"known_message_ids"`
}

// Subscribe error codes: a subscribe_error's code in seed 003's style.
var subscribeCodes = map[string]string{
	ipc.CodeSessionNotFound: rpc.CodeAgentNotFound,
	ipc.CodeCursorExpired:   "CURSOR_EXPIRED",
	ipc.CodeReplayTooLarge:  "REPLAY_TOO_LARGE",
	ipc.CodeInvalidFilter:   "INVALID_FILTER",
}

// subscribe opens a subscription for the device: the answer is the
// subscribe_ack plus subscriptionId; its frames follow as stream (events)
// and snapshot messages, in order, after the answer.
func (l *link) subscribe(ctx context.Context, m wire.RoutedMessage, s *session, raw json.RawMessage) rpc.Response {
	var p subscribeParams
	if err := rpc.DecodeParams(raw, &p); err != nil {
		return rpc.Response{Err: rpc.AsError(err)}
	}
	sessionID := firstOf(p.AgentID, p.SessionID, p.SessionIDSnake)
	if sessionID == "" {
		return rpc.Response{Err: rpc.Errorf(rpc.CodeInvalidParams, "subscribe needs agentId (the session id)")}
	}
	dialect := p.Dialect
	if dialect == "" {
		dialect = DefaultDialect
	}
	l.mu.Lock()
	if l.sessions[s.device] != s {
		l.mu.Unlock()
		return rpc.Response{Err: rpc.Errorf(wire.CodeUnauthorized, "Device not verified")}
	}
	if len(s.subs) >= maxStreams {
		l.mu.Unlock()
		return rpc.Response{Err: rpc.Errorf(rpc.CodeInvalidParams, "%d subscriptions are open; unsubscribe one first", maxStreams)}
	}
	l.nextSub++
	id := fmt.Sprintf("gsub-%d", l.nextSub)
	l.mu.Unlock()

	sctx, cancel := context.WithCancel(l.ctx)
	sub, err := l.m.opts.Bus.Subscribe(sctx, ipc.SubscribeRequest{SessionID: sessionID, Filter: p.Filter, Since: p.Since,
		Snapshot: p.Snapshot, Dialect: dialect, KnownMessageIDs: p.KnownMessageIDs, Name: "gateway " + s.device + " " + id})
	if err != nil {
		cancel()
		var se *ipc.SubscribeError
		if errors.As(err, &se) {
			code := subscribeCodes[se.Code]
			if code == "" {
				code = rpc.CodeRPCError
			}
			return rpc.Response{Err: &rpc.Error{Code: code, Message: se.Message}}
		}
		return rpc.Response{Err: rpc.Errorf(rpc.CodeRPCError, "subscribe: %v", err)}
	}
	st := &stream{id: id, sub: sub, cancel: cancel}
	l.mu.Lock()
	if l.sessions[s.device] != s { // revoked or reconnected meanwhile
		l.mu.Unlock()
		sub.Close()
		cancel()
		return rpc.Response{Err: rpc.Errorf(wire.CodeUnauthorized, "Device not verified")}
	}
	s.subs[id] = st
	l.mu.Unlock()

	ack, _ := json.Marshal(sub.Ack())
	// The answer goes before the first frame: it is sent here, on this
	// goroutine, before the forwarder starts.
	l.respond(m.From, rpc.Response{RequestID: requestIDOf(ctx), OK: true, Payload: json.RawMessage(inject(ack, id))})
	if !l.spawn(func() { l.forward(sctx, s, st, m.From) }) {
		sub.Close()
		cancel()
	}
	return rpc.Response{OK: true, Payload: answered{}}
}

// answered is the payload of a response the handler already sent.
type answered struct{}

// unsubscribe closes one of the device's subscriptions.
func (l *link) unsubscribe(device string, raw json.RawMessage) rpc.Response {
	var p struct {
		SubscriptionID string `json:"subscriptionId"`
	}
	if err := rpc.DecodeParams(raw, &p); err != nil {
		return rpc.Response{Err: rpc.AsError(err)}
	}
	l.mu.Lock()
	var st *stream
	if s := l.sessions[device]; s != nil {
		st = s.subs[p.SubscriptionID]
		delete(s.subs, p.SubscriptionID)
	}
	l.mu.Unlock()
	if st == nil {
		return rpc.Response{Err: rpc.Errorf(rpc.CodeInvalidParams, "no subscription %q", p.SubscriptionID)}
	}
	st.sub.Close()
	st.cancel()
	return rpc.Response{OK: true, Payload: map[string]any{"subscriptionId": p.SubscriptionID, "closed": true}}
}

// forward sends the subscription's frames to the device, never faster
// than the socket drains (so a slow gateway path is the bus's slow
// consumer: it catches up from the log, or ends with client_too_slow),
// and says why the stream ended unless the device or the link ended it.
func (l *link) forward(ctx context.Context, s *session, st *stream, to string) {
	defer st.cancel()
	defer st.sub.Close()
	for {
		select {
		case f, ok := <-st.sub.Frames():
			if !ok {
				l.ended(ctx, s, st, to)
				return
			}
			action := wire.ActionStream
			if bytes.HasPrefix(f.Data, []byte(`{"type":"snapshot"`)) {
				action = wire.ActionSnapshot
			}
			if len(f.Data) > MaxFrameBytes {
				l.endStream(s, st, to, "frame_too_large", fmt.Sprintf("a frame of %d bytes exceeds the gateway bound (%d); resubscribe after event %s", len(f.Data), MaxFrameBytes, f.EventID))
				return
			}
			if !l.drained(ctx) {
				return
			}
			if _, err := l.c.Send(to, action, json.RawMessage(inject(f.Data, st.id))); err != nil {
				return // the connection is gone: dropAll ends the session
			}
		case <-ctx.Done():
			return
		}
	}
}

// drained waits until the socket has room (false when ctx ends first).
func (l *link) drained(ctx context.Context) bool {
	if l.c.Writable() {
		return true
	}
	t := time.NewTicker(writablePoll)
	defer t.Stop()
	for !l.c.Writable() {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}

// ended reports a subscription the bus ended (a stalled consumer, the bus
// closing), unless it was closed on purpose.
func (l *link) ended(ctx context.Context, s *session, st *stream, to string) {
	if ctx.Err() != nil {
		return
	}
	code, msg := "server_shutdown", "the hub closed the stream"
	var se *ipc.SubscribeError
	if errors.As(st.sub.Err(), &se) {
		code, msg = se.Code, se.Message
	}
	l.endStream(s, st, to, code, msg)
}

// endStream removes the stream and tells the device why (stream_end).
func (l *link) endStream(s *session, st *stream, to, code, msg string) {
	l.mu.Lock()
	if s.subs[st.id] == st {
		delete(s.subs, st.id)
	}
	l.mu.Unlock()
	l.reply(to, wire.ActionStreamEnd, map[string]string{"subscriptionId": st.id, "code": code, "message": msg})
}

// takeStreams empties a session's streams; call it with l.mu held and
// closeStreams on the result without.
func takeStreams(s *session) []*stream {
	out := make([]*stream, 0, len(s.subs))
	for id, st := range s.subs {
		out = append(out, st)
		delete(s.subs, id)
	}
	return out
}

// closeStreams ends streams.
func closeStreams(sts []*stream) {
	for _, st := range sts {
		st.sub.Close()
		st.cancel()
	}
}

// inject adds "subscriptionId" as the first member of a JSON object.
func inject(obj []byte, id string) []byte {
	head := `{"subscriptionId":"` + id + `"`
	rest := bytes.TrimSpace(obj[1:])
	out := make([]byte, 0, len(head)+len(obj)+1)
	out = append(out, head...)
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

type requestIDKey struct{}

func requestIDOf(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
