package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// watcher is a canonical subscription the test reads to know where the
// hub is (a turn's end, a compaction's end); the client under test never
// sees it.
type watcher struct{ *dashClient }

func watch(ctx context.Context, t *testing.T, info dashboardInfo, sid string) watcher {
	t.Helper()
	w := watcher{newDashClient(t, info)}
	if ack := w.dial(ctx, sid, map[string]any{"type": "subscribe", "filter": "preset:full", "since": nil, "snapshot": false}); ack["type"] != "subscribe_ack" {
		t.Fatalf("watcher: %v", ack)
	}
	t.Cleanup(w.hangUp)
	return w
}

// until reads events up to one of session sid whose type is one of types.
func (w watcher) until(ctx context.Context, sid string, types ...string) {
	w.t.Helper()
	for {
		f := w.read(ctx)
		ev, _ := f["event"].(map[string]any)
		if f["type"] == "event" && ev["session_id"] == sid {
			for _, typ := range types {
				if ev["type"] == typ {
					return
				}
			}
		}
	}
}

func (w watcher) turnEnd(ctx context.Context, sid string) {
	w.t.Helper()
	w.until(ctx, sid, "turn.completed", "turn.cancelled")
}

// seed000Run is one scenario's session, its client and its watcher.
type seed000Run struct {
	t    *testing.T
	ctx  context.Context
	srv  *llmtest.Server
	info dashboardInfo
	sid  string
	c    *seed000Client
	w    watcher
}

func (r *seed000Run) reply(text string) llmtest.Response {
	return llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 100, Output: 10}).Text(text).Finish("end_turn", 10).Response()
}

// turn sends text, reads until the client shows the frame last (as a
// user waits for the answer before typing on) and waits for the turn's end.
func (r *seed000Run) turn(text string, last func(map[string]any) bool) {
	r.t.Helper()
	r.c.send(r.sid, text)
	r.c.readUntil(r.ctx, last)
	r.w.turnEnd(r.ctx, r.sid)
}

// finish runs a last turn whose answer marks the end of the stream (frames
// come in log order, so once the client has its message_end it has every
// frame before it), then compares what each client shows with the history.
func (r *seed000Run) finish(name string, also ...*seed000Client) {
	r.t.Helper()
	done := "Sentinel answer of " + name + "."
	r.srv.Enqueue(r.reply(done))
	r.c.send(r.sid, "sentinel")
	for _, c := range also { // the same user, in another window
		c.messages = append(c.messages, s0Message{Role: "user", Content: []any{map[string]any{"type": "text", "text": "sentinel"}}})
	}
	for _, c := range append([]*seed000Client{r.c}, also...) {
		c.readUntil(r.ctx, endOf(done))
	}
	want := historyState(r.c.dashClient, r.sid)
	for i, c := range append([]*seed000Client{r.c}, also...) {
		got := c.state()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			r.t.Errorf("%s: client %d shows\n  %s\nhistory is\n  %s", name, i, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		if c.dupStarts != 0 {
			r.t.Errorf("%s: client %d got %d message_start frames for a message it already held", name, i, c.dupStarts)
		}
		if len(c.streaming) != 0 || c.compacting {
			r.t.Errorf("%s: client %d still streaming %v (compacting %v)", name, i, c.streaming, c.compacting)
		}
	}
}

// TestSeed000ReferenceClient runs every kind of turn through a seed 000
// client written from the seed's own document (seed000Client: its store and
// routing pseudocode, the way the authors' client reads the stream) and
// compares what it ends up showing with the hub's history: plain,
// thinking, a tool call, a delegation (with include_worker_sessions), a
// cancel mid-answer and one during a tool, three turns, a failed turn
// (401), a retried stream (midfail), compaction, and a reconnect inside a
// message (from the cursor, and a second client joining with a snapshot).
func TestSeed000ReferenceClient(t *testing.T) {
	root, ctx := repoContext(t, 4*time.Minute)
	srv := llmtest.NewServer(t)
	srv.AnswerTitles("seed 000")
	info := startHeadless(t, ctx, root, srv, "--approval-mode", "auto-all", "--client-stall", "1m")
	usage := llmtest.AnthropicUsage{Input: 100, Output: 10}
	stream := func() *llmtest.AnthropicStream { return llmtest.NewAnthropicStream(model, usage) }
	scenario := func(name string, workers bool, body func(r *seed000Run)) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a frame that never comes fails the scenario
			defer cancel()
			r := &seed000Run{t: t, ctx: ctx, srv: srv, info: info, c: newSeed000Client(t, info)}
			var sess struct {
				SessionID string `json:"session_id"`
			}
			r.c.http("POST", "/sessions", map[string]any{"title": "seed 000 " + name}, &sess)
			r.sid = sess.SessionID
			r.w = watch(ctx, t, info, r.sid)
			r.c.connect(ctx, r.sid, false, workers)
			t.Cleanup(r.c.hangUp)
			body(r)
		})
	}

	scenario("plain", false, func(r *seed000Run) {
		srv.Enqueue(r.reply("Hello from the hub."))
		r.turn("Say hello", endOf("Hello from the hub."))
		r.finish("plain")
	})
	scenario("thinking", false, func(r *seed000Run) {
		srv.Enqueue(stream().Thinking("sig-000", "The user ", "wants a greeting.").Text("Hello, ", "thoughtfully.").Finish("end_turn", 10).Response())
		r.turn("Think, then greet", endOf("Hello, thoughtfully."))
		r.finish("thinking")
	})
	scenario("tool", false, func(r *seed000Run) { // S1: two messages in one turn
		srv.Enqueue(stream().Text("Calling list_dir.").ToolUse("toolu_000_ls", "list_dir", `{"path": "."}`).Finish("tool_use", 10).Response())
		srv.Enqueue(r.reply("The folder is empty."))
		r.turn("List the folder", endOf("The folder is empty."))
		r.finish("tool")
	})
	scenario("delegation", true, func(r *seed000Run) { // S5: the worker's messages are not the parent's
		srv.Enqueue(stream().Text("Delegating.").ToolUse("toolu_000_d", "delegate", `{"task": "count the files"}`).Finish("tool_use", 10).Response())
		srv.Enqueue(stream().Text("Calling nothing.").Finish("end_turn", 10).Response()) // the worker's own turn
		srv.Enqueue(r.reply("The worker is done."))
		r.turn("Delegate it", endOf("The worker is done."))
		r.finish("delegation")
	})
	scenario("cancel", false, func(r *seed000Run) {
		g := llmtest.NewGate()
		t.Cleanup(g.Release)
		srv.Enqueue(stream().BeginText().TextDelta("Counting: 1 2").Stall(g).TextDelta(" 3").EndBlock().Finish("end_turn", 10).Response())
		r.c.send(r.sid, "Count")
		r.c.readUntil(ctx, func(f map[string]any) bool { return hasText(f, "Counting: 1 2") })
		r.c.http("POST", "/sessions/"+r.sid+"/cancel", map[string]any{}, nil)
		r.c.readUntil(ctx, stopped("cancelled"))
		r.w.turnEnd(ctx, r.sid)
		r.finish("cancel")
	})
	scenario("cancel-tool", false, func(r *seed000Run) {
		srv.Enqueue(stream().Text("Sleeping.").ToolUse("toolu_000_sleep", "bash", `{"command": "echo started; sleep 100"}`).Finish("tool_use", 10).Response())
		r.c.send(r.sid, "Sleep")
		r.c.readUntil(ctx, func(f map[string]any) bool { return eventType(f) == "tool_execution_start" })
		r.c.http("POST", "/sessions/"+r.sid+"/cancel", map[string]any{}, nil)
		r.c.readUntil(ctx, func(f map[string]any) bool { return eventType(f) == "tool_execution_end" })
		r.w.turnEnd(ctx, r.sid)
		r.finish("cancel-tool")
	})
	scenario("three-turns", false, func(r *seed000Run) {
		for i := 1; i <= 3; i++ {
			srv.Enqueue(r.reply(fmt.Sprintf("Answer %d.", i)))
			r.turn(fmt.Sprintf("Question %d", i), endOf(fmt.Sprintf("Answer %d.", i)))
		}
		r.finish("three-turns")
	})
	scenario("failed", false, func(r *seed000Run) { // S3: a 401 ends visibly
		srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))
		r.turn("This fails", stopped("error"))
		r.finish("failed")
		var failed *s0Message
		for i := range r.c.messages {
			if m := &r.c.messages[i]; m.StopReason == "error" {
				failed = m
			}
		}
		if failed == nil || !strings.Contains(failed.ErrorMessage, "invalid x-api-key") {
			t.Errorf("no message ends the failed turn with stopReason error and its errorMessage: %v", r.c.state())
		}
	})
	scenario("retried", false, func(r *seed000Run) { // S4: one message, the partials replaced
		srv.Enqueue(llmtest.MidFail(model, 2, "Partial answer", "The retried answer.")...)
		r.turn("Try hard", endOf("The retried answer."))
		r.finish("retried")
	})
	scenario("compaction", false, func(r *seed000Run) {
		srv.Enqueue(r.reply("Something to compact."))
		r.turn("Say something", endOf("Something to compact."))
		r.c.http("POST", "/sessions/"+r.sid+"/compact", map[string]any{}, nil)
		r.c.readUntil(ctx, func(f map[string]any) bool { return eventType(f) == "compaction_end" })
		r.w.until(ctx, r.sid, "compaction.completed")
		r.finish("compaction")
		if r.c.compaction == nil {
			t.Error("no compaction_end reached the client")
		}
	})
	scenario("reconnect", false, func(r *seed000Run) { // S2: a resume continues the message it holds
		g := llmtest.NewGate()
		t.Cleanup(g.Release)
		srv.Enqueue(stream().BeginText().TextDelta("Hello, ").Stall(g).TextDelta("world.").EndBlock().Finish("end_turn", 10).Response())
		r.c.send(r.sid, "Greet me")
		r.c.readUntil(ctx, func(f map[string]any) bool { return hasText(f, "Hello, ") })
		r.c.hangUp()
		late := newSeed000Client(t, info) // joins now, with a snapshot
		late.connect(ctx, r.sid, true, false)
		t.Cleanup(late.hangUp)
		r.c.connect(ctx, r.sid, false, false) // resumes from its cursor
		g.Release()
		r.c.readUntil(ctx, endOf("Hello, world."))
		late.readUntil(ctx, endOf("Hello, world."))
		r.w.turnEnd(ctx, r.sid)
		r.finish("reconnect", late)
	})
}

// stopped is a predicate: a message_end with stopReason reason.
func stopped(reason string) func(map[string]any) bool {
	return func(f map[string]any) bool {
		ev, _ := f["event"].(map[string]any)
		msg, _ := ev["message"].(map[string]any)
		return str(ev["type"]) == "message_end" && str(msg["stopReason"]) == reason
	}
}

func eventType(f map[string]any) string {
	ev, _ := f["event"].(map[string]any)
	return str(ev["type"])
}

// hasText reports a message frame whose content's text is text.
func hasText(f map[string]any, text string) bool {
	ev, _ := f["event"].(map[string]any)
	msg, _ := ev["message"].(map[string]any)
	return blockText(contentBlocks(msg["content"])) == text
}
