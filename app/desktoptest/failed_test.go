//go:build smoketest

package desktoptest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
	"agenthub/app/smoketest"
)

// failedUser is the first user message of r when it shows a failed turn
// with Retry.
func failedUser(r smoketest.PageReport, text string) bool {
	for _, m := range r.Messages {
		if m.Role == "user" && m.Text == text && m.Outcome == "failed" && m.Retry {
			return true
		}
	}
	return false
}

// TestFailedTurnAfterRestart: a turn the provider refuses (401) shows in the
// window as failed with Retry, and still does after the app is quit and
// started again on the same data dir (the outcome is history, not a banner).
func TestFailedTurnAfterRestart(t *testing.T) {
	bin, artifacts := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))
	d, dash, _, relaunch := startWithDashboard(t, bin, artifacts, srv)
	sid := openSession(ctx, t, dash, d, "Failed turn")
	const prompt = "This turn fails."
	dash.call(ctx, t, http.MethodPost, "/sessions/"+sid+"/turns", map[string]string{"content": prompt}, http.StatusAccepted, nil)
	d.awaitReport("the failed turn with Retry", func(r smoketest.PageReport) bool { return r.SessionID == sid && failedUser(r, prompt) })
	d.quit()

	again := relaunch()
	again.awaitReport("the failed turn with Retry after the restart", func(r smoketest.PageReport) bool {
		return r.SessionID == sid && !r.Running && failedUser(r, prompt)
	})
	again.screenshot("desktop-failed-turn-after-restart.png")
	again.quit()
}
