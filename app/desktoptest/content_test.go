//go:build smoketest

package desktoptest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
	"agenthub/app/smoketest"
)

// hitCounter is a local web server that counts requests per path.
type hitCounter struct {
	mu   sync.Mutex
	hits map[string]int
	seen chan string
}

func newHitCounter(t *testing.T) (*hitCounter, *httptest.Server) {
	h := &hitCounter{hits: map[string]int{}, seen: make(chan string, 64)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.URL.Path]++
		h.mu.Unlock()
		select {
		case h.seen <- r.URL.Path:
		default:
		}
		w.Header().Set("Content-Type", "image/gif")
		_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	}))
	t.Cleanup(srv.Close)
	return h, srv
}

func (h *hitCounter) count(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// TestNoRemoteContentAndLinks renders a hostile answer in the real window:
// an image whose URL would leak a secret, and a link. No request reaches
// the image's server — not on render, not after a reload — until the user
// clicks the placeholder; a fetch to it from the page is refused by the
// window's CSP; and a click on the link runs the system browser (a logging
// xdg-open first on PATH) with the link, instead of navigating the window.
func TestNoRemoteContentAndLinks(t *testing.T) {
	bin, artifacts := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Second)
	defer cancel()
	hits, img := newHitCounter(t)

	tmp := t.TempDir()
	dataDir, workspace, binDir := filepath.Join(tmp, "data"), filepath.Join(tmp, "ws"), filepath.Join(tmp, "bin")
	for _, d := range []string{dataDir, workspace, binDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	opened := filepath.Join(tmp, "xdg-open.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + opened + "'\n"
	if err := os.WriteFile(filepath.Join(binDir, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	answer := "Here is the chart: ![chart](" + img.URL + "/leak.gif?secret=SECRET) and the [docs](https://docs.example.com/page)."
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 10, Output: 1}).Text(answer).Finish("end_turn", 20).Response())
	d := startDesktop(t, bin, artifacts,
		[]string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test-key", "PATH=" + binDir + ":" + os.Getenv("PATH")},
		"--data-dir", dataDir, "--workspace", workspace, "--listen", "127.0.0.1:0", "--model", "anthropic:"+model)
	first := d.awaitReport("its first load", func(r smoketest.PageReport) bool { return r.Kind == "loaded" })
	dash := readDashboard(t, dataDir)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	dash.call(ctx, t, http.MethodPost, "/sessions", map[string]string{"title": "Hostile answer"}, http.StatusCreated, &sess)
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "open", "session_id": sess.SessionID}})
	d.awaitReport("the new session", func(r smoketest.PageReport) bool { return r.SessionID == sess.SessionID && r.PageID == first.PageID })
	dash.call(ctx, t, http.MethodPost, "/sessions/"+sess.SessionID+"/turns", map[string]string{"content": "show me"}, http.StatusAccepted, nil)
	shown := func(r smoketest.PageReport) bool {
		a := lastAssistant(r)
		return r.SessionID == sess.SessionID && a != nil && a.Status == "complete" && strings.Contains(a.Text, "Image from 127.0.0.1")
	}
	d.awaitReport("the answer with a blocked image", shown)
	d.screenshot("desktop-blocked-image.png")
	if n := hits.count("/leak.gif"); n != 0 {
		t.Fatalf("the window fetched the image %d times before any click", n)
	}

	// A fetch from the page to the image's server is refused by connect-src
	// 'self'; the click-to-load that follows is allowed (img-src) and shows
	// the server works: had the fetch gone out, its request would be first.
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "fetch", "url": img.URL + "/connect-probe"}})
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "click", "selector": "[data-md-img]"}})
	select {
	case p := <-hits.seen:
		if p != "/leak.gif" {
			t.Fatalf("first request to the image server was %s: the window's CSP let a fetch out", p)
		}
	case <-time.After(waitTimeout):
		t.Fatal("clicking the placeholder did not load the image")
	}

	// A link click goes to the system browser, not the window.
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "click", "selector": "a[href^='https://docs.example.com']"}})
	deadline := time.Now().Add(waitTimeout)
	for {
		b, _ := os.ReadFile(opened)
		if strings.Contains(string(b), "https://docs.example.com/page") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("xdg-open was not run with the link (log %q)", b)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// After a reload the image is a placeholder again: no new request.
	d.command("reload", nil)
	d.awaitReport("the reloaded page", func(r smoketest.PageReport) bool { return r.Kind == "loaded" && r.PageID != first.PageID })
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "open", "session_id": sess.SessionID}})
	d.awaitReport("the answer after the reload", shown)
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "paint"}})
	d.awaitReport("a painted frame", func(r smoketest.PageReport) bool { return r.Kind == "painted" })
	if n, probes := hits.count("/leak.gif"), hits.count("/connect-probe"); n != 1 || probes != 0 {
		t.Fatalf("image fetched %d times (want the 1 click), connect probe %d times (want 0)", n, probes)
	}
	d.quit()
}
