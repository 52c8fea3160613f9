package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/rpc"

	"github.com/coder/websocket"
)

// Close statuses and reasons of the event stream.
const (
	// writeTimeout bounds one frame write outside a subscription (acks,
	// pongs); a subscribed client that stops reading is closed much sooner,
	// after --client-stall (watchStall).
	writeTimeout = 30 * time.Second
	// clientTooSlowReason is the JSON close reason with status 1008 (seed 001 §8.2).
	clientTooSlowReason = `{"code":"client_too_slow","message":"No write progress for --client-stall; reconnect with your last event id."}`
	heartbeatReason     = `{"code":"heartbeat_timeout","message":"3 pings unanswered"}`
	shutdownReason      = `{"code":"server_shutdown","message":"the server is shutting down"}`
	frameTooLargeReason = `{"code":"frame_too_large","message":"client frame exceeds 1 MiB"}`
	// maxDiscardBytes bounds how much of an oversize frame is read and
	// dropped before closing 1009.
	maxDiscardBytes = 64 << 20
)

// stream upgrades GET /sessions/{id}/stream?attach=TOKEN to a WebSocket.
// The single-use attach token (minted by the authenticated GET
// /sessions/{id}) is the proof: a browser cannot set headers on a
// WebSocket, and no cookie is taken. Refused before the upgrade: an
// Authorization header that is not the token (401), a missing Origin
// without the Bearer header (403: browsers always send Origin, so only
// non-browser clients may omit it, and they must also send the token), an
// Origin other than the dashboard's own (403, also refused by the server's
// check), and an attach token that is unknown, used, expired or bound to
// another session (401).
func (a *API) stream(w http.ResponseWriter, r *http.Request) {
	session := r.PathValue("id")
	origin := r.Header.Get("Origin")
	switch a.srv.bearer(r) {
	case bearerInvalid:
		unauthorized(w)
		return
	case bearerAbsent:
		if origin == "" {
			writeError(w, http.StatusForbidden, "origin_required", "a WebSocket request without Origin must authenticate with Authorization: Bearer")
			return
		}
	}
	if origin != "" && !a.srv.origin[strings.ToLower(origin)] {
		writeError(w, http.StatusForbidden, "origin_refused", "cross-origin WebSocket refused")
		return
	}
	if err := a.attach.consume(r.URL.Query().Get("attach"), session, a.now()); err != nil {
		writeError(w, http.StatusUnauthorized, "invalid_attach_token", err.Error()+"; GET /sessions/{id} for a fresh one")
		return
	}
	select {
	case a.slots <- struct{}{}:
		defer func() { <-a.slots }()
	default:
		writeError(w, http.StatusServiceUnavailable, "too_many_connections",
			fmt.Sprintf("%d WebSocket streams are open (--max-connections); close one and retry", cap(a.slots)))
		return
	}
	port := strconv.Itoa(a.srv.port)
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// Already checked above against the dashboard's own origins; this
		// is the library's own same-origin check, kept as a second line.
		OriginPatterns: []string{"127.0.0.1:" + port, "localhost:" + port, a.srv.host + ":" + port},
	})
	if err != nil {
		a.log.Warn("websocket upgrade failed", "err", err)
		return
	}
	if !a.track() {
		_ = c.Close(websocket.StatusGoingAway, shutdownReason)
		return
	}
	defer a.conns.Done()
	c.SetReadLimit(-1) // the reader enforces ipc.MaxFrameBytes itself, to answer frame_too_large first
	wc := &wsConn{
		a: a, c: c, session: session, raw: requestConn(r.Context()),
		name: "dashboard " + r.RemoteAddr,
		ctrl: make(chan ctrlMsg, 16),
		hb:   ipc.NewHeartbeat(a.bus.Options().Heartbeat),
	}
	wc.run(r.Context())
}

// ctrlMsg is one instruction from the reader to the writer goroutine.
type ctrlMsg struct {
	data   []byte               // a frame to write
	sub    *ipc.Subscription    // with data = its ack: switch to this subscription
	close  websocket.StatusCode // non-zero: close with this status after data
	reason string
}

// wsConn is one stream connection: a reader goroutine decoding client
// frames and the writer (run's goroutine) owning every write, so frames
// go out in order: acks before their snapshot/replay, one event per frame.
type wsConn struct {
	a        *API
	c        *websocket.Conn
	raw      net.Conn  // the TCP connection under c (nil if unknown)
	deadline time.Time // raw's write deadline (writer-only)
	session  string
	name     string
	ctrl     chan ctrlMsg
	hb       *ipc.Heartbeat
	watch    sync.WaitGroup // watchStall goroutines; run waits for them
}

func (wc *wsConn) run(parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer cancel()
		wc.read(ctx)
	}()
	defer func() {
		cancel()
		<-readerDone
		wc.watch.Wait()
	}()

	var sub *ipc.Subscription
	defer func() {
		if sub != nil {
			sub.Close()
		}
	}()
	var frames <-chan ipc.OutFrame
	beats := wc.hb.Run(ctx)
	for {
		select {
		case m := <-wc.ctrl:
			if m.sub != nil {
				if sub != nil {
					sub.Close()
				}
				sub, frames = m.sub, m.sub.Frames()
				wc.watch.Add(1)
				go func(sub *ipc.Subscription) {
					defer wc.watch.Done()
					wc.watchStall(ctx, sub)
				}(sub)
			}
			if m.data != nil && !wc.write(ctx, m.data) {
				return
			}
			if m.close != 0 {
				wc.closeWith(m.close, m.reason)
				return
			}
		case f, ok := <-frames:
			if !ok {
				wc.subscriptionEnded(sub)
				return
			}
			if !wc.write(ctx, f.Data) {
				return
			}
			wc.hb.Sent()
		case act, ok := <-beats:
			switch {
			case !ok:
				beats = nil
			case act.Close:
				wc.closeWith(websocket.StatusGoingAway, heartbeatReason)
				return
			default:
				if !wc.write(ctx, ipc.PingFrame(act.Nonce)) {
					return
				}
			}
		case <-wc.a.stopped:
			wc.closeWith(websocket.StatusGoingAway, shutdownReason)
			return
		case <-ctx.Done():
			_ = wc.c.CloseNow()
			return
		}
	}
}

// watchStall ends the connection of a subscription the core closed as too
// slow (its consumer — this connection's writer — made no progress for
// --client-stall, so the writer is blocked in a socket write). From this
// goroutine, not the blocked writer's: the 1008 close frame gets
// CloseFrameWait to go out (it can only follow the frame being written),
// then the TCP connection is reset (linger 0) so the kernel frees its
// buffers at once, and the blocked write returns.
func (wc *wsConn) watchStall(ctx context.Context, sub *ipc.Subscription) {
	select {
	case <-sub.Done():
	case <-ctx.Done():
		return
	}
	var se *ipc.SubscribeError
	if !errors.As(sub.Err(), &se) || se.Code != ipc.CodeClientTooSlow {
		return
	}
	wc.a.log.Info("dashboard client made no progress; closing 1008", "client", wc.name, "session", wc.session)
	closed := make(chan struct{})
	if wc.raw != nil {
		_ = wc.raw.SetWriteDeadline(time.Now().Add(wc.a.wait)) // the close frame gets CloseFrameWait
	}
	go func() {
		defer close(closed)
		_ = wc.c.Close(websocket.StatusPolicyViolation, clientTooSlowReason)
	}()
	t := time.NewTimer(wc.a.wait)
	defer t.Stop()
	select {
	case <-closed:
	case <-t.C:
	}
	if tcp, ok := wc.raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	if wc.raw != nil {
		_ = wc.raw.Close()
	}
	_ = wc.c.CloseNow()
}

// closeWith writes the close frame with a fresh write deadline (the last
// one may be long past on an idle connection) and closes.
func (wc *wsConn) closeWith(code websocket.StatusCode, reason string) {
	if wc.raw != nil {
		_ = wc.raw.SetWriteDeadline(time.Now().Add(writeTimeout))
	}
	_ = wc.c.Close(code, reason)
}

// subscriptionEnded closes the socket after the core ended the subscription.
func (wc *wsConn) subscriptionEnded(sub *ipc.Subscription) {
	var se *ipc.SubscribeError
	err := sub.Err()
	switch {
	case errors.As(err, &se) && se.Code == ipc.CodeClientTooSlow:
		wc.closeWith(websocket.StatusPolicyViolation, clientTooSlowReason) // watchStall resets after
	default:
		wc.closeWith(websocket.StatusGoingAway, shutdownReason)
	}
}

// write sends one frame within writeTimeout. A context timer per frame per
// subscriber was a large part of a fan-out's cost, so the bound is the TCP
// connection's write deadline, moved forward at most every writeTimeout/2
// (before every write, so an old deadline never fails a new write): no
// write blocks more than writeTimeout. A client that stops reading
// mid-stream is closed much sooner: its stalled pump makes watchStall end
// the connection after --client-stall. Without the raw connection it
// falls back to a context timeout.
func (wc *wsConn) write(ctx context.Context, data []byte) bool {
	if wc.raw == nil {
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		return wc.send1(wctx, ctx, data)
	}
	if now := time.Now(); now.Add(writeTimeout / 2).After(wc.deadline) {
		wc.deadline = now.Add(writeTimeout)
		_ = wc.raw.SetWriteDeadline(wc.deadline)
	}
	return wc.send1(ctx, ctx, data)
}

func (wc *wsConn) send1(wctx, ctx context.Context, data []byte) bool {
	if err := wc.c.Write(wctx, websocket.MessageText, data); err != nil {
		if ctx.Err() == nil {
			wc.a.log.Info("dashboard stream write failed", "client", wc.name, "err", err)
		}
		return false
	}
	return true
}

// send hands a message to the writer; false once the connection is ending.
func (wc *wsConn) send(ctx context.Context, m ctrlMsg) bool {
	select {
	case wc.ctrl <- m:
		return true
	case <-ctx.Done():
		return false
	}
}

func errorFrame(code, msg string) []byte {
	b, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}{"error", code, msg})
	return b
}

// read decodes client frames until the connection ends. Bad frames are
// answered with an error frame and the connection stays up, except
// frame_too_large, which also closes with 1009.
func (wc *wsConn) read(ctx context.Context) {
	for {
		typ, rd, err := wc.c.Reader(ctx)
		if err != nil {
			return
		}
		data, err := io.ReadAll(io.LimitReader(rd, ipc.MaxFrameBytes+1))
		if err != nil {
			return
		}
		wc.hb.Activity()
		if len(data) > ipc.MaxFrameBytes {
			// Discard the rest of the message (bounded) so the close
			// handshake is not cut short by a reset over unread data.
			_, _ = io.Copy(io.Discard, io.LimitReader(rd, maxDiscardBytes))
			fe := &ipc.FrameError{Code: ipc.CodeFrameTooLarge, Message: "frame exceeds 1 MiB"}
			if wc.send(ctx, ctrlMsg{data: fe.Frame(), close: websocket.StatusMessageTooBig, reason: frameTooLargeReason}) {
				<-ctx.Done() // the writer closes; ending here first would cut it short
			}
			return
		}
		if typ != websocket.MessageText {
			if !wc.send(ctx, ctrlMsg{data: errorFrame(ipc.CodeInvalidFrame, "binary frames are not accepted; send JSON text")}) {
				return
			}
			continue
		}
		if rpc.IsRouted(data) { // seed 003's RoutedMessage envelope: answered in it
			if !wc.send(ctx, ctrlMsg{data: wc.a.rpc.DispatchRouted(ctx, data)}) {
				return
			}
			continue
		}
		f, err := ipc.DecodeClientFrame(data)
		if err != nil {
			var fe *ipc.FrameError
			msg := errorFrame(ipc.CodeInvalidFrame, err.Error())
			if errors.As(err, &fe) {
				msg = fe.Frame()
			}
			if !wc.send(ctx, ctrlMsg{data: msg}) {
				return
			}
			continue
		}
		if !wc.handle(ctx, f) {
			return
		}
	}
}

func (wc *wsConn) handle(ctx context.Context, f ipc.ClientFrame) bool {
	switch f.Type {
	case ipc.FrameSubscribe:
		sub, err := wc.a.bus.Subscribe(ctx, ipc.SubscribeRequest{
			SessionID: wc.session,
			Filter:    f.Subscribe.Filter,
			Since:     f.Subscribe.Since,
			Snapshot:  f.Subscribe.Snapshot,
			Dialect:   f.Subscribe.Dialect,
			Name:      wc.name,

			KnownMessageIDs: f.Subscribe.KnownMessageIDs,
		})
		if err != nil {
			var se *ipc.SubscribeError
			if errors.As(err, &se) {
				return wc.send(ctx, ctrlMsg{data: se.Frame()})
			}
			return wc.send(ctx, ctrlMsg{data: errorFrame("subscribe_failed", err.Error())})
		}
		if !wc.send(ctx, ctrlMsg{data: sub.Ack().JSON(), sub: sub}) {
			sub.Close()
			return false
		}
		return true
	case ipc.FrameCancel:
		reason := f.Cancel.Reason
		if reason == "" {
			reason = "user_cancel"
		}
		if err := wc.a.hub.CancelTurn(ctx, wc.session, f.Cancel.TurnID, reason); err != nil {
			return wc.send(ctx, ctrlMsg{data: errorFrame("cancel_failed", err.Error())})
		}
		return true
	case ipc.FramePing:
		return wc.send(ctx, ctrlMsg{data: ipc.PongFrame(f.Nonce)})
	case ipc.FramePong:
		wc.hb.Pong(f.Nonce)
		return true
	case ipc.FrameRequest:
		resp := wc.a.rpc.Call(ctx, rpc.Request{Type: rpc.TypeRequest, RequestID: f.Request.RequestID, Method: f.Request.Method, Params: f.Request.Params})
		return wc.send(ctx, ctrlMsg{data: rpc.Encode(resp, wc.a.log)})
	}
	return wc.send(ctx, ctrlMsg{data: errorFrame(ipc.CodeUnknownFrameType, "unhandled frame type "+f.Type)})
}
