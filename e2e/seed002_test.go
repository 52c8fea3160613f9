package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// seed002Client is a seed 002 client written from docs/protocol.md (§2
// auth, §4 attach/subscribe/cursors, §6 RPC, §7 seed002) only: it keeps
// messages by messageId, appends chunks, replaces the text on message.end,
// ignores a chunk without a start, and remembers the last eventId as its
// cursor.
type seed002Client struct {
	*dashClient
	texts   map[string]string
	roles   map[string]string
	ended   map[string]map[string]any
	ignored int
}

// connect attaches to the session and subscribes in seed002 (with the
// cursor, or a snapshot); it returns the ack.
func (c *seed002Client) connect(ctx context.Context, sid string, snapshot bool) map[string]any {
	c.t.Helper()
	var since any
	if c.cursor != "" && !snapshot {
		since = c.cursor
	}
	return c.dial(ctx, sid, map[string]any{"type": "subscribe", "filter": "preset:chat", "since": since, "snapshot": snapshot, "dialect": "seed002"})
}

// apply reduces one frame; it returns the frame type.
func (c *seed002Client) apply(m map[string]any) string {
	typ, _ := m["type"].(string)
	if id, ok := m["eventId"].(string); ok {
		c.cursor = id
	}
	p, _ := m["payload"].(map[string]any)
	id, _ := p["messageId"].(string)
	text := func() string {
		ct, _ := p["content"].(map[string]any)
		s, _ := ct["text"].(string)
		return s
	}
	switch typ {
	case "message.new":
		c.texts[id], c.roles[id] = text(), "user"
	case "message.start":
		c.texts[id], c.roles[id] = "", "agent"
	case "message.chunk":
		if _, ok := c.texts[id]; !ok {
			c.ignored++
			break
		}
		c.texts[id] += text()
	case "message.end":
		if _, ok := c.texts[id]; !ok {
			c.ignored++
			break
		}
		c.texts[id], c.ended[id] = text(), p
	}
	return typ
}

// TestSeed002Client: a seed 002 client that drops its connection inside a
// streamed message, resumes with its cursor and ends with the same message
// as the hub stored; a later snapshot in seed002 shows the same records.
func TestSeed002Client(t *testing.T) {
	root, ctx := repoContext(t, 2*time.Minute)
	srv := llmtest.NewServer(t)
	srv.AnswerTitles("seed 002")
	stall := llmtest.NewGate()
	t.Cleanup(stall.Release)
	srv.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 100, Output: 10}).
		BeginText().TextDelta("Hello, ").Stall(stall).TextDelta("world").TextDelta(".").EndBlock().Finish("end_turn", 10).Response())
	info := startHeadless(t, ctx, root, srv)
	c := &seed002Client{dashClient: newDashClient(t, info),
		texts: map[string]string{}, roles: map[string]string{}, ended: map[string]map[string]any{}}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	c.http("POST", "/sessions", map[string]any{"title": "seed 002 client"}, &sess)
	if ack := c.connect(ctx, sess.SessionID, false); ack["type"] != "subscribe_ack" || ack["dialect"] != "seed002" {
		t.Fatalf("ack %v", ack)
	}
	c.send(ctx, map[string]any{"type": "request", "requestId": "0190a0e4-7b3c-7000-8000-000000000001", "method": "submitTurn",
		"params": map[string]any{"agentId": sess.SessionID, "content": "Say hello"}})
	// Read until the first chunk, then drop the connection mid-message.
	for {
		m := c.read(ctx)
		if m["type"] == "response" && m["ok"] != true {
			t.Fatalf("submit: %v", m)
		}
		if c.apply(m) == "message.chunk" {
			break
		}
	}
	c.hangUp()
	// Resume with the cursor, let the provider finish, read to message.end.
	if ack := c.connect(ctx, sess.SessionID, false); ack["type"] != "subscribe_ack" {
		t.Fatalf("resume ack %v", ack)
	}
	stall.Release()
	var agentID string
	for agentID == "" {
		m := c.read(ctx)
		if c.apply(m) == "message.end" {
			agentID = m["payload"].(map[string]any)["messageId"].(string)
		}
	}
	c.hangUp()
	if c.ignored != 0 {
		t.Fatalf("%d frames came without their message.start", c.ignored)
	}
	if got := c.texts[agentID]; got != "Hello, world." {
		t.Fatalf("the resumed client shows %q", got)
	}
	if end := c.ended[agentID]; end["status"] != "complete" || end["isComplete"] != true || end["validated"] != true {
		t.Fatalf("message.end %v", end)
	}
	var users []string
	for id, r := range c.roles {
		if r == "user" {
			users = append(users, c.texts[id])
		}
	}
	if fmt.Sprint(users) != "[Say hello]" {
		t.Fatalf("user messages %v", users)
	}
	// A refresh (snapshot in seed002) shows the same two records.
	snapClient := &seed002Client{dashClient: newDashClient(t, info)}
	snapClient.connect(ctx, sess.SessionID, true)
	snap := snapClient.read(ctx)
	snapClient.hangUp()
	msgs, _ := snap["messages"].([]any)
	if snap["type"] != "snapshot" || len(msgs) != 2 {
		t.Fatalf("snapshot %v", snap)
	}
	last := msgs[1].(map[string]any)
	if last["messageId"] != agentID || last["role"] != "agent" || last["content"].(map[string]any)["text"] != "Hello, world." || last["status"] != "complete" {
		t.Fatalf("snapshot record %v", last)
	}
}
