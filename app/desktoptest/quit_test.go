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

// awaitExit waits for the app to exit by itself (after a close it
// confirmed) and fails unless it exited cleanly.
func (d *desktop) awaitExit(what string) {
	d.t.Helper()
	select {
	case <-d.exited:
		if d.waitErr != nil {
			d.t.Fatalf("the app exited with %v after %s", d.waitErr, what)
		}
	case <-time.After(waitTimeout):
		d.t.Fatalf("the app did not exit within %s after %s", waitTimeout, what)
	}
}

// click is the harness's click on the first element matching selector.
func (d *desktop) click(selector string) {
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "click", "selector": selector}})
}

// TestQuitWhileATurnRuns: closing the window while a turn runs asks first,
// with two answers (issue 34 row 13): "Stay" keeps the window and the turn;
// "Quit" ends the turn as cancelled (so the next start shows it stopped, not
// interrupted) and quits. With no turn running, closing quits at once.
func TestQuitWhileATurnRuns(t *testing.T) {
	bin, artifacts := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv := llmtest.NewServer(t)
	gate := llmtest.NewGate()
	defer gate.Release()
	srv.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 10}).BeginText().TextDelta("Working on it").Stall(gate).
		TextDelta(" — done.").EndBlock().Finish("end_turn", 5).Response())
	d, dash, _, relaunch := startWithDashboard(t, bin, artifacts, srv)
	sid := openSession(ctx, t, dash, d, "Long turn")
	dash.call(ctx, t, http.MethodPost, "/sessions/"+sid+"/turns", map[string]string{"content": "Take your time."}, http.StatusAccepted, nil)
	d.awaitReport("the turn running", func(r smoketest.PageReport) bool { return r.SessionID == sid && r.Running })

	d.command("close", nil)
	d.awaitReport("the quit confirmation", func(r smoketest.PageReport) bool { return r.QuitPrompt && r.Running })
	d.screenshot("desktop-quit-confirm.png")
	d.click(`[data-testid="quit-keep"]`)
	d.awaitReport("the window kept with its turn", func(r smoketest.PageReport) bool { return !r.QuitPrompt && r.Running })

	d.command("close", nil)
	d.awaitReport("the confirmation again", func(r smoketest.PageReport) bool { return r.QuitPrompt })
	d.click(`[data-testid="quit"]`)
	d.awaitExit("Quit")

	again := relaunch()
	again.awaitReport("the loaded window", func(r smoketest.PageReport) bool { return r.Kind == "loaded" })
	again.command("emit", map[string]any{"data": map[string]string{"cmd": "open", "session_id": sid}})
	again.awaitReport("the turn shown as stopped by the user", func(r smoketest.PageReport) bool {
		for _, m := range r.Messages {
			if m.Role == "user" && m.Outcome == "cancelled" {
				return !r.Running
			}
		}
		return false
	})
	// Nothing runs: closing quits without asking.
	again.command("close", nil)
	again.awaitExit("closing with no turn running")
}
