package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// burst is one scripted answer: n text deltas, unpaced (rate 0) or paced
// at rate deltas per second. Every delta's text is the send time in unix
// nanoseconds and a space, so a client computes the end-to-end latency of
// each delta with the same clock.
type burst struct {
	n    int
	rate int
}

// provider is the fake Anthropic Messages API at the network edge: each
// POST /v1/messages takes the next queued burst and streams it in the real
// SSE wire format (message_start, content_block_start, one
// content_block_delta per delta flushed on its own, content_block_stop,
// message_delta, message_stop).
type provider struct {
	mu    sync.Mutex
	queue []burst
}

// enqueue scripts the answer to the next request.
func (p *provider) enqueue(b burst) {
	p.mu.Lock()
	p.queue = append(p.queue, b)
	p.mu.Unlock()
}

func (p *provider) next() (burst, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) == 0 {
		return burst{}, false
	}
	b := p.queue[0]
	p.queue = p.queue[1:]
	return b, true
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions" {
		p.chatCompletions(w, r)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"no such endpoint"}}`, http.StatusNotFound)
		return
	}
	b, ok := p.next()
	if !ok {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bench: no burst queued"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(s string) bool {
		if _, err := w.Write([]byte(s)); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	send(`event: message_start
data: {"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

`)
	pace := newPacer(b.rate)
	buf := make([]byte, 0, 256)
	for range b.n {
		pace.wait()
		buf = append(buf[:0], `event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`...)
		buf = strconv.AppendInt(buf, time.Now().UnixNano(), 10)
		buf = append(buf, " \"}}\n\n"...)
		if _, err := w.Write(buf); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
	send(fmt.Sprintf(`event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":%d}}

event: message_stop
data: {"type":"message_stop"}

`, b.n))
}

// pacer spaces events at a fixed rate against absolute deadlines (no
// drift); rate 0 never waits.
type pacer struct {
	every time.Duration
	next  time.Time
}

func newPacer(rate int) *pacer {
	if rate <= 0 {
		return &pacer{}
	}
	return &pacer{every: time.Second / time.Duration(rate), next: time.Now()}
}

func (p *pacer) wait() {
	if p.every == 0 {
		return
	}
	if d := time.Until(p.next); d > 0 {
		time.Sleep(d)
	}
	p.next = p.next.Add(p.every)
}

// serveProvider starts the fake provider on a loopback port and returns it
// with its base URL and the function that stops it.
func serveProvider() (prov *provider, url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	prov = &provider{}
	srv := &http.Server{Handler: prov}
	go func() { _ = srv.Serve(ln) }()
	return prov, "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// chatCompletions is the OpenAI-compatible side, for a peer measured the
// same way (make bench PEER=opencode): a request that offers tools is the
// agent's turn and takes the next queued burst, streamed as Chat
// Completions chunks; one without tools (a peer's title or summary call)
// gets a short fixed answer and takes nothing from the queue.
func (p *provider) chatCompletions(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bench: bad request body"}}`, http.StatusBadRequest)
		return
	}
	b := burst{}
	if len(req.Tools) > 0 {
		var ok bool
		if b, ok = p.next(); !ok {
			http.Error(w, `{"error":{"message":"bench: no burst queued"}}`, http.StatusBadRequest)
			return
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	write := func(buf []byte) bool {
		if _, err := w.Write(buf); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	const head = `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"`
	if len(req.Tools) == 0 {
		write([]byte(head + `Bench"},"finish_reason":null}]}` + "\n\n"))
	}
	pace := newPacer(b.rate)
	buf := make([]byte, 0, 256)
	for range b.n {
		pace.wait()
		buf = append(buf[:0], head...)
		buf = strconv.AppendInt(buf, time.Now().UnixNano(), 10)
		buf = append(buf, ` "},"finish_reason":null}]}`+"\n\n"...)
		if !write(buf) {
			return
		}
	}
	write(fmt.Appendf(nil, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":%d,"total_tokens":%d}}`+"\n\ndata: [DONE]\n\n", b.n, b.n+100))
}
