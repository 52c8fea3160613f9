//go:build smoketest

package desktoptest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
	"agenthub/app/smoketest"
)

// TestImagePastedInWindow: a screenshot pasted into the real window's
// composer uploads through the bound App.UploadAttachment, shows its
// thumbnail from the window's own asset server (/attachments/{id}), and
// reaches the provider as an image block when the message is sent.
func TestImagePastedInWindow(t *testing.T) {
	bin, artifacts := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 600, Output: 8}).Text("A green rectangle.").Finish("end_turn", 8).Response())
	d, dash, _, _ := startWithDashboard(t, bin, artifacts, srv)
	sid := openSession(ctx, t, dash, d, "Pasted image")
	d.awaitReport("the session open", func(r smoketest.PageReport) bool { return r.SessionID == sid })
	d.command("emit", map[string]any{"data": map[string]any{"cmd": "paste", "name": "window-shot.png", "width": 50, "height": 30}})
	d.awaitReport("the pasted image uploaded", func(r smoketest.PageReport) bool {
		return slices.Equal(r.ComposerAttachments, []string{"ready"})
	})
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "click", "selector": ".composer-send"}})
	r := d.awaitReport("the sent image shown and answered", func(r smoketest.PageReport) bool {
		if len(r.Messages) < 2 || r.Running {
			return false
		}
		u, a := r.Messages[0], r.Messages[len(r.Messages)-1]
		return u.Role == "user" && u.Images == 1 && u.ImagesLoaded == 1 && a.Role == "assistant" && strings.Contains(a.Text, "A green rectangle.")
	})
	if len(r.ComposerAttachments) != 0 {
		t.Errorf("the composer still holds %v after sending", r.ComposerAttachments)
	}
	d.screenshot("desktop-pasted-image.png")
	d.quit()
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"type":"image"`) || !strings.Contains(string(reqs[0].Body), `"media_type":"image/png"`) {
		t.Fatalf("the provider request lacks the pasted image: %d requests", len(reqs))
	}
}
