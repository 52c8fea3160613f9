package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
	"agenthub/app/settings"
	"agenthub/ipc"
	"agenthub/ipc/rpc"
)

// TestSearchAndTitleThroughTheInstance: a turn through the real instance
// (bbolt, bus, hub, the index wrapping the store) is found by GET /search
// and RPC search on the dashboard port, with the token required; the
// session is named after its first completed turn (auto_title defaults on).
func TestSearchAndTitleThroughTheInstance(t *testing.T) {
	dir := t.TempDir()
	if err := EnsureDataDir(dir); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	srv.AnswerTitles("Borrow checker woes")
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).
		ToolUse("tu_seq", "read_file", `{"path":"numbers.txt"}`).Finish("tool_use", 5).Response())
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).
		Text("Lifetimes tie the reference to its owner.").Finish("end_turn", 5).Response())
	if err := settings.Save(dir, settings.Settings{Model: "anthropic:claude-sonnet-4-6", AnthropicAPIKey: "k", AnthropicBaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, dir)
	cfg.ApprovalMode = "auto-all"
	var numbers strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&numbers, "%d\n", i)
	}
	if err := os.WriteFile(filepath.Join(cfg.Workspace, "numbers.txt"), []byte(numbers.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	inst, err := Open(cfg, OpenOptions{Headless: true, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- inst.Dashboard.Serve(ctx) }()
	defer func() { cancel(); <-done }()

	s, err := inst.Hub.CreateSession(ctx, ipc.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := inst.Bus.Subscribe(ctx, ipc.SubscribeRequest{SessionID: s.ID, Filter: json.RawMessage(`"preset:full"`), Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if _, err := inst.Hub.SubmitTurn(ctx, s.ID, "Why does the borrow checker reject my closure?"); err != nil {
		t.Fatal(err)
	}
	for titled := false; !titled; {
		select {
		case f := <-sub.Frames():
			var fr struct {
				Event struct {
					Type    string `json:"type"`
					Payload struct {
						Session struct {
							Title       string `json:"title"`
							TitleSource string `json:"title_source"`
						} `json:"session"`
					} `json:"payload"`
				} `json:"event"`
			}
			_ = json.Unmarshal(f.Data, &fr)
			titled = fr.Event.Type == ipc.TypeSessionUpdated && fr.Event.Payload.Session.TitleSource == "auto"
			if titled && fr.Event.Payload.Session.Title != "Borrow checker woes" {
				t.Fatalf("title %q", fr.Event.Payload.Session.Title)
			}
		case <-ctx.Done():
			t.Fatal("the session was never titled")
		}
	}

	get := func(path, token string) (int, []byte) {
		req, _ := http.NewRequest("GET", inst.Dashboard.BaseURL()+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	tok := inst.Dashboard.Token()
	if code, _ := get("/search?q=borrow", ""); code != http.StatusUnauthorized {
		t.Fatalf("search without the token: %d", code)
	}
	code, body := get("/search?q="+url.QueryEscape("BORROW check"), tok)
	var res rpc.SearchResult
	if err := json.Unmarshal(body, &res); err != nil || code != 200 || len(res.Hits) != 1 ||
		res.Hits[0].SessionID != s.ID || res.Hits[0].Role != "user" || !strings.Contains(res.Hits[0].Snippet, "borrow checker") {
		t.Fatalf("GET /search: %d %s", code, body)
	}
	if code, body := get("/search?q=lifetimes", tok); code != 200 || !strings.Contains(string(body), `"role":"assistant"`) {
		t.Fatalf("the answer is not found: %d %s", code, body)
	}
	if code, body := get("/search?q=", tok); code != http.StatusBadRequest || !strings.Contains(string(body), "no words") {
		t.Fatalf("empty query: %d %s", code, body)
	}

	// The read_file call's output (its result text): text/plain, Range, a JSON 404 for an unknown call.
	out := "/sessions/" + s.ID + "/tools/tu_seq/output"
	oreq, _ := http.NewRequest("GET", inst.Dashboard.BaseURL()+out, nil)
	oreq.Header.Set("Authorization", "Bearer "+tok)
	oreq.Header.Set("Range", "bytes=0-5")
	ores, err := http.DefaultClient.Do(oreq)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(ores.Body)
	ores.Body.Close()
	if ores.StatusCode != http.StatusPartialContent || string(part) != "     1" ||
		!strings.HasPrefix(ores.Header.Get("Content-Type"), "text/plain") || !strings.HasPrefix(ores.Header.Get("Content-Range"), "bytes 0-5/") {
		t.Fatalf("ranged output: %d %q %v", ores.StatusCode, part, ores.Header)
	}
	if code, body := get(out, ""); code != http.StatusUnauthorized {
		t.Fatalf("output without the token: %d %s", code, body)
	}
	if code, body := get("/sessions/"+s.ID+"/tools/tu_none/output", tok); code != http.StatusNotFound || !strings.Contains(string(body), "tool_call_not_found") {
		t.Fatalf("unknown call: %d %s", code, body)
	}

	req, _ := http.NewRequest("POST", inst.Dashboard.BaseURL()+"/rpc",
		strings.NewReader(`{"type":"request","requestId":"r1","method":"search","params":{"query":"closure","limit":5}}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var answer struct {
		OK      bool             `json:"ok"`
		Payload rpc.SearchResult `json:"payload"`
	}
	if err := json.NewDecoder(r.Body).Decode(&answer); err != nil || !answer.OK || len(answer.Payload.Hits) != 1 || answer.Payload.Hits[0].MessageID == "" {
		t.Fatalf("RPC search: %+v %v", answer, err)
	}
}
