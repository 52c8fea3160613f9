package hub_test

// The seed 004 and seed 002 dialects through the reference clients of
// seedclient_potpie_test.go and seedclient_indie_test.go — the authors'
// clients' behaviour and the seed documents' own — over the real hub, the
// real dashboard and a WebSocket, each client's final state compared with
// the history as that client loads it (GET /sessions/{id}/messages?dialect=).
// The rows of issue 41 (P1–P5, P7–P10, D1–D4) are named where checked.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"agenthub/app/llm/llmtest"
)

// seedRun is one session watched by the four clients: seed004 (Potpie's
// client and the document's) and seed002 (indie-dev-portal's and the
// document's), each dialect on its own WebSocket.
type seedRun struct {
	t      *testing.T
	h      *harness
	w      *wire
	sid    string
	s4, s2 *stream
	potpie *potpieClient
	doc4   *s004Doc
	indie  *indieClient
	doc2   *s002Doc
}

func newSeedRun(t *testing.T, opts ...harnessOpt) *seedRun {
	h := newHarness(t, opts...)
	w := h.serve()
	r := &seedRun{t: t, h: h, w: w, sid: h.session().ID, potpie: &potpieClient{}, doc4: &s004Doc{}, indie: newIndieClient(), doc2: &s002Doc{}}
	r.s4 = w.subscribe(r.sid, "seed004", "", false, nil)
	r.s2 = w.subscribe(r.sid, "seed002", "", false, nil)
	return r
}

// send submits text as each client's composer does.
func (r *seedRun) send(text string) string {
	r.potpie.send(text)
	r.doc4.begin()
	r.indie.send(text)
	return r.w.submit(r.sid, text)
}

func isEnd(m map[string]any) bool { return m["end"] != nil }

// read4 reads the seed004 stream to the end of the running turn (where
// the stream ended, if it never says: the clients' runs end there).
func (r *seedRun) read4() {
	if !r.s4.readUntil(isEnd, r.potpie, r.doc4) {
		r.potpie.endRun()
		r.doc4.endRun()
	}
}

// read4Until reads the seed004 stream through the first frame pred accepts.
func (r *seedRun) read4Until(pred func(map[string]any) bool) { r.s4.readUntil(pred, r.potpie, r.doc4) }

func (r *seedRun) read2Until(pred func(map[string]any) bool) { r.s2.readUntil(pred, r.indie, r.doc2) }

// endText is a seed002 message.end with text.
func endText(text string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		p, _ := m["payload"].(map[string]any)
		ct, _ := p["content"].(map[string]any)
		return m["type"] == "message.end" && ct["text"] == text
	}
}

// sentinel runs one more plain turn and reads both streams through it, so
// everything before it was read (seed002 says nothing at a turn's end).
func (r *seedRun) sentinel() {
	r.t.Helper()
	r.h.srv.Enqueue(textReply("ok."))
	r.send("still there?")
	r.read4()
	r.read2Until(endText("ok."))
}

// comparable is a card as both a live and a reloaded client show it
// (the live stream's accumulated output has no place in the history).
func comparable(ms []potpieMsg) []potpieMsg {
	out := make([]potpieMsg, len(ms))
	for i, m := range ms {
		m.Reasoning = strings.TrimSpace(m.Reasoning)
		cards := make([]potpieCard, len(m.Cards))
		for j, c := range m.Cards {
			c.Output, c.Stream = "", ""
			cards[j] = c
		}
		m.Cards = cards
		out[i] = m
	}
	return out
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// compareWithHistory checks every client against the history it loads.
func (r *seedRun) compareWithHistory() { r.compareWithHistoryBut(nil) }

// compareWithHistoryBut is compareWithHistory where each seed004 client's
// answer texts first pass through known (takes off what a live client is
// known to show beyond the history; nil: nothing).
func (r *seedRun) compareWithHistoryBut(known func(string) string) {
	r.t.Helper()
	if known == nil {
		known = func(s string) string { return s }
	}
	hist, err := potpieHistory(r.w.history(r.sid, query("dialect", "seed004", "start", "0", "limit", "1000")))
	live := comparable(r.potpie.thread)
	for i := range live {
		if live[i].Role == "assistant" {
			live[i].Text = known(live[i].Text)
		}
	}
	if err != nil {
		r.t.Errorf("P10: Potpie's history load: %v", err)
	} else if !reflect.DeepEqual(live, comparable(hist)) {
		r.t.Errorf("Potpie's client, live:\n%s\nafter a reload (history):\n%s", dump(live), dump(comparable(hist)))
	}
	if r.potpie.dropped != 0 {
		r.t.Errorf("Potpie's client dropped %d frames", r.potpie.dropped)
	}
	r.compareDoc4(hist, known)
	reloaded := newIndieClient()
	if err := reloaded.load(r.w.history(r.sid, query("dialect", "seed002"))); err != nil {
		r.t.Errorf("D3: indie-dev-portal's history load: %v", err)
	} else if live, hist := r.indie.view(), reloaded.view(); live != hist {
		r.t.Errorf("indie-dev-portal's client, live:\n%s\nafter a refresh (history):\n%s", live, hist)
	}
	if r.indie.typing {
		r.t.Error("indie-dev-portal's client still shows the typing indicator")
	}
}

// compareDoc4 checks the seed 004 document's client against the history
// Potpie's client loaded: each answer's text, and its calls' final status
// and summary.
func (r *seedRun) compareDoc4(hist []potpieMsg, known func(string) string) {
	r.t.Helper()
	// The document's client: each answer's text and its calls' final status
	// and summary as the history has them.
	var answers []potpieMsg
	for _, m := range hist {
		if m.Role == "assistant" {
			answers = append(answers, m)
		}
	}
	if len(answers) != len(r.doc4.answers) {
		r.t.Errorf("the seed 004 document's client has %d answers, the history %d", len(r.doc4.answers), len(answers))
		return
	}
	for i, a := range r.doc4.answers {
		if known(a.Text) != answers[i].Text || len(a.Order) != len(answers[i].Cards) {
			r.t.Errorf("the document's client, answer %d: %q with %d calls; history %q with %d", i, a.Text, len(a.Order), answers[i].Text, len(answers[i].Cards))
			continue
		}
		for j, id := range a.Order {
			c, hc := a.Calls[id], answers[i].Cards[j]
			if id != hc.ID || c.ToolResponse != hc.Preview && hc.Preview != hc.Command || c.Summary != hc.Summary || !c.Complete || c.Streaming {
				r.t.Errorf("the document's client, call %s: %+v; history %+v", id, *c, hc)
			}
		}
	}
}

// compareDoc2 checks the seed 002 document's client against the history
// (where it can know what happened: it has no error frame).
func (r *seedRun) compareDoc2() {
	r.t.Helper()
	reloaded := newIndieClient()
	if err := reloaded.load(r.w.history(r.sid, query("dialect", "seed002"))); err != nil {
		r.t.Errorf("D3: %v", err)
	} else if live, hist := r.doc2.view(), reloaded.view(); live != hist {
		r.t.Errorf("the seed 002 document's client, live:\n%s\nafter a refresh (history):\n%s", live, hist)
	}
}

// answer is the Potpie client's n-th assistant message.
func (r *seedRun) answer(n int) potpieMsg {
	r.t.Helper()
	for _, m := range r.potpie.thread {
		if m.Role == "assistant" {
			if n == 0 {
				return m
			}
			n--
		}
	}
	r.t.Errorf("no answer %d in %s", n, dump(r.potpie.thread))
	return potpieMsg{}
}

// card is a's i-th card (a zero card, with an error, when it has none).
func card(a potpieMsg, i int) potpieCard {
	if i < len(a.Cards) {
		return a.Cards[i]
	}
	return potpieCard{Running: true}
}

// liveCard is the running run's card id as Potpie's client shows it now.
func (r *seedRun) liveCard(id string) potpieCard {
	r.t.Helper()
	if r.potpie.run == nil || r.potpie.run.tools[id] == nil {
		r.t.Errorf("no card %s in the running answer", id)
		return potpieCard{}
	}
	return r.potpie.run.tools[id].card()
}

// hasPart is a frame predicate: a tool part of call id whose event type is
// typ and whose stream part contains text.
func hasPart(id, typ, text string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		tcs, _ := m["tool_calls"].([]any)
		for _, x := range tcs {
			tc, _ := x.(map[string]any)
			sp, _ := tc["stream_part"].(string)
			if tc["call_id"] == id && tc["event_type"] == typ && strings.Contains(sp, text) {
				return true
			}
		}
		return false
	}
}

// waitFor is a bash loop that waits for file name in the workspace.
func waitFor(name string) string {
	return fmt.Sprintf("while [ ! -e %s ]; do sleep 0.02; done", name)
}

// release creates file name in the workspace (what waitFor waits for).
func (r *seedRun) release(name string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.h.ws, name), nil, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Thinking, text, a tool with streamed output, two tools in one message
// (one failing): Potpie's client shows the answer text (P1), the thinking
// (P2), output live in a running card and one result at the end (P3), the
// failed call as an error (P4), the arguments (P5), the cards in the
// model's order; every client ends as the history shows it (P10, D3).
func TestSeedClientsAnswerThinkingAndTools(t *testing.T) {
	r := newSeedRun(t)
	usage := llmtest.AnthropicUsage{Input: 100}
	r.h.srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", usage).
		Thinking("sig-1", "Let me ", "think.").Text("Hello", " world.").Finish("end_turn", 20).Response())
	r.send("hi")
	r.read4()
	r.read2Until(endText("Hello world."))
	if a := r.answer(0); a.Text != "Hello world." || a.Reasoning != "Let me think." {
		t.Errorf("P1/P2: Potpie's client shows text %q, thinking %q", a.Text, a.Reasoning)
	}

	// A tool whose output streams while it runs.
	cmd := "echo line1; " + waitFor("go1") + "; echo line2"
	r.h.srv.Enqueue(
		llmtest.NewAnthropicStream("claude-sonnet-4-6", usage).Text("Running it.").
			ToolUse("tu_out", "bash", mustJSON(map[string]string{"command": cmd})).Finish("tool_use", 20).Response(),
		textReply("Both lines printed."))
	r.send("run it")
	r.read4Until(hasPart("tu_out", "result_delta", "line1"))
	if c := r.liveCard("tu_out"); !c.Running || c.IsError || !strings.Contains(c.Stream, "line1") ||
		c.Args != jsonIndent(map[string]any{"command": cmd}) {
		t.Errorf("P3/P5: while it runs the card shows %s", dump(c))
	}
	r.release("go1")
	r.read4()
	r.read2Until(endText("Both lines printed."))
	if c := card(r.answer(1), 0); c.Running || c.IsError || c.Output != "line1\nline2\n" || c.EventType != "result" || c.Preview == "" {
		t.Errorf("P3: the finished card %s", dump(c))
	}

	// Two tools in one message, the second failing.
	r.h.srv.Enqueue(
		toolReply([3]string{"tu_a", "list_dir", `{"path":"."}`}, [3]string{"tu_b", "bash", `{"command":"echo two; exit 3"}`}),
		textReply("Two tools ran."))
	r.send("two at once")
	r.read4()
	r.read2Until(endText("Two tools ran."))
	a := r.answer(2)
	if len(a.Cards) != 2 || card(a, 0).ID != "tu_a" || card(a, 1).ID != "tu_b" {
		t.Errorf("the cards of two calls in one message, in the model's order: %s", dump(a.Cards))
	}
	for _, c := range a.Cards {
		if c.IsError != (c.ID == "tu_b") {
			t.Errorf("P4: call %s (the second exits 3) shows isError %v: %s", c.ID, c.IsError, dump(c))
		}
	}
	r.sentinel()
	r.compareWithHistory()
	r.compareDoc2()
}

// A delegation whose worker runs a tool: the worker's call is a card of its
// own after the delegation's, the delegation's stream holds the worker's
// two messages as two paragraphs, the tool name is delegate_to_… (P7). A
// worker's call ids are minted by the app (ahcall_…).
func TestSeedClientsDelegationWithWorkerTool(t *testing.T) {
	r := newSeedRun(t)
	usage := llmtest.AnthropicUsage{Input: 100}
	r.h.srv.Enqueue(
		llmtest.NewAnthropicStream("claude-sonnet-4-6", usage).Text("Delegating.").
			ToolUse("tu_d", "delegate", `{"task":"run the check"}`).Finish("tool_use", 20).Response(),
		llmtest.NewAnthropicStream("claude-sonnet-4-6", usage).Text("Calling bash.").
			ToolUse("tu_w", "bash", `{"command":"echo w1"}`).Finish("tool_use", 20).Response(),
		textReply("done:w1"),
		textReply("The worker is done."))
	r.send("delegate it")
	r.read4()
	r.read2Until(endText("The worker is done."))
	a := r.answer(0)
	deleg, worker := card(a, 0), card(a, 1)
	if len(a.Cards) != 2 || deleg.Name != "delegate_to_subagent" || deleg.EventType != "delegation_result" ||
		!strings.HasPrefix(worker.ID, "ahcall_") || worker.Name != "bash" || worker.Running || worker.Output != "w1\n" {
		t.Errorf("P7: the cards %s", dump(a.Cards))
	}
	if got := deleg.Output; got != "Calling bash.\n\ndone:w1" {
		t.Errorf("P7: the delegation's stream %q", got)
	}
	if a := r.answer(0); a.Text != "Delegating.\n\nThe worker is done." {
		t.Errorf("the answer %q", a.Text)
	}
	r.sentinel()
	r.compareWithHistory()
	r.compareDoc2()
}

// Cancel while the model writes, and while a tool runs: seed002 ends the
// message with a visible note (D2); Potpie's card of the stopped call is an
// error, not "Running…" (P3); both as the history shows.
func TestSeedClientsCancel(t *testing.T) {
	r := newSeedRun(t)
	g := llmtest.NewGate()
	t.Cleanup(g.Release)
	r.h.srv.Enqueue(stalledText(g, "I'll start by"))
	r.send("go")
	r.read2Until(func(m map[string]any) bool { return m["type"] == "message.chunk" })
	<-g.Reached()
	r.w.cancel(r.sid)
	r.read4()
	r.read2Until(func(m map[string]any) bool { return m["type"] == "message.end" })
	if last := r.indie.msgs[len(r.indie.msgs)-1]; !strings.Contains(last.Text, "cancelled") {
		t.Errorf("D2: indie-dev-portal shows the cancelled message as an ordinary one: %q", last.Text)
	}

	r.h.srv.Enqueue(toolReply([3]string{"tu_sh", "bash", mustJSON(map[string]string{"command": "echo started; " + waitFor("never")})}))
	r.send("run forever")
	r.read4Until(hasPart("tu_sh", "result_delta", "started"))
	r.w.cancel(r.sid)
	r.read4()
	r.read2Until(endText(""))
	if c := card(r.answer(1), 0); c.Running || !c.IsError {
		t.Errorf("P3: after the cancel the card %s", dump(c))
	}
	r.sentinel()
	r.compareWithHistory()
	r.compareDoc2()
}

// A turn whose model call fails (401): Potpie's answer shows the error
// (P8); indie-dev-portal gets STREAMING_ERROR and stops typing (D1).
func TestSeedClientsFailedTurn(t *testing.T) {
	r := newSeedRun(t)
	r.h.srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))
	r.send("hi")
	r.read4()
	r.read2Until(func(m map[string]any) bool { return m["type"] == "error" })
	if a := r.answer(0); !strings.Contains(a.Text, "*The turn failed (auth):") || !strings.Contains(a.Text, "invalid x-api-key") {
		t.Errorf("P8: Potpie's answer to a failed turn %q", a.Text)
	}
	if r.indie.typing || !strings.Contains(r.indie.err, "invalid x-api-key") {
		t.Errorf("D1: indie-dev-portal typing %v, error %q", r.indie.typing, r.indie.err)
	}
	r.sentinel()
	r.compareWithHistory()
	r.compareDoc2()
}

// lastEventID is the cursor a client keeps: the eventId of the last frame
// it read.
type cursorKeeper struct{ id string }

func (k *cursorKeeper) apply(m map[string]any) error {
	if id, ok := m["eventId"].(string); ok {
		k.id = id
	}
	return nil
}

// hasText is a frame predicate: seed004 answer text or a seed002 chunk
// containing s.
func hasText(s string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		if t, ok := m["message"].(string); ok && strings.Contains(t, s) {
			return true
		}
		p, _ := m["payload"].(map[string]any)
		ct, _ := p["content"].(map[string]any)
		t, _ := ct["text"].(string)
		return m["type"] == "message.chunk" && strings.Contains(t, s)
	}
}

// Clients that drop their connection mid-turn and come back: Potpie's
// (with its cursor inside a running tool and inside the second message,
// and after a reload without one) resumes into a fresh answer that has
// everything before the cursor (P9) with the call's arguments, not its
// output (P5); indie-dev-portal's, resuming with its cursor inside a
// message, and after a refresh that loaded the completed message from the
// history, shows the message once (D4). Each ends as the live client and
// the history.
func TestSeedClientsReconnect(t *testing.T) {
	r := newSeedRun(t)
	usage := llmtest.AnthropicUsage{Input: 100}
	cmd := "echo out1; " + waitFor("go") + "; echo out2"
	g := llmtest.NewGate()
	t.Cleanup(g.Release)
	second := llmtest.NewAnthropicStream("claude-sonnet-4-6", usage).BeginText()
	var full strings.Builder
	for i := range 40 {
		if i == 10 {
			second.Stall(g)
		}
		second.TextDelta(fmt.Sprintf("s%d ", i))
		fmt.Fprintf(&full, "s%d ", i)
	}
	r.h.srv.Enqueue(
		llmtest.NewAnthropicStream("claude-sonnet-4-6", usage).Text("Calling bash.").
			ToolUse("tu_r", "bash", mustJSON(map[string]string{"command": cmd})).Finish("tool_use", 20).Response(),
		second.EndBlock().Finish("end_turn", 40).Response())

	midTool, midText := &potpieClient{}, &potpieClient{}
	s2, s3 := r.w.subscribe(r.sid, "seed004", "", false, nil), r.w.subscribe(r.sid, "seed004", "", false, nil)
	sameTab, refreshed := newIndieClient(), newIndieClient()
	d2, d3 := r.w.subscribe(r.sid, "seed002", "", false, nil), r.w.subscribe(r.sid, "seed002", "", false, nil)
	k2, k3, kd2, kd3 := &cursorKeeper{}, &cursorKeeper{}, &cursorKeeper{}, &cursorKeeper{}
	for _, c := range []*potpieClient{midTool, midText} {
		c.send("go")
	}
	sameTab.send("go")
	refreshed.send("go")
	r.send("go")

	s2.readUntil(hasPart("tu_r", "result_delta", "out1"), midTool, k2)
	s2.close()
	r.release("go")
	<-g.Reached()
	s3.readUntil(hasText("s9"), midText, k3)
	s3.close()
	d2.readUntil(hasText("s9"), sameTab, kd2)
	d2.close()
	d3.readUntil(hasText("s9"), refreshed, kd3)
	d3.close()

	// Come back: Potpie's with its cursors, and a reloaded page (history,
	// then a snapshot subscription) without one; indie-dev-portal's in the
	// same tab with its cursor.
	s2 = r.w.subscribe(r.sid, "seed004", k2.id, false, nil)
	midTool.resume()
	s3 = r.w.subscribe(r.sid, "seed004", k3.id, false, nil)
	midText.resume()
	hist, err := potpieHistory(r.w.history(r.sid, query("dialect", "seed004")))
	if err != nil {
		t.Errorf("P10: %v", err)
	}
	reloaded := &potpieClient{thread: hist}
	s4 := r.w.subscribe(r.sid, "seed004", "", true, nil)
	reloaded.resume()
	d2 = r.w.subscribe(r.sid, "seed002", kd2.id, false, nil)
	// indie-dev-portal refreshed while the message streams, without a
	// cursor: the history (without the message), then a snapshot
	// subscription that opens it.
	noCursor := newIndieClient()
	if err := noCursor.load(r.w.history(r.sid, query("dialect", "seed002"))); err != nil {
		t.Errorf("D3: %v", err)
	}
	d4 := r.w.subscribe(r.sid, "seed002", "", true, nil)
	g.Release()

	r.read4()
	want := "Calling bash.\n\n" + full.String()
	r.read2Until(endText(full.String()))
	if a := r.answer(0); a.Text != want {
		t.Errorf("the live answer %q", a.Text)
	}
	for name, c := range map[string]struct {
		p *potpieClient
		s *stream
	}{"cursor in the tool": {midTool, s2}, "cursor in the second message": {midText, s3}, "reload": {reloaded, s4}} {
		c.s.readUntil(isEnd, c.p)
		if !reflect.DeepEqual(c.p.thread, r.potpie.thread) {
			t.Errorf("P9/P5: Potpie's client resumed (%s):\n%s\nlive:\n%s", name, dump(c.p.thread), dump(r.potpie.thread))
		}
	}
	d2.readUntil(endText(full.String()), sameTab)
	if got, live := sameTab.view(), r.indie.view(); got != live {
		t.Errorf("D4: indie-dev-portal resumed with its cursor:\n%s\nlive:\n%s", got, live)
	}
	d4.readUntil(endText(full.String()), noCursor)
	if got, live := noCursor.view(), r.indie.view(); got != live {
		t.Errorf("D3: indie-dev-portal refreshed mid-message without a cursor:\n%s\nlive:\n%s", got, live)
	}
	// The refresh after the message completed: the history holds it; the
	// page subscribes with its cursor and the ids it loaded.
	if err := refreshed.load(r.w.history(r.sid, query("dialect", "seed002"))); err != nil {
		t.Errorf("D3: %v", err)
	}
	var known []string
	for _, m := range refreshed.msgs {
		known = append(known, m.ID)
	}
	d3 = r.w.subscribe(r.sid, "seed002", kd3.id, false, known)
	d3.readUntil(endText(full.String()), refreshed)
	if got, live := refreshed.view(), r.indie.view(); got != live {
		t.Errorf("D4: indie-dev-portal refreshed while the message completed:\n%s\nlive:\n%s", got, live)
	}
	r.sentinel()
	r.compareWithHistory()
	r.compareDoc2()
}

// A stream that breaks and is retried (llmtest.MidFail: each broken attempt
// streams "Partial answer", the retry answers something else), then one
// that breaks on every attempt: Potpie's client shows the partial once —
// it cannot take text back, so the retry that says something else follows
// it as a new paragraph — and the answer ends with the retry's note (P8);
// indie-dev-portal's shows the one retried message, and removes the
// message of a call that failed for good on STREAMING_ERROR (D1); all as
// the history shows (Potpie's less the partial the retry replaced).
func TestSeedClientsRetriedStream(t *testing.T) {
	r := newSeedRun(t)
	r.h.srv.Enqueue(llmtest.MidFail("claude-sonnet-4-6", 2, "Partial answer", "The retried answer.")...)
	r.send("hi")
	r.read4()
	note := "*(retried 2× after overloaded)*"
	r.read2Until(endText("The retried answer.\n\n_(retried 2× after overloaded)_"))
	if a := r.answer(0); strings.Count(a.Text, "Partial answer") != 1 || a.Text != "Partial answer\n\nThe retried answer.\n\n"+note {
		t.Errorf("P8: Potpie's answer to a retried stream %q", a.Text)
	}
	if got := r.indie.view(); strings.Count(got, "agent:") != 1 || strings.Contains(got, "Partial answer") {
		t.Errorf("D1: indie-dev-portal shows the retried stream as\n%s", got)
	}

	fails := llmtest.MidFail("claude-sonnet-4-6", 4, "Partial answer", "never")
	r.h.srv.Enqueue(fails[:4]...)
	r.send("again")
	r.read4()
	r.read2Until(func(m map[string]any) bool { return m["type"] == "error" })
	if a := r.answer(1); strings.Count(a.Text, "Partial answer") != 1 || !strings.Contains(a.Text, "*The turn failed (overloaded):") {
		t.Errorf("P8: Potpie's answer to a stream that broke on every attempt %q", a.Text)
	}
	if r.indie.typing || r.indie.err == "" || strings.Count(r.indie.view(), "Partial answer") != 0 {
		t.Errorf("D1: indie-dev-portal after a stream that broke on every attempt: typing %v, error %q,\n%s", r.indie.typing, r.indie.err, r.indie.view())
	}
	r.sentinel()
	// Potpie's client keeps the first attempt's partial it showed before the
	// retry said something else; the history holds the retried answer.
	r.compareWithHistoryBut(func(text string) string {
		if strings.HasPrefix(text, "Partial answer\n\nThe retried answer.") {
			return strings.TrimPrefix(text, "Partial answer\n\n")
		}
		return text
	})
}
