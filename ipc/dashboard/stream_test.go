package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/dashboard"
	"agenthub/store"

	"github.com/coder/websocket"
	"github.com/oklog/ulid/v2"
)

func deltaDraft(sid string, i int) ipc.Draft {
	return ipc.Draft{Type: ipc.TypeTextDelta, SessionID: sid, TurnID: "t1", Actor: ipc.ActorAgent,
		Payload: ipc.TextDelta{MessageID: "m1", Text: fmt.Sprintf("w%d ", i)}}
}

func TestStreamSubscribeSnapshotLiveAndReplay(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	c := f.mustDial(id)
	send(t, c, `{"type":"subscribe","filter":"preset:chat","since":null,"snapshot":true}`)
	ack := recv(t, c)
	if ack.Type != "subscribe_ack" || !strings.Contains(string(ack.raw), `"resolved_filter"`) {
		t.Fatalf("ack %s", ack.raw)
	}
	snap := recv(t, c)
	if snap.Type != "snapshot" || snap.SnapshotAt == "" {
		t.Fatalf("snapshot %s", snap.raw)
	}
	var ids []string
	for i := range 20 {
		evs, err := f.bus.Commit(context.Background(), deltaDraft(id, i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, evs[0].ID.String())
	}
	for i := range 20 {
		e := recv(t, c)
		if e.Type != "event" || e.Event.ID != ids[i] || e.Event.Type != "text.delta" {
			t.Fatalf("event %d: %s", i, e.raw)
		}
	}
	// One event per frame: exactly the seed 001 shape.
	// Reconnect with a cursor: replay of what was missed, nothing else.
	_ = c.Close(websocket.StatusNormalClosure, "")
	for i := 20; i < 30; i++ {
		evs, _ := f.bus.Commit(context.Background(), deltaDraft(id, i))
		ids = append(ids, evs[0].ID.String())
	}
	c2 := f.mustDial(id)
	send(t, c2, fmt.Sprintf(`{"type":"subscribe","filter":{"event_types":["text.delta"]},"since":%q,"snapshot":false}`, ids[19]))
	if a := recv(t, c2); a.Type != "subscribe_ack" || a.ReplayEventCount != 10 {
		t.Fatalf("ack %s", a.raw)
	}
	for i := 20; i < 30; i++ {
		if e := recv(t, c2); e.Event == nil || e.Event.ID != ids[i] {
			t.Fatalf("replayed %d: %s", i, e.raw)
		}
	}
}

func TestStreamClientFramesAndErrors(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	c := f.mustDial(id)

	cases := []struct{ in, typ, code string }{
		{`{not json`, "error", ipc.CodeInvalidFrame},
		{`[1,2]`, "error", ipc.CodeInvalidFrame},
		{`{"nonce":"x"}`, "error", ipc.CodeInvalidFrame},
		{`{"type":"made_up"}`, "error", ipc.CodeUnknownFrameType},
		{`{"type":"cancel"}`, "error", ipc.CodeInvalidFrame},
		{`{"type":"subscribe","filter":{"event_types":["made.up.thing"]}}`, "subscribe_error", ipc.CodeInvalidFilter},
		{`{"type":"subscribe","filter":"preset:chat","since":"garbage","snapshot":false}`, "subscribe_error", ipc.CodeCursorExpired},
		{`{"type":"subscribe","filter":"preset:chat","since":"01ARZ3NDEKTSV4RRFFQ69G5FAV","snapshot":false}`, "subscribe_error", ipc.CodeCursorExpired},
		{`{"type":"cancel","turn_id":"01NOSUCHTURN"}`, "error", "cancel_failed"},
	}
	for _, cs := range cases {
		send(t, c, cs.in)
		got := recv(t, c)
		if got.Type != cs.typ || got.Code != cs.code || got.Message == "" {
			t.Errorf("%s → %s, want %s/%s", cs.in, got.raw, cs.typ, cs.code)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageBinary, []byte(`{"type":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, c); got.Code != ipc.CodeInvalidFrame {
		t.Errorf("binary frame → %s", got.raw)
	}
	// The connection survived every bad frame.
	send(t, c, `{"type":"ping","nonce":"n-1"}`)
	if got := recv(t, c); got.Type != "pong" || got.Nonce != "n-1" {
		t.Fatalf("pong %s", got.raw)
	}
	send(t, c, `{"type":"pong","nonce":"unsolicited"}`)
	send(t, c, fmt.Sprintf(`{"type":"request","requestId":"r1","method":"getAgentMessages","params":{"agentId":%q}}`, id))
	if got := recv(t, c); got.Type != "response" || got.RequestID != "r1" || !got.OK {
		t.Fatalf("response %s", got.raw)
	}
	send(t, c, `{"type":"request","requestId":"r2","method":"nope"}`)
	if got := recv(t, c); got.Type != "response" || got.OK || got.Error == nil || got.Error.Code != "METHOD_NOT_FOUND" {
		t.Fatalf("response %s", got.raw)
	}
	send(t, c, `{"type":"request","requestId":"r3","method":"getAgentMessages","params":{"agentId":"zzz"}}`)
	if got := recv(t, c); got.Error == nil || got.Error.Code != "AGENT_NOT_FOUND" {
		t.Fatalf("response %s", got.raw)
	}
	// Seed 003's RoutedMessage envelope is answered in it, with a UUIDv7 id.
	send(t, c, fmt.Sprintf(`{"id":"0190a0e4-7b3c-7000-8000-000000000001","uid":null,"from":"dash-1","to":"agenthub","action":"request","payload":{"requestId":"r4","method":"getAgentMessages","params":{"agentId":%q}}}`, id))
	var routed struct {
		ID, From, To, Action string
		UID                  *string
		Payload              struct {
			RequestID string `json:"requestId"`
			OK        bool   `json:"ok"`
			Payload   struct {
				Messages []map[string]any `json:"messages"`
			} `json:"payload"`
		}
	}
	if got := recv(t, c); json.Unmarshal(got.raw, &routed) != nil || routed.Action != "response" || routed.To != "dash-1" ||
		routed.From != "agenthub" || routed.UID != nil || len(routed.ID) != 36 || routed.ID[14] != '7' || routed.Payload.RequestID != "r4" || !routed.Payload.OK {
		t.Fatalf("routed response %s", got.raw)
	}
	send(t, c, `{"id":"x","uid":null,"from":"dash-1","to":"agenthub","action":"request","payload":{"requestId":"r5","method":"getAgentMessages","params":{"agentId":"zzz"}}}`)
	if got := recv(t, c); !strings.Contains(string(got.raw), `"action":"response"`) || !strings.Contains(string(got.raw), `"code":"AGENT_NOT_FOUND"`) {
		t.Fatalf("routed error %s", got.raw)
	}
	// A cancel reaches the hub, and every client sees the turn.cancelled.
	send(t, c, `{"type":"subscribe","filter":"preset:chat","since":null,"snapshot":true}`)
	recvType(t, c, "snapshot")
	res, err := f.hub.SubmitTurn(context.Background(), id, "a b")
	if err != nil {
		t.Fatal(err)
	}
	send(t, c, fmt.Sprintf(`{"type":"cancel","turn_id":%q,"reason":"user_cancel"}`, res.TurnID))
	for {
		e := recvType(t, c, "event")
		if e.Event.Type == "turn.cancelled" {
			break
		}
	}
	if got := f.hub.Cancels(); len(got) != 1 || got[0] != id+"/"+res.TurnID+"/user_cancel" {
		t.Fatalf("cancels %v", got)
	}
}

func TestStreamSessionNotFound(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	c := f.mustDial(id)
	if resp, b := f.do("DELETE", "/sessions/"+id, ""); resp.StatusCode != 200 {
		t.Fatalf("delete %s", b)
	}
	send(t, c, `{"type":"subscribe","filter":"preset:full","since":null,"snapshot":true}`)
	if got := recv(t, c); got.Type != "subscribe_error" || got.Code != ipc.CodeSessionNotFound {
		t.Fatalf("got %s", got.raw)
	}
}

func TestStreamFrameTooLargeCloses1009(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	c := f.mustDial(id)
	send(t, c, `{"type":"ping","nonce":"`+strings.Repeat("x", ipc.MaxFrameBytes)+`"}`)
	got := recv(t, c)
	if got.Type != "error" || got.Code != ipc.CodeFrameTooLarge {
		t.Fatalf("got %s", got.raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	_, _, err := c.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("close: %v", err)
	}
	// The server is still up.
	c2 := f.mustDial(id)
	send(t, c2, `{"type":"ping","nonce":"after"}`)
	if got := recv(t, c2); got.Nonce != "after" {
		t.Fatalf("got %s", got.raw)
	}
}

// stallBytes is enough output to fill a non-reading client's socket
// buffers on loopback (a few MB each way), so the server's writer blocks.
const stallEvents, stallPayload = 16000, 2000

// emitUntilStalled produces stallEvents large deltas plus a turn.completed
// end marker and waits for the bus.handler_warning that names the stalled
// client. It returns how many text.delta events were produced.
func emitUntilStalled(t *testing.T, f *fixture, id string) int {
	t.Helper()
	warn, err := f.bus.Subscribe(context.Background(), ipc.SubscribeRequest{SessionID: id, Filter: json.RawMessage(`{"event_types":["bus.handler_warning"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer warn.Close()
	payload := strings.Repeat("z", stallPayload)
	for range stallEvents {
		if err := f.bus.Emit(ipc.Draft{Type: ipc.TypeTextDelta, SessionID: id, TurnID: "t1", Actor: ipc.ActorAgent,
			Payload: ipc.TextDelta{MessageID: "m1", Text: payload}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.bus.Commit(context.Background(), ipc.Draft{Type: ipc.TypeTurnCompleted, SessionID: id, TurnID: "t1", Actor: ipc.ActorAgent,
		Payload: ipc.TurnCompleted{Status: ipc.TurnStatusCompleted}}); err != nil {
		t.Fatal(err)
	}
	select {
	case fr := <-warn.Frames():
		if !strings.Contains(string(fr.Data), ipc.CodeClientTooSlow) {
			t.Fatalf("warning %s", fr.Data)
		}
	case <-time.After(2 * guard):
		t.Fatal("no bus.handler_warning for the client that stopped reading")
	}
	return stallEvents
}

// readFrame reads one frame, failing after guard without one: the bound
// is on progress, one frame at a time, never on the whole stream (whose
// length is the test's work, and under -race on a loaded machine takes
// far longer than any fixed bound on it).
func readFrame(c *websocket.Conn) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	_, b, err := c.Read(ctx)
	return b, err
}

// readAll counts text.delta frames until turn.completed.
func readAll(t *testing.T, c *websocket.Conn, got chan<- int) {
	n := 0
	for {
		b, err := readFrame(c)
		if err != nil {
			t.Errorf("reading client: %v", err)
			got <- -1
			return
		}
		var fr frame
		_ = json.Unmarshal(b, &fr)
		switch {
		case fr.Event == nil:
		case fr.Event.Type == ipc.TypeTextDelta:
			n++
		case fr.Event.Type == ipc.TypeTurnCompleted:
			got <- n
			return
		}
	}
}

// TestStreamSlowClientClosed1008: a client that stops reading (no write
// progress for --client-stall) is closed with 1008 and a client_too_slow
// reason; another client on the same session, reading all along, gets
// every event, and the bus records a bus.handler_warning. Here the stalled
// client starts reading again once warned, so the close frame (which can
// only follow the frame the server was blocked on) gets through.
//
// The stall bound is guard, the test's own bound on a reading client's
// progress (readFrame): a server bound below it could close the reading
// client the test still counts as reading — which a 2 s bound did on a
// machine at load 16, where the reader went 2 s without the CPU.
func TestStreamSlowClientClosed1008(t *testing.T) {
	f := newFixtureWith(t, ipc.Options{ClientStall: guard},
		dashboard.APIOptions{CloseFrameWait: 2 * guard}, dashboard.Options{})
	id := f.session()
	slow := f.mustDial(id)
	send(t, slow, `{"type":"subscribe","filter":{"event_types":["text.delta"]},"since":null,"snapshot":false}`)
	recvType(t, slow, "subscribe_ack")
	fast := f.mustDial(id)
	send(t, fast, `{"type":"subscribe","filter":"preset:full","since":null,"snapshot":false}`)
	recvType(t, fast, "subscribe_ack")
	fastGot := make(chan int, 1)
	go readAll(t, fast, fastGot)

	produced := emitUntilStalled(t, f, id)
	// Now the slow client reads: it gets what was in flight, then the 1008 close.
	for {
		_, err := readFrame(slow)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation {
			t.Fatalf("slow client ended with %v", err)
		}
		var reason struct{ Code, Message string }
		if json.Unmarshal([]byte(ce.Reason), &reason) != nil || reason.Code != ipc.CodeClientTooSlow || reason.Message == "" {
			t.Fatalf("close reason %q", ce.Reason)
		}
		break
	}
	if n := <-fastGot; n != produced {
		t.Fatalf("fast client got %d of %d events", n, produced)
	}
}

// TestStreamSilentClientReset: a client that never reads again cannot take
// the close frame; after CloseFrameWait the server resets the TCP
// connection, the stream's slot is freed, and the client's next read fails
// without a close frame.
func TestStreamSilentClientReset(t *testing.T) {
	f := newFixtureWith(t, ipc.Options{ClientStall: 200 * time.Millisecond},
		dashboard.APIOptions{CloseFrameWait: 100 * time.Millisecond}, dashboard.Options{})
	id := f.session()
	silent := f.mustDial(id)
	send(t, silent, `{"type":"subscribe","filter":{"event_types":["text.delta"]},"since":null,"snapshot":false}`)
	recvType(t, silent, "subscribe_ack")
	emitUntilStalled(t, f, id)
	waitUntil(t, "the silent client's stream to be closed", func() bool { return f.api.OpenStreams() == 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 2*guard)
	defer cancel()
	for {
		_, _, err := silent.Read(ctx)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			t.Fatalf("got a close frame %v; the blocked writer should have been cut by a reset", ce)
		}
		if ctx.Err() != nil {
			t.Fatal("the connection was never cut")
		}
		break
	}
}

// TestStreamConnectionLimit: past --max-connections a stream request is
// refused with 503 too_many_connections before the upgrade; closing one
// frees its slot.
func TestStreamConnectionLimit(t *testing.T) {
	f := newFixtureWith(t, ipc.Options{}, dashboard.APIOptions{MaxConnections: 2}, dashboard.Options{})
	id := f.session()
	a := f.mustDial(id)
	f.mustDial(id)
	c, resp, err := f.dial(f.attach(id))
	if err == nil {
		_ = c.CloseNow()
		t.Fatal("a third stream was accepted")
	}
	if resp == nil || resp.StatusCode != 503 {
		t.Fatalf("third stream: %v %v", resp, err)
	}
	body, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct{ Code string }
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Code != "too_many_connections" {
		t.Fatalf("503 body %s", body)
	}
	_ = a.Close(websocket.StatusNormalClosure, "")
	waitUntil(t, "a slot to be freed", func() bool { return f.api.OpenStreams() == 1 })
	f.mustDial(id)
}

// TestIdleKeepAliveClosed: a keep-alive connection that only ever got a
// 401 is closed by the server after its idle timeout.
func TestIdleKeepAliveClosed(t *testing.T) {
	f := newFixtureWith(t, ipc.Options{}, dashboard.APIOptions{}, dashboard.Options{IdleTimeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(guard))
	if _, err := fmt.Fprintf(conn, "GET /sessions HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(f.base, "http://")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 401 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// The server closes the idle connection: the read ends with EOF, not
	// with our deadline.
	if _, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("idle connection still open: %v", err)
	}
}

// waitUntil polls cond (every few ms, bounded by guard) for a state that
// has no event to wait on.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStreamHeartbeat: an idle client gets pings; answering keeps it open;
// after 3 unanswered pings the server closes.
func TestStreamHeartbeat(t *testing.T) {
	f := newFixture(t, ipc.Options{Heartbeat: 20 * time.Millisecond})
	id := f.session()
	c := f.mustDial(id)
	p := recv(t, c)
	if p.Type != "ping" || p.Nonce == "" {
		t.Fatalf("got %s", p.raw)
	}
	send(t, c, `{"type":"pong","nonce":"`+p.Nonce+`"}`)
	pings := 0
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusGoingAway {
				t.Fatalf("closed with %v", err)
			}
			break
		}
		if !strings.Contains(string(b), `"type":"ping"`) {
			t.Fatalf("unexpected %s", b)
		}
		pings++
	}
	if pings != ipc.MaxUnansweredPings {
		t.Fatalf("%d unanswered pings before close, want %d", pings, ipc.MaxUnansweredPings)
	}
}

// A dashboard may ask for a seed dialect on the socket; an unknown dialect
// is refused with invalid_filter and the server stays up.
func TestStreamDialectSelectedPerSubscription(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	bad := f.mustDial(id)
	send(t, bad, `{"type":"subscribe","filter":"preset:chat","since":null,"snapshot":false,"dialect":"klingon"}`)
	if e := recv(t, bad); e.Type != "subscribe_error" || !strings.Contains(string(e.raw), "invalid_filter") || !strings.Contains(string(e.raw), "klingon") {
		t.Fatalf("unknown dialect: %s", e.raw)
	}

	c := f.mustDial(id)
	send(t, c, `{"type":"subscribe","filter":"preset:chat","since":null,"snapshot":false,"dialect":"seed002"}`)
	if a := recv(t, c); a.Type != "subscribe_ack" || !strings.Contains(string(a.raw), `"dialect":"seed002"`) {
		t.Fatalf("ack %s", a.raw)
	}
	start := ipc.Draft{Type: ipc.TypeMessageStart, SessionID: id, TurnID: "t1", Actor: ipc.ActorAgent,
		Payload: ipc.MessageStart{MessageID: "m1", Role: "assistant", Model: "anthropic:claude-sonnet-4-6"}}
	if _, err := f.bus.Commit(context.Background(), start, deltaDraft(id, 1)); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, c); got.Type != "message.start" || !strings.Contains(string(got.raw), `"messageId":"m1"`) {
		t.Fatalf("seed002 start: %s", got.raw)
	}
	if got := recv(t, c); got.Type != "message.chunk" || !strings.Contains(string(got.raw), `"text":"w1 "`) {
		t.Fatalf("seed002 chunk: %s", got.raw)
	}
}

// A burst far larger than the client queue, through bbolt and a real
// WebSocket to a client that reads as fast as it can: the client falls
// behind, catches up from the log (which runs ahead of publication) and
// goes live again, many times — and sees every event exactly once, in log
// order.
func TestStreamBurstExactlyOnce(t *testing.T) {
	const burst = 20000
	f := newFixture(t, ipc.Options{ClientQueue: 50})
	id := f.session()
	c := f.mustDial(id)
	send(t, c, `{"type":"subscribe","filter":{"event_types":["text.delta"]},"since":null,"snapshot":false}`)
	if a := recv(t, c); a.Type != "subscribe_ack" {
		t.Fatalf("ack %s", a.raw)
	}
	emitted := make(chan error, 1)
	go func() {
		for i := range burst {
			if err := f.bus.Emit(deltaDraft(id, i)); err != nil {
				emitted <- err
				return
			}
		}
		emitted <- nil
	}()
	got := make([]string, 0, burst)
	for range burst {
		e := recv(t, c)
		if e.Event == nil {
			t.Fatalf("not an event: %s", e.raw)
		}
		got = append(got, e.Event.ID)
	}
	if err := <-emitted; err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := f.bus.Store().View(func(tx ipc.StoreView) error {
		return tx.EventsAfter([]string{id}, ulid.ULID{}, func(r store.EventRecord) error {
			if r.Type == ipc.TypeTextDelta {
				want = append(want, r.ID.String())
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) != burst {
		t.Fatalf("the log holds %d deltas, want %d", len(want), burst)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %s, log has %s (a duplicate or a gap)", i, got[i], want[i])
		}
	}
}
