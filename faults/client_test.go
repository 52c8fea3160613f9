package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// event is a canonical event as a client sees it.
type event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	SessionID string          `json:"session_id"`
	TurnID    *string         `json:"turn_id"`
	Payload   json.RawMessage `json:"payload"`
}

// frame is any server frame.
type frame struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Epoch   string `json:"epoch"`
	Nonce   string `json:"nonce"`
	Event   *event `json:"event"`
}

// client is one dashboard WebSocket subscriber; a goroutine reads every
// frame, and another hands them to frames in order, queueing as many as
// the test has not taken yet (so the reader never stops reading, and the
// server never sees a slow client), until the connection ends (then err
// says why). The queue holds only the frames that came: a fixed buffer
// deep enough for a burst (65,536 frames each) cost the fan-out test's 400
// clients 2.3 GB of channel buffers, which every garbage collection scanned
// (the test took 152 s under load; 75 s now, with -race and busy loops).
type client struct {
	t      *testing.T
	c      *websocket.Conn
	frames chan frame
	done   chan struct{}
	err    error
}

// attachSilent subscribes to sid and never reads: a client that has
// stopped reading (a frozen tab).
func (in *instance) attachSilent(sid string) *websocket.Conn {
	in.t.Helper()
	return in.subscribe(sid, "")
}

// attach subscribes to sid (preset:full) from cursor since ("" = live
// only) and returns the client and its first frame (subscribe_ack or
// subscribe_error).
func (in *instance) attach(sid, since string) (*client, frame) {
	in.t.Helper()
	c := in.subscribe(sid, since)
	c.SetReadLimit(-1)
	cl := &client{t: in.t, c: c, frames: make(chan frame), done: make(chan struct{})}
	read := make(chan frame, 64)
	go cl.read(read)
	go cl.forward(read)
	return cl, cl.next("subscribe_ack")
}

// subscribe opens sid's WebSocket stream (closed by the test's cleanup)
// and sends the subscribe frame: preset:full from cursor since ("" = live
// only), without a snapshot.
func (in *instance) subscribe(sid, since string) *websocket.Conn {
	in.t.Helper()
	var a struct {
		WSURL string `json:"ws_url"`
	}
	if code := in.call(http.MethodGet, "/sessions/"+sid, nil, &a); code != http.StatusOK {
		in.t.Fatalf("attach %s: %d", sid, code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	c, _, err := websocket.Dial(ctx, a.WSURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + in.token}}})
	if err != nil {
		in.t.Fatalf("dial: %v", err)
	}
	in.t.Cleanup(func() { _ = c.CloseNow() })
	cursor := "null"
	if since != "" {
		cursor = fmt.Sprintf("%q", since)
	}
	sub := fmt.Sprintf(`{"type":"subscribe","filter":"preset:full","since":%s,"snapshot":false}`, cursor)
	if err := c.Write(ctx, websocket.MessageText, []byte(sub)); err != nil {
		in.t.Fatalf("subscribe: %v", err)
	}
	return c
}

// forward hands the frames read to frames in order, queueing those the
// test has not taken yet; it closes frames after the last.
func (cl *client) forward(read <-chan frame) {
	defer close(cl.frames)
	var queue []frame
	for read != nil || len(queue) > 0 {
		var out chan<- frame
		var head frame
		if len(queue) > 0 {
			out, head = cl.frames, queue[0]
		}
		select {
		case f, ok := <-read:
			if !ok {
				read = nil
				continue
			}
			queue = append(queue, f)
		case out <- head:
			queue[0] = frame{}
			queue = queue[1:]
		}
	}
}

func (cl *client) read(out chan<- frame) {
	defer close(cl.done)
	defer close(out)
	for {
		_, b, err := cl.c.Read(context.Background())
		if err != nil {
			cl.err = err
			return
		}
		var f frame
		if err := json.Unmarshal(b, &f); err != nil {
			cl.err = fmt.Errorf("frame not JSON: %s", b)
			return
		}
		if f.Type == "ping" {
			// Answer the server's heartbeat like a real client; an idle
			// soak client that did not was closed with heartbeat_timeout.
			pong, _ := json.Marshal(map[string]string{"type": "pong", "nonce": f.Nonce})
			if err := cl.c.Write(context.Background(), websocket.MessageText, pong); err != nil {
				cl.err = fmt.Errorf("pong: %w", err)
				return
			}
			continue
		}
		out <- f
	}
}

// next returns the next frame, failing after guard or at the connection's end.
func (cl *client) next(what string) frame {
	cl.t.Helper()
	select {
	case f, ok := <-cl.frames:
		if !ok {
			cl.t.Fatalf("waiting for %s: connection ended: %v", what, cl.err)
		}
		return f
	case <-time.After(guard):
		cl.t.Fatalf("waiting for %s: nothing within %s", what, guard)
	}
	return frame{}
}

// until reads events (other frames are skipped) until stop returns true for
// one; it returns them all, in order.
func (cl *client) until(what string, stop func(event) bool) []event {
	cl.t.Helper()
	var out []event
	for {
		f := cl.next(what)
		if f.Type == "error" || f.Type == "subscribe_error" {
			cl.t.Fatalf("waiting for %s: error frame %s: %s", what, f.Code, f.Message)
		}
		if f.Event == nil {
			continue
		}
		out = append(out, *f.Event)
		if stop(*f.Event) {
			return out
		}
	}
}

// turnEnded reports a turn's end event.
func turnEnded(e event) bool {
	return e.Type == "turn.completed" || e.Type == "turn.cancelled"
}

func (cl *client) close() { _ = cl.c.Close(websocket.StatusNormalClosure, "") }
