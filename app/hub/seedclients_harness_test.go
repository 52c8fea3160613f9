package hub_test

// The transport of the seed reference clients (seedclient_*_test.go): the
// real hub with the real dashboard API on a loopback port, reached the way
// an integrator's client reaches it — HTTP for sessions, turns, cancel and
// the history, the WebSocket for the stream (docs/protocol.md §2–§4, §7).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"agenthub/ipc/dashboard"

	"github.com/coder/websocket"
)

// wire is the dashboard of a harness, as a client reaches it.
type wire struct {
	h     *harness
	base  string
	token string
}

// serve mounts the protocol API of h's bus and hub on a loopback port.
func (h *harness) serve() *wire {
	h.t.Helper()
	srv, err := dashboard.Listen(dashboard.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		h.t.Fatal(err)
	}
	api, err := dashboard.MountAPI(srv, dashboard.APIOptions{Bus: h.bus, Hub: h.hub})
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	h.t.Cleanup(func() {
		api.Close()
		cancel()
		if err := <-served; err != nil {
			h.t.Errorf("serve: %v", err)
		}
	})
	return &wire{h: h, base: srv.BaseURL(), token: srv.Token()}
}

// call makes an HTTP request with the token and decodes a 2xx answer into
// out (nil: discard); any other answer fails the test.
func (w *wire) call(method, path string, body, out any) {
	w.h.t.Helper()
	if err := w.try(method, path, body, out); err != nil {
		w.h.t.Fatal(err)
	}
}

// try is call returning what went wrong.
func (w *wire) try(method, path string, body, out any) error {
	w.h.t.Helper()
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			w.h.t.Fatal(err)
		}
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, w.base+path, rd)
	if err != nil {
		w.h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s %s", method, path, resp.Status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: %w in %s", method, path, err, raw)
		}
	}
	return nil
}

// submit posts a turn; it returns the turn id.
func (w *wire) submit(sid, text string) string {
	w.h.t.Helper()
	var r struct {
		TurnID string `json:"turn_id"`
	}
	w.call("POST", "/sessions/"+sid+"/turns", map[string]any{"content": text}, &r)
	return r.TurnID
}

// cancel cancels the running turn of sid.
func (w *wire) cancel(sid string) {
	w.h.t.Helper()
	w.call("POST", "/sessions/"+sid+"/cancel", map[string]any{}, nil)
}

// history reads GET /sessions/{id}/messages with query (e.g.
// "dialect=seed004&limit=1000") as raw JSON; an answer that is not 2xx is
// what the client gets ("null": its load fails).
func (w *wire) history(sid, query string) json.RawMessage {
	w.h.t.Helper()
	var raw json.RawMessage
	if err := w.try("GET", "/sessions/"+sid+"/messages?"+query, nil, &raw); err != nil {
		w.h.t.Logf("history: %v", err)
		return json.RawMessage("null")
	}
	return raw
}

// stream is one WebSocket subscription in a dialect.
type stream struct {
	t       *testing.T
	w       *wire
	sid     string
	dialect string
	conn    *websocket.Conn
	ack     map[string]any
	last    string // the eventId of the last frame read: the client's cursor
}

// subscribe attaches to sid and subscribes (preset:chat) in dialect; since
// is the cursor ("" : none), known the client's known_message_ids (nil:
// not sent).
func (w *wire) subscribe(sid, dialect, since string, snapshot bool, known []string) *stream {
	w.h.t.Helper()
	var att struct {
		WSURL string `json:"ws_url"`
	}
	w.call("GET", "/sessions/"+sid, nil, &att)
	ctx := context.Background()
	conn, _, err := websocket.Dial(ctx, att.WSURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + w.token}}})
	if err != nil {
		w.h.t.Fatalf("dial %s: %v", att.WSURL, err)
	}
	conn.SetReadLimit(64 << 20)
	st := &stream{t: w.h.t, w: w, sid: sid, dialect: dialect, conn: conn, last: since}
	w.h.t.Cleanup(func() { _ = conn.CloseNow() })
	sub := map[string]any{"type": "subscribe", "filter": "preset:chat", "snapshot": snapshot, "dialect": dialect, "since": nil}
	if since != "" {
		sub["since"] = since
	}
	if known != nil {
		sub["known_message_ids"] = known
	}
	b, _ := json.Marshal(sub)
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		w.h.t.Fatal(err)
	}
	if st.ack = st.next(); st.ack == nil || st.ack["type"] != "subscribe_ack" {
		w.h.t.Fatalf("subscribe: %v", st.ack)
	}
	return st
}

// frameGuard bounds the wait for a frame: a guard against a hung test,
// never a synchronisation. SEED_GUARD (a duration) shortens it, to run
// these tests quickly against a hub whose dialects never send the frame a
// test waits for (the checks after the wait then say what is wrong).
func frameGuard() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SEED_GUARD")); err == nil && d > 0 {
		return d
	}
	return waitLimit
}

// next reads the next frame (server pings are answered and skipped); nil
// when none came within frameGuard — an error of the test; the stream
// then resumes with its cursor, so the test goes on and its checks say
// what a client would have seen.
func (s *stream) next() map[string]any {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), frameGuard())
	defer cancel()
	for {
		_, b, err := s.conn.Read(ctx)
		if err != nil {
			s.t.Errorf("%s stream: no frame within %v (%v)", s.dialect, frameGuard(), err)
			again := s.w.subscribe(s.sid, s.dialect, s.last, false, nil)
			s.conn, s.ack = again.conn, again.ack
			return nil
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			s.t.Fatalf("frame %s: %v", b, err)
		}
		if os.Getenv("SEED_DEBUG") != "" {
			s.t.Logf("frame %s", b)
		}
		if id, ok := m["eventId"].(string); ok {
			s.last = id
		}
		if m["type"] == "ping" {
			pong, _ := json.Marshal(map[string]any{"type": "pong", "nonce": m["nonce"]})
			if err := s.conn.Write(ctx, websocket.MessageText, pong); err != nil {
				s.t.Fatal(err)
			}
			continue
		}
		return m
	}
}

// close drops the connection (a network drop, a page reload).
func (s *stream) close() { _ = s.conn.Close(websocket.StatusNormalClosure, "bye") }

// reducer is a seed client fed by a stream.
type reducer interface {
	// apply reduces one frame; it reports whether the frame ends what the
	// reader waits for (see readUntil).
	apply(m map[string]any) error
}

// readUntil feeds frames to the clients until done says to stop after one;
// false when the frame did not come (the stream is then unusable).
func (s *stream) readUntil(done func(m map[string]any) bool, clients ...reducer) bool {
	s.t.Helper()
	for {
		m := s.next()
		if m == nil {
			return false
		}
		for _, c := range clients {
			if err := c.apply(m); err != nil {
				s.t.Fatalf("client: %v (frame %v)", err, m)
			}
		}
		if done(m) {
			return true
		}
	}
}

// errFrame is a client's complaint about a frame it cannot read.
func errFrame(format string, args ...any) error { return fmt.Errorf(format, args...) }

// query joins query parameters.
func query(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v.Encode()
}
