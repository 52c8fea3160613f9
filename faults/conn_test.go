package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"

	"github.com/coder/websocket"
)

// TestConnectionFlood opens more WebSocket streams than --max-connections:
// the extra ones get 503 too_many_connections before the upgrade, the open
// ones keep streaming, and the process stays healthy.
func TestConnectionFlood(t *testing.T) {
	const limit = 20
	llm := llmtest.NewServer(t)
	llm.Enqueue(longReply(100, -1, nil))
	in := start(t, newDirs(t), llm.URL, "--max-connections", fmt.Sprint(limit))
	sid := in.session()
	var open []*client
	for range limit {
		cl, _ := in.attach(sid, "")
		open = append(open, cl)
	}
	refused := 0
	extra := scale(50, 1000)
	for range extra {
		var a struct {
			WSURL string `json:"ws_url"`
		}
		in.call(http.MethodGet, "/sessions/"+sid, nil, &a)
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		c, res, err := websocket.Dial(ctx, a.WSURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + in.token}}})
		cancel()
		if err == nil {
			_ = c.CloseNow()
			t.Fatal("a stream past --max-connections was accepted")
		}
		var body struct {
			Error struct{ Code string }
		}
		if res != nil {
			b, _ := io.ReadAll(res.Body)
			_ = json.Unmarshal(b, &body)
		}
		if res == nil || res.StatusCode != http.StatusServiceUnavailable || body.Error.Code != "too_many_connections" {
			t.Fatalf("extra stream: %v %v %+v", res, err, body)
		}
		refused++
	}
	in.submit(sid, "stream to everyone")
	for i, cl := range open {
		evs := cl.until(fmt.Sprintf("client %d: the turn's end", i), turnEnded)
		if evs[len(evs)-1].Type != "turn.completed" {
			t.Fatalf("client %d: turn ended %s", i, evs[len(evs)-1].Type)
		}
	}
	rep.add(fmt.Sprintf("connection flood (--max-connections %d)", limit),
		fmt.Sprintf("%d extra streams refused with 503 too_many_connections before the upgrade; the %d open streams got the whole turn", refused, limit))
}

// TestSilentClient: a subscriber stops reading while a big answer streams.
// After --client-stall without write progress it is closed (the others are
// not), the log records bus.handler_warning, and its socket is cut.
func TestSilentClient(t *testing.T) {
	llm := llmtest.NewServer(t)
	s := llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 50, Output: 1}).BeginText()
	chunk := strings.Repeat("z", 4000)
	for range 4000 { // 16 MB: far more than the socket buffers hold
		s.TextDelta(chunk)
	}
	llm.Enqueue(s.EndBlock().Finish("end_turn", 4000).Response())
	in := start(t, newDirs(t), llm.URL, "--client-stall", "3s")
	sid := in.session()
	silent := in.attachSilent(sid)
	steady, _ := in.attach(sid, "")
	began := time.Now()
	in.submit(sid, "a big answer")
	var warned time.Duration
	steady.until("the turn's end", func(e event) bool {
		if e.Type == "bus.handler_warning" && warned == 0 {
			warned = time.Since(began)
		}
		return turnEnded(e)
	})
	if warned == 0 {
		steady.until("bus.handler_warning", func(e event) bool { return e.Type == "bus.handler_warning" })
		warned = time.Since(began)
	}
	// The silent client's connection was cut: reading now drains what the
	// kernel buffered and then fails (a reset, or the 1008 close frame).
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	frames := 0
	var readErr error
	for readErr == nil {
		_, _, readErr = silent.Read(ctx)
		frames++
	}
	if ctx.Err() != nil {
		t.Fatalf("the silent client's connection is still open after %d frames", frames)
	}
	rep.add("a subscriber that stops reading during a 16 MB answer (--client-stall 3s)",
		fmt.Sprintf("closed with bus.handler_warning %s after the turn began (connection then ended: %v); the other subscriber got the whole answer", warned.Round(time.Millisecond), shortErr(readErr)))
}

func shortErr(err error) string {
	s := fmt.Sprint(err)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
