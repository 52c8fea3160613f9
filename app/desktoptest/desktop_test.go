//go:build smoketest

// Package desktoptest drives the real desktop binary (Wails window under
// Xvfb) end to end: a fake Anthropic server, the dashboard API and a
// WebSocket client on one side, the window's rendered transcript (reported
// by frontend/src/testing/testhooks.ts through smoketest.Page.TestReport) on the other.
// It is built only with the smoketest tag and runs only when
// AGENTHUB_DESKTOP_BIN names a binary built with that tag (`make
// test-desktop` builds build/bin/agenthub-smoketest and sets both);
// docs/testing.md describes it.
package desktoptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
	"agenthub/app/smoketest"
	"agenthub/ipc"
)

// BinEnv names the env var holding the desktop binary's path.
const BinEnv = "AGENTHUB_DESKTOP_BIN"

// ArtifactsEnv names the env var holding the screenshot directory
// (default: the repository's artifacts/).
const ArtifactsEnv = "AGENTHUB_ARTIFACTS"

const model = "claude-sonnet-4-6"

// setup returns the binary and the artifacts dir, skipping without the binary.
func setup(t *testing.T) (bin, artifacts string) {
	t.Helper()
	bin = os.Getenv(BinEnv)
	if bin == "" {
		t.Skipf("desktop test: %s is not set; build the desktop binary and run `make test-desktop` (it sets %s=build/bin/agenthub)", BinEnv, BinEnv)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("desktop test: %s=%s: %v", BinEnv, bin, err)
	}
	artifacts = os.Getenv(ArtifactsEnv)
	if artifacts == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		artifacts = filepath.Join(wd, "..", "..", "artifacts") // app/desktoptest → repo root
	}
	abs, err := filepath.Abs(artifacts)
	if err != nil {
		t.Fatal(err)
	}
	return bin, abs
}

// words are the deltas of the long reply: unique, Markdown-free, so the
// rendered text equals the raw text and any lost or repeated delta shows.
func words(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("word%03d ", i+1)
	}
	out[n-1] = strings.TrimSpace(out[n-1]) + "."
	return out
}

// conversationReply is the second turn's reply: Markdown the window renders.
var conversationReply = []string{
	"## Reload check\n\n",
	"The window reloaded **mid-stream** and replay recovered every delta:\n\n",
	"- the dashboard client and the window agree\n",
	"- nothing was lost\n- nothing was repeated\n\n",
	"```go\nfmt.Println(\"done\")\n```\n",
}

// assistantText is the text of the message's final content, as stored.
func assistantText(blocks []struct {
	Type string `json:"type"`
	Text string `json:"text"`
}) string {
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// turnLog reconstructs one turn's assistant text from the dashboard stream:
// the concatenated text.delta chunks and message.complete's final_content.
type turnLog struct {
	turnID    string
	deltas    []string
	final     string
	completed bool   // message.complete seen
	status    string // turn.completed's status, "" until then
}

func (l *turnLog) add(t *testing.T, e event) {
	t.Helper()
	if e.TurnID == nil || *e.TurnID != l.turnID {
		return
	}
	switch e.Type {
	case ipc.TypeTextDelta:
		var p ipc.TextDelta
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatalf("text.delta payload %s: %v", e.Payload, err)
		}
		l.deltas = append(l.deltas, p.Text)
	case ipc.TypeMessageComplete:
		var p struct {
			FinalContent []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"final_content"`
		}
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatalf("message.complete payload %s: %v", e.Payload, err)
		}
		l.final = assistantText(p.FinalContent)
		l.completed = true
	case ipc.TypeTurnCompleted:
		var p ipc.TurnCompleted
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatalf("turn.completed payload %s: %v", e.Payload, err)
		}
		l.status = p.Status
	}
}

// lastAssistant is the page's newest assistant message, or nil.
func lastAssistant(r smoketest.PageReport) *smoketest.RenderedMessage {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "assistant" {
			return &r.Messages[i]
		}
	}
	return nil
}

// settled reports that the page shows session id with no turn running and
// n messages, the last a complete assistant message.
func settled(r smoketest.PageReport, id string, n int) bool {
	a := lastAssistant(r)
	return r.SessionID == id && !r.Running && len(r.Messages) == n && a != nil && a.Status == "complete" &&
		r.Messages[n-1].Role == "assistant"
}

// TestReloadMidStream reloads the real window while an assistant message is
// streaming, lets the rest of the stream arrive during the reload, and
// checks the window ends up showing exactly the text the dashboard client
// reconstructed: nothing lost, nothing doubled. It then finishes a second,
// Markdown turn and screenshots the conversation.
func TestReloadMidStream(t *testing.T) {
	bin, artifacts := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Second)
	defer cancel()

	// The fake provider: a long reply held mid-text by a gate, then a
	// Markdown reply for the conversation screenshot.
	// gate holds it mid-text before the reload; after is reached during the
	// reload and released once the new page has loaded.
	const held, during = 40, 40
	chunks := words(120)
	want := strings.Join(chunks, "")
	srv := llmtest.NewServer(t)
	gate, after := llmtest.NewGate(), llmtest.NewGate()
	defer gate.Release()
	defer after.Release()
	usage := llmtest.AnthropicUsage{Input: 900, Output: 1}
	long := llmtest.NewAnthropicStream(model, usage).BeginText()
	for _, c := range chunks[:held] {
		long.TextDelta(c)
	}
	long.Stall(gate)
	for _, c := range chunks[held : held+during] {
		long.TextDelta(c)
	}
	long.Stall(after)
	for _, c := range chunks[held+during:] {
		long.TextDelta(c)
	}
	srv.Enqueue(long.EndBlock().Finish("end_turn", int64(len(chunks))).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text(conversationReply...).Finish("end_turn", 60).Response())

	// 1. The page loads (its test hooks report in); the dashboard is up.
	d, dash, first, _ := startWithDashboard(t, bin, artifacts, srv)

	// 2. A session, watched by a dashboard client for the whole run, shown in the window.
	var sess struct {
		SessionID string `json:"session_id"`
	}
	dash.call(ctx, t, http.MethodPost, "/sessions", map[string]string{"title": "Reload mid-stream"}, http.StatusCreated, &sess)
	stream := dash.attach(ctx, t, sess.SessionID)
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "open", "session_id": sess.SessionID}})
	d.awaitReport("the new session", func(r smoketest.PageReport) bool {
		return r.SessionID == sess.SessionID && r.PageID == first.PageID && len(r.Messages) == 0
	})

	// 3. A turn; the window renders the first part of the reply, then the stream is held.
	prompt := "Stream a long answer, please."
	var turn struct {
		TurnID string `json:"turn_id"`
	}
	dash.call(ctx, t, http.MethodPost, "/sessions/"+sess.SessionID+"/turns", map[string]string{"content": prompt}, http.StatusAccepted, &turn)
	log1 := &turnLog{turnID: turn.TurnID}
	stream.until(t, fmt.Sprintf("the first %d deltas", held), func(e event) bool {
		log1.add(t, e)
		return len(log1.deltas) == held
	})
	select {
	case <-gate.Reached():
	case <-time.After(waitTimeout):
		t.Fatalf("the fake provider's stream never reached its gate")
	}
	partial := strings.Join(chunks[:held], "")
	d.awaitReport("the reply streaming mid-text", func(r smoketest.PageReport) bool {
		a := lastAssistant(r)
		return r.PageID == first.PageID && a != nil && a.Status == "streaming" && strings.TrimSpace(a.Text) == strings.TrimSpace(partial)
	})

	// 4. Reload the window. The next deltas are released at once, while the
	// page reloads (Wails drops events then). The reloaded page must recover
	// all 80 deltas so far (snapshot's partial message / replay) before the
	// last ones are released, which then arrive live past that seam.
	d.command("reload", nil)
	gate.Release()
	select {
	case <-after.Reached():
	case <-time.After(waitTimeout):
		t.Fatalf("the fake provider's stream never reached its second gate")
	}
	reloaded := d.awaitReport("the reloaded page", func(r smoketest.PageReport) bool {
		return r.Kind == "loaded" && r.PageID != first.PageID
	})
	recovered := strings.Join(chunks[:held+during], "")
	d.awaitReport("the reloaded page's recovered partial reply", func(r smoketest.PageReport) bool {
		a := lastAssistant(r)
		return r.PageID == reloaded.PageID && r.SessionID == sess.SessionID && a != nil && a.Status == "streaming" &&
			strings.TrimSpace(a.Text) == strings.TrimSpace(recovered)
	})
	after.Release()
	stream.until(t, "turn.completed", func(e event) bool {
		log1.add(t, e)
		return log1.status != ""
	})
	if log1.status != "completed" || !log1.completed {
		t.Fatalf("turn ended %q (message.complete seen: %v)", log1.status, log1.completed)
	}
	streamed := strings.Join(log1.deltas, "")
	if streamed != want || log1.final != want {
		t.Fatalf("dashboard client: deltas %q, final_content %q; the provider sent %q", streamed, log1.final, want)
	}

	// 5. The reloaded window shows exactly that text, once.
	got := d.awaitReport("the finished turn after the reload", func(r smoketest.PageReport) bool {
		return r.PageID == reloaded.PageID && settled(r, sess.SessionID, 2)
	})
	if u := got.Messages[0]; u.Role != "user" || u.Text != prompt {
		t.Errorf("window's first message = %+v, want the user prompt %q", u, prompt)
	}
	// The Markdown renderer ends a paragraph's HTML with one newline, which
	// is in the DOM's textContent: that one character is the only
	// difference allowed.
	if a := got.Messages[1]; strings.TrimSuffix(a.Text, "\n") != log1.final {
		t.Errorf("window's assistant text differs from the dashboard's reconstruction:\nwindow:    %q\ndashboard: %q", a.Text, log1.final)
	}
	t.Logf("screenshot: %s", d.screenshot("desktop-reload.png"))

	// 6. A second, Markdown turn on the reloaded page: the finished conversation.
	dash.call(ctx, t, http.MethodPost, "/sessions/"+sess.SessionID+"/turns", map[string]string{"content": "Summarise what happened."}, http.StatusAccepted, &turn)
	log2 := &turnLog{turnID: turn.TurnID}
	stream.until(t, "the second turn's turn.completed", func(e event) bool {
		log2.add(t, e)
		return log2.status != ""
	})
	if log2.status != "completed" || log2.final != strings.Join(conversationReply, "") {
		t.Fatalf("second turn ended %q with %q", log2.status, log2.final)
	}
	conv := d.awaitReport("the finished conversation", func(r smoketest.PageReport) bool {
		return settled(r, sess.SessionID, 4)
	})
	md := conv.Messages[3].Text
	for _, s := range []string{"Reload check", "mid-stream", "nothing was lost", `fmt.Println("done")`} {
		if !strings.Contains(md, s) {
			t.Errorf("rendered Markdown reply %q lacks %q", md, s)
		}
	}
	if strings.Contains(md, "**") || strings.Contains(md, "## ") {
		t.Errorf("rendered Markdown reply %q shows raw Markdown syntax", md)
	}
	t.Logf("screenshot: %s", d.screenshot("desktop-conversation.png"))
	d.quit()
}
