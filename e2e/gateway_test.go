package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
	"agenthub/store"
)

// gatewayRun is one failure scenario: a gateway process, a hub process
// linked to it, the fake provider streaming a reply held by a gate after
// its tenth delta, and a paired device subscribed to a session.
type gatewayRun struct {
	t               *testing.T
	ctx             context.Context
	bin             string
	srv             *llmtest.Server
	gate            *llmtest.Gate
	gw, hub         *proc
	gwURL, gwListen string
	dataDir, ws     string
	info            dashboardInfo
	dev             *device
	sid, sub        string
	got             []gwEvent
}

func newGatewayRun(t *testing.T) *gatewayRun {
	t.Helper()
	root, ctx := repoContext(t, 2*time.Minute)
	r := &gatewayRun{t: t, ctx: ctx, bin: headlessBin(t, ctx, root), srv: llmtest.NewServer(t), gate: llmtest.NewGate()}
	t.Cleanup(r.gate.Release)
	r.srv.AnswerTitles("over the gateway")
	s := llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 100, Output: 20}).BeginText()
	for i := range 20 {
		if i == 10 {
			s = s.Stall(r.gate)
		}
		s = s.TextDelta(word(i))
	}
	r.srv.Enqueue(s.EndBlock().Finish("end_turn", 20).Response())
	r.gw, r.gwURL = startGatewayProc(t, ctx, r.bin, "127.0.0.1:0")
	u, _ := url.Parse(r.gwURL)
	r.gwListen = u.Host
	r.dataDir, r.ws = apptest.Dirs(t)
	r.hub, r.info = startHubProc(t, ctx, r.bin, r.dataDir, r.ws, r.srv.URL, r.gwURL)
	r.dev = pairDevice(t, ctx, r.info, r.gwURL, "laptop-7f3")
	var sess store.Session
	r.dev.must(ctx, "createSession", map[string]any{"title": "gateway"}, &sess)
	r.sid = sess.ID
	r.sub = r.dev.subscribe(ctx, r.sid, "")
	r.dev.must(ctx, "submitTurn", map[string]any{"agentId": r.sid, "content": "count for me"}, nil)
	// Ten deltas reach the device; the eleventh waits at the gate.
	for deltas := 0; deltas < 10; {
		ev, err := r.dev.next(ctx, r.sub)
		if err != nil {
			t.Fatal(err)
		}
		r.got = append(r.got, ev)
		if ev.Type == "text.delta" {
			deltas++
		}
	}
	select {
	case <-r.gate.Reached():
	case <-ctx.Done():
		t.Fatal("the stream never reached the gate")
	}
	return r
}

func word(i int) string { return strings.Repeat(string(rune('a'+i)), 3) + " " }

// cursor is the last event the device processed.
func (r *gatewayRun) cursor() string { return r.got[len(r.got)-1].ID }

// exactlyOnce checks what the device got across its subscriptions: no
// event twice, in log order, and every event of the log from its first to
// its last — read back by a fresh subscription replaying from the first.
func (r *gatewayRun) exactlyOnce() {
	r.t.Helper()
	seen := map[string]bool{}
	for i, ev := range r.got {
		if seen[ev.ID] {
			r.t.Fatalf("event %s (%s) delivered twice", ev.ID, ev.Type)
		}
		seen[ev.ID] = true
		if i > 0 && ev.ID <= r.got[i-1].ID {
			r.t.Fatalf("event %s after %s: out of order", ev.ID, r.got[i-1].ID)
		}
	}
	sub := r.dev.subscribe(r.ctx, r.sid, r.got[0].ID)
	want := r.got[0].ID
	for _, ev := range r.got[1:] {
		got, err := r.dev.next(r.ctx, sub)
		for err == nil && got.Type == "hub_online" {
			got, err = r.dev.next(r.ctx, sub)
		}
		if err != nil {
			r.t.Fatalf("replay after %s: %v", want, err)
		}
		if got.ID != ev.ID {
			r.t.Fatalf("the log has %s (%s) after %s, the device got %s (%s): lost or extra", got.ID, got.Type, want, ev.ID, ev.Type)
		}
		want = got.ID
	}
}

// text is the streamed answer the device assembled.
func (r *gatewayRun) text() string {
	var b strings.Builder
	for _, ev := range r.got {
		if ev.Type == "text.delta" {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

// awaitHubOnline reads the device's messages until the hub says it is back.
func (r *gatewayRun) awaitHubOnline() {
	r.t.Helper()
	for {
		ev, err := r.dev.next(r.ctx, "-")
		if err != nil {
			r.t.Fatalf("the hub never came back: %v", err)
		}
		if ev.Type == "hub_online" {
			return
		}
	}
}

// TestGatewayHubKilledMidStream: the hub is killed -9 while a reply
// streams to a remote device; after it restarts (same data dir) the device,
// told hub_online, verifies again and resumes from its cursor: every event
// after the cursor exactly once — the recovery that closes the interrupted
// turn included — and nothing the device saw is lost.
func TestGatewayHubKilledMidStream(t *testing.T) {
	r := newGatewayRun(t)
	r.hub.kill()
	r.hub, r.info = startHubProc(t, r.ctx, r.bin, r.dataDir, r.ws, r.srv.URL, r.gwURL)
	r.awaitHubOnline()
	r.dev.must(r.ctx, "verify", map[string]any{"token": r.dev.token}, nil)
	r.sub = r.dev.subscribe(r.ctx, r.sid, r.cursor())
	r.dev.until(r.ctx, r.sub, "turn.cancelled", &r.got)
	r.exactlyOnce()
	if got := r.text(); got != "aaa bbb ccc ddd eee fff ggg hhh iii jjj " {
		t.Fatalf("streamed text %q", got)
	}
	var page struct {
		Messages []map[string]any `json:"messages"`
	}
	r.dev.must(r.ctx, "getAgentMessages", map[string]any{"agentId": r.sid}, &page)
	if n := len(page.Messages); n != 2 || page.Messages[1]["status"] != "interrupted" {
		t.Fatalf("history after the crash: %v", page.Messages)
	}
}

// TestGatewayRestarted: the gateway is killed -9 mid-stream and started
// again on the same address: the hub and the device reconnect by
// themselves (backoff), the device verifies again (the SDK's auto-verify)
// and resumes from its cursor; the reply finishes with nothing lost or
// duplicated.
func TestGatewayRestarted(t *testing.T) {
	r := newGatewayRun(t)
	r.gw.kill()
	r.gw, _ = startGatewayProc(t, r.ctx, r.bin, r.gwListen)
	r.dev.awaitVerified(r.ctx)
	r.sub = r.dev.subscribe(r.ctx, r.sid, r.cursor())
	r.gate.Release()
	r.dev.until(r.ctx, r.sub, "turn.completed", &r.got)
	r.exactlyOnce()
	if got := r.text(); got != "aaa bbb ccc ddd eee fff ggg hhh iii jjj kkk lll mmm nnn ooo ppp qqq rrr sss ttt " {
		t.Fatalf("streamed text %q", got)
	}
}

// TestGatewayClientOffline: the device goes away mid-stream (its process
// ends, its socket closes) while the turn finishes; when it comes back —
// the same id and token, a new connection — it verifies and catches up
// from its cursor: the rest of the turn exactly once. (The time away does
// not matter up to --delta-retention, 1 h by default; no clock is waited on.)
func TestGatewayClientOffline(t *testing.T) {
	r := newGatewayRun(t)
	r.dev.Close()
	r.gate.Release()
	// The hub finishes the turn while the device is away: a local client
	// sees it end.
	w := watcher{newDashClient(t, r.info)}
	w.dial(r.ctx, r.sid, map[string]any{"type": "subscribe", "filter": "preset:full", "since": r.cursor(), "snapshot": false})
	t.Cleanup(w.hangUp)
	w.until(r.ctx, r.sid, "turn.completed")
	r.dev = connectDevice(t, r.gwURL, "laptop-7f3", r.dev.hubID, r.dev.token)
	r.dev.awaitVerified(r.ctx)
	r.sub = r.dev.subscribe(r.ctx, r.sid, r.cursor())
	r.dev.until(r.ctx, r.sub, "turn.completed", &r.got)
	r.exactlyOnce()
	if got := r.text(); got != "aaa bbb ccc ddd eee fff ggg hhh iii jjj kkk lll mmm nnn ooo ppp qqq rrr sss ttt " {
		t.Fatalf("streamed text %q", got)
	}
}

// TestGatewayInBrowser runs the real UI through the gateway in chromium
// (gateway.e2e.mjs): paired by the link the hub mints, allowed in the
// hub's own page, then a streamed answer, an approval, a cancel, search
// and the history after a reload.
func TestGatewayInBrowser(t *testing.T) {
	root, node, ctx := browserTest(t, 4*time.Minute)
	srv := llmtest.NewServer(t)
	srv.AnswerTitles("Through the gateway")
	usage := llmtest.AnthropicUsage{Input: 900, Output: 30}
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).BeginText().TextDelta("Hello through ").TextDelta("the gateway, zebrafish.").EndBlock().Finish("end_turn", 10).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Running it.").
		ToolUse("toolu_gw_1", "bash", `{"command": "echo through-gateway"}`).Finish("tool_use", 20).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("The command ran.").Finish("end_turn", 10).Response())
	stall := llmtest.NewGate()
	t.Cleanup(stall.Release)
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).BeginText().TextDelta("Counting: 1 2 3").Stall(stall).TextDelta(" 4").EndBlock().Finish("end_turn", 10).Response())
	bin := headlessBin(t, ctx, root)
	_, gwURL := startGatewayProc(t, ctx, bin, "127.0.0.1:0")
	dataDir, ws := apptest.Dirs(t)
	_, info := startHubProc(t, ctx, bin, dataDir, ws, srv.URL, gwURL, "--approval-mode", "ask")
	var pv struct {
		Link string `json:"link"`
	}
	rpcLocal(t, info, "pairDevice", map[string]any{"rights": "full"}, &pv)
	if !strings.HasPrefix(pv.Link, gwURL+"/#hub=") {
		t.Fatalf("pairing link %q", pv.Link)
	}
	t.Setenv("E2E_HUB_URL", info.URL)
	runScenario(t, ctx, root, node, "gateway.e2e.mjs", dashboardInfo{URL: pv.Link}, nil)
}
