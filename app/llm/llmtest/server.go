// Package llmtest provides fake LLM provider servers for tests: loopback
// httptest servers that speak the real wire formats (Anthropic Messages SSE,
// OpenAI Chat Completions chunk SSE), play scripted responses in order,
// can stall until released, hang up mid-stream or fail with HTTP errors, and
// record every request they receive. It also provides Recorder, an llm.Sink
// that records the callbacks it gets.
package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"agenthub/app/llm"
)

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Decode unmarshals the request body into v.
func (r Request) Decode(v any) error { return json.Unmarshal(r.Body, v) }

// RequestBlock is one content part of a message in a provider request, in
// either wire format, for tests to decode Request bodies into: text (Text);
// Anthropic's image (Source: type "base64", media type, data); OpenAI's
// image_url (ImageURL: a data: URL).
type RequestBlock struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Source *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// Response is one scripted reply. With Steps it is an SSE stream
// (text/event-stream, status Status or 200); without, a plain response with
// Body (application/json) — typically an HTTP error.
type Response struct {
	Status int
	Header http.Header
	Body   string
	Steps  []Step
	// Dynamic, when set, builds the reply from the request (e.g. usage
	// computed by a PromptCache); the other fields are then ignored.
	Dynamic func(Request) Response
}

// Step is one part of a scripted stream: Data is written and flushed; Gate
// blocks the stream until released (or the request or server ends); Hangup
// aborts the connection without finishing the response.
type Step struct {
	Data   string
	Gate   *Gate
	Hangup bool
}

// Gate stalls a stream. Reached is closed when the server arrives at it;
// Release lets the stream continue. Both are idempotent.
type Gate struct {
	reached, release       chan struct{}
	reachOnce, releaseOnce sync.Once
}

// NewGate returns a gate that holds streams until Release.
func NewGate() *Gate { return &Gate{reached: make(chan struct{}), release: make(chan struct{})} }

// Reached is closed once a stream is blocked at the gate.
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// Release opens the gate.
func (g *Gate) Release() { g.releaseOnce.Do(func() { close(g.release) }) }

// HTTPError is a plain error response with a JSON body and optional header
// pairs ("Retry-After", "3").
func HTTPError(status int, body string, headerPairs ...string) Response {
	h := http.Header{}
	for i := 0; i+1 < len(headerPairs); i += 2 {
		h.Set(headerPairs[i], headerPairs[i+1])
	}
	return Response{Status: status, Header: h, Body: body}
}

// RawStream is a stream whose bytes are exactly text (e.g. a recorded
// fixture).
func RawStream(text string) Response { return Response{Steps: []Step{{Data: text}}} }

// Server is a fake provider. Responses are consumed in the order enqueued,
// one per request, whatever the path; a request with nothing queued gets a
// 500 whose body says so.
type Server struct {
	URL  string
	srv  *httptest.Server
	done chan struct{}

	mu      sync.Mutex
	queue   []Response
	reqs    []Request
	title   string    // the answer to title requests ("" = script them like any other)
	titles  []Request // title requests answered with title
	discard bool      // StopRecording was called
	models  []string  // ServeModels' list (nil = GET /models is scripted like any request)
	once    sync.Once
}

// ServeModels makes the server answer GET …/models as an OpenAI-compatible
// server does — the OpenAI list of ids — without using the script or
// recording the request: a client that lists the server's models (the
// hub's model picker) then leaves the scripted replies to the turns.
func (s *Server) ServeModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string{}, ids...)
}

// modelList is the OpenAI list body of ids.
func modelList(ids []string) Response {
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model"})
	}
	b, _ := json.Marshal(list)
	return Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: string(b)}
}

// StopRecording makes the server keep no more requests (Requests returns
// those kept so far): a soak sends the whole growing history with every
// request, and keeping them all would grow the test process without bound.
func (s *Server) StopRecording() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.discard = true
}

// DefaultTitle is how a new Server answers session-title requests.
const DefaultTitle = "Scripted session title"

// NewServer starts a server on loopback; it is closed by t.Cleanup. It
// answers every session-title request (system prompt llm.TitleSystemPrompt)
// with DefaultTitle, outside the script and outside Requests, so a hub that
// names its sessions does not eat the responses a test scripted for its
// turns; see AnswerTitles.
func NewServer(t testing.TB) *Server {
	s := &Server{done: make(chan struct{}), title: DefaultTitle}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// Enqueue adds scripted responses.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// AnswerTitles sets the answer to title requests; "" makes them ordinary
// requests that take the next scripted response (to script a title
// failure, say).
func (s *Server) AnswerTitles(title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.title = title
}

// TitleRequests returns the title requests answered by AnswerTitles' title.
func (s *Server) TitleRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.titles...)
}

// isTitleRequest reports whether body asks for a session title.
func isTitleRequest(body []byte) bool {
	prompt, _ := json.Marshal(llm.TitleSystemPrompt)
	return bytes.Contains(body, prompt[1:len(prompt)-1])
}

// titleReply is title as a complete stream in the wire format of path.
func titleReply(path, title string) Response {
	if strings.Contains(path, "chat/completions") {
		return NewOpenAIStream("fake").Text(title).Finish("stop").Usage(30, 5, 0, 0).Done().Response()
	}
	return NewAnthropicStream("fake", AnthropicUsage{Input: 30}).Text(title).Finish("end_turn", 5).Response()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Close releases every stalled stream and shuts the server down.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	var resp Response
	ok := false
	switch {
	case s.models != nil && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		resp, ok = modelList(s.models), true
	case s.title != "" && isTitleRequest(body):
		s.titles = append(s.titles, req)
		resp, ok = titleReply(r.URL.Path, s.title), true
	default:
		if !s.discard {
			s.reqs = append(s.reqs, req)
		}
		ok = len(s.queue) > 0
		if ok {
			resp, s.queue = s.queue[0], s.queue[1:]
		}
	}
	s.mu.Unlock()
	if ok && resp.Dynamic != nil {
		resp = resp.Dynamic(req)
	}
	if !ok {
		http.Error(w, `{"error":{"type":"api_error","message":"llmtest: no scripted response"}}`, http.StatusInternalServerError)
		return
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	if resp.Steps == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, resp.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for _, st := range resp.Steps {
		switch {
		case st.Gate != nil:
			st.Gate.reachOnce.Do(func() { close(st.Gate.reached) })
			select {
			case <-st.Gate.release:
			case <-r.Context().Done():
				return
			case <-s.done:
				return
			}
		case st.Hangup:
			panic(http.ErrAbortHandler) // net/http closes the connection abruptly
		default:
			if _, err := io.WriteString(w, st.Data); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}
