package hub_test

// Recorded frame traces for the frontend reducer tests
// (frontend/test/traces/recorded/*.json). Each scenario subscribes to the
// real Bus with preset:full and snapshot:true before the turn, drives the hub
// like the other tests in this package, and captures the exact server frames
// (subscribe_ack, snapshot, events) until the turn ends plus the
// session.updated that follows. Run-to-run variation (ULIDs, timestamps,
// durations, temp paths) is normalised, then the capture is compared with the
// file; -update-traces rewrites the files.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"agenthub/app/hub"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

var updateTraces = flag.Bool("update-traces", false, "rewrite frontend/test/traces/recorded/*.json from this run")

// tracesDir is where the recorded traces live, relative to this package.
const tracesDir = "../../frontend/test/traces/recorded"

// capture is one subscription's raw frames (the ack first).
type capture struct {
	t      *testing.T
	sub    *ipc.Subscription
	frames [][]byte
}

// record subscribes to sessionID with preset:full; snapshot and since as given.
func (h *harness) record(sessionID string, snapshot bool, since *string) *capture {
	h.t.Helper()
	sub, err := h.bus.Subscribe(context.Background(), ipc.SubscribeRequest{
		SessionID: sessionID, Filter: json.RawMessage(`"preset:full"`), Snapshot: snapshot, Since: since, Name: "recorder",
	})
	if err != nil {
		h.t.Fatalf("Subscribe: %v", err)
	}
	h.t.Cleanup(sub.Close)
	return &capture{t: h.t, sub: sub, frames: [][]byte{sub.Ack().JSON()}}
}

// frameHead is the part of a frame the recorder looks at.
type frameHead struct {
	Type  string `json:"type"`
	Event ev     `json:"event"`
}

// next appends the next frame and returns its head.
func (c *capture) next() frameHead {
	c.t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	select {
	case f, ok := <-c.sub.Frames():
		if !ok {
			c.t.Fatalf("subscription ended: %v", c.sub.Err())
		}
		var fh frameHead
		if err := json.Unmarshal(f.Data, &fh); err != nil {
			c.t.Fatalf("frame %s: %v", f.Data, err)
		}
		c.frames = append(c.frames, append([]byte(nil), f.Data...))
		return fh
	case <-timer.C:
		c.t.Fatalf("no frame within %v after %d frames", waitLimit, len(c.frames))
	}
	return frameHead{}
}

// until reads frames up to and including the first event satisfying pred.
func (c *capture) until(pred func(ev) bool) ev {
	c.t.Helper()
	for {
		if fh := c.next(); fh.Type == "event" && pred(fh.Event) {
			return fh.Event
		}
	}
}

func (c *capture) untilType(typ string) ev {
	c.t.Helper()
	return c.until(func(e ev) bool { return e.Type == typ })
}

// turnEnd reads through the turn end of sid and the session.updated after it.
func (c *capture) turnEnd(sid string) {
	c.t.Helper()
	c.until(func(e ev) bool {
		return e.SessionID == sid && (e.Type == ipc.TypeTurnCompleted || e.Type == ipc.TypeTurnCancelled)
	})
	c.until(func(e ev) bool { return e.SessionID == sid && e.Type == ipc.TypeSessionUpdated })
}

// eventIDs returns the ids of the captured event frames in order.
func (c *capture) eventIDs() []string {
	var ids []string
	for _, f := range c.frames {
		var fh frameHead
		if json.Unmarshal(f, &fh) == nil && fh.Type == "event" {
			ids = append(ids, fh.Event.ID)
		}
	}
	return ids
}

// reconnect is a second subscription with since = the middle event of the
// main capture: its ack and the replayed frames.
func (h *harness) reconnect(sid string, main *capture) (since string, frames [][]byte) {
	h.t.Helper()
	ids := main.eventIDs()
	since = ids[len(ids)/2]
	c := h.record(sid, false, &since)
	n := c.sub.Ack().ReplayEventCount
	if n != len(ids)-len(ids)/2-1 {
		h.t.Fatalf("reconnect since %s replays %d events, want %d", since, n, len(ids)-len(ids)/2-1)
	}
	for i := 0; i < n; i++ {
		c.next()
	}
	return since, c.frames
}

// resync is a fresh subscription with snapshot:true after the run: its ack
// and snapshot.
func (h *harness) resync(sid string) [][]byte {
	h.t.Helper()
	c := h.record(sid, true, nil)
	if fh := c.next(); fh.Type != "snapshot" {
		h.t.Fatalf("resync: first frame is %s", fh.Type)
	}
	return c.frames
}

// traceExpect is what the TS test checks the reducer's final state against,
// computed from the store after the run.
type traceExpect struct {
	AssistantTexts     []string                 `json:"assistant_texts"`
	Messages           []expectMessage          `json:"messages"`
	Tools              map[string]string        `json:"tools"`
	Turns              []string                 `json:"turns"`
	CostUSD            float64                  `json:"cost_usd"`
	ContextStartOffset int64                    `json:"context_start_offset"`
	Delegations        map[string]string        `json:"delegations,omitempty"`
	Compaction         *ipc.CompactionCompleted `json:"compaction,omitempty"`
}

type expectMessage struct {
	ID     string `json:"id"`
	Role   string `json:"role"`
	Status string `json:"status"`
}

// expectFrom computes the expectations from the store.
func (h *harness) expectFrom(sid string) traceExpect {
	h.t.Helper()
	x := traceExpect{AssistantTexts: []string{}, Messages: []expectMessage{}, Tools: map[string]string{}, Turns: []string{}}
	names := map[string]string{}
	for _, m := range h.messages(sid) {
		x.Messages = append(x.Messages, expectMessage{ID: m.ID, Role: m.Role, Status: m.Status})
		var text strings.Builder
		for _, b := range m.Content {
			switch {
			case m.Role == store.RoleAssistant && b.Type == store.BlockText:
				text.WriteString(b.Text)
			case m.Role == store.RoleAssistant && b.Type == store.BlockToolCall:
				names[b.ID] = b.Name
			}
		}
		switch m.Role {
		case store.RoleAssistant:
			x.AssistantTexts = append(x.AssistantTexts, text.String())
		case store.RoleToolResult:
			// A cancelled call's stored result is a complete, is_error
			// message with the cancel text ("cancelled by user").
			status := "done"
			switch {
			case m.Status == store.StatusCancelled, m.IsError && len(m.Content) == 1 && strings.HasPrefix(m.Content[0].Text, "cancelled"):
				status = "cancelled"
			case m.IsError:
				status = "error"
			}
			x.Tools[m.ToolCallID] = status
			if names[m.ToolCallID] == "delegate" {
				if x.Delegations == nil {
					x.Delegations = map[string]string{}
				}
				var out strings.Builder
				for _, b := range m.Content {
					out.WriteString(b.Text)
				}
				x.Delegations[m.ToolCallID] = out.String()
			}
		}
	}
	turns, err := h.db.Turns(sid)
	if err != nil {
		h.t.Fatalf("Turns: %v", err)
	}
	for _, tr := range turns {
		x.Turns = append(x.Turns, tr.Status)
	}
	sess, err := h.db.Session(sid)
	if err != nil {
		h.t.Fatalf("Session: %v", err)
	}
	x.CostUSD, x.ContextStartOffset = sess.CostSoFarUSD, sess.ContextStartOffset
	return x
}

// scenario drives one recorded run: it returns the session and the main capture.
type scenario struct {
	name string
	opts []harnessOpt
	run  func(t *testing.T, h *harness) (store.Session, *capture)
}

func TestRecordedTraces(t *testing.T) {
	for _, sc := range traceScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			h := newHarness(t, sc.opts...)
			s, main := sc.run(t, h)
			since, replay := h.reconnect(s.ID, main)
			resync := h.resync(s.ID)
			x := h.expectFrom(s.ID)
			if sc.name == "compaction" {
				for _, f := range main.frames {
					var fh frameHead
					if json.Unmarshal(f, &fh) == nil && fh.Event.Type == ipc.TypeCompactionComplete {
						var cc ipc.CompactionCompleted
						fh.Event.decode(t, &cc)
						x.Compaction = &cc
					}
				}
			}
			got := normaliseTrace(t, sc.name, h, s.ID, main.frames, since, replay, resync, x)
			path := filepath.Join(tracesDir, sc.name+".json")
			if *updateTraces {
				if err := os.MkdirAll(tracesDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update-traces to record)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from this run (rerun with -update-traces if the change is intended):\n%s", path, lineDiff(string(want), string(got)))
			}
		})
	}
}

func traceScenarios() []scenario {
	// start creates the session and subscribes (snapshot) before the turn.
	start := func(h *harness) (store.Session, *capture) {
		s := h.session()
		return s, h.record(s.ID, true, nil)
	}
	cancel := func(t *testing.T, h *harness, sid, turnID string) {
		t.Helper()
		if err := h.hub.CancelTurn(context.Background(), sid, turnID, "user_cancel"); err != nil {
			t.Fatal(err)
		}
	}
	return []scenario{
		{name: "plain-turn", run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			h.srv.Enqueue(textReply("Hello", ", ", "world"))
			h.submit(s.ID, "hi")
			c.turnEnd(s.ID)
			return s, c
		}},
		{name: "tool-loop", run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			h.srv.Enqueue(
				toolReply([3]string{"tu_1", "write_file", `{"path":"notes.md","content":"alpha\nbeta\n"}`}),
				toolReply([3]string{"tu_2", "read_file", `{"path":"notes.md"}`}),
				textReply("The file has two lines."),
			)
			h.submit(s.ID, "write and read notes.md")
			c.turnEnd(s.ID)
			return s, c
		}},
		{name: "cancel-mid-llm", run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			g := llmtest.NewGate()
			h.srv.Enqueue(stalledText(g, "I'll start by"))
			r := h.submit(s.ID, "go")
			c.untilType(ipc.TypeTextDelta)
			<-g.Reached()
			cancel(t, h, s.ID, r.TurnID)
			c.turnEnd(s.ID)
			return s, c
		}},
		{name: "cancel-mid-tool", run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			h.srv.Enqueue(toolReply([3]string{"tu_sh", "bash", mustJSON(map[string]string{"command": "echo started; sleep 100"})}))
			r := h.submit(s.ID, "run it")
			c.untilType(ipc.TypeToolOutputDelta)
			cancel(t, h, s.ID, r.TurnID)
			c.turnEnd(s.ID)
			return s, c
		}},
		{name: "cancel-seam", opts: []harnessOpt{func(cfg *hub.Config) {
			cfg.BeforeTools = func(ctx context.Context, sid, tid string) { <-ctx.Done() }
		}}, run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			// One pending call: with two, the parallel runners commit their
			// tool.failed (and stored results) in either order.
			h.srv.Enqueue(toolReply([3]string{"tu_b", "bash", `{"command":"touch ran.txt"}`}))
			r := h.submit(s.ID, "go")
			c.untilType(ipc.TypeLLMCallCompleted)
			cancel(t, h, s.ID, r.TurnID)
			c.turnEnd(s.ID)
			return s, c
		}},
		{name: "cancel-followup", run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			g := llmtest.NewGate()
			h.srv.Enqueue(toolReply([3]string{"tu_1", "list_dir", `{"path":"."}`}), stalledText(g, "Looking"))
			r := h.submit(s.ID, "go")
			c.untilType(ipc.TypeToolCompleted)
			c.untilType(ipc.TypeTextDelta)
			<-g.Reached()
			cancel(t, h, s.ID, r.TurnID)
			c.turnEnd(s.ID)
			return s, c
		}},
		{name: "delegation", run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			h.srv.Enqueue(
				toolReply(delegateCall("tu_d", "count the files")),
				textReply("There are ", "3 files."),
				textReply("The worker says 3."),
			)
			h.submit(s.ID, "delegate it")
			c.turnEnd(s.ID)
			return s, c
		}},
		{name: "compaction", opts: []harnessOpt{func(cfg *hub.Config) { cfg.ContextWindow = 2000 }},
			run: func(t *testing.T, h *harness) (store.Session, *capture) {
				s, c := start(h)
				h.srv.Enqueue(toolReply([3]string{"tu_1", "list_dir", `{"path":"."}`}), textReply("ok"))
				h.submit(s.ID, strings.Repeat("a", 3000))
				c.turnEnd(s.ID)
				// A user's Compact keeps the last exchange: a second one makes the first compactable.
				h.srv.Enqueue(textReply("second answer"))
				h.submit(s.ID, "b")
				c.turnEnd(s.ID)
				h.srv.Enqueue(textReply("SUMMARY: user sent a's; agent listed the dir."))
				if err := h.hub.CompactSession(context.Background(), s.ID); err != nil {
					t.Fatal(err)
				}
				c.untilType(ipc.TypeCompactionComplete)
				c.untilType(ipc.TypeSessionUpdated) // the new totals and marker
				return s, c
			}},
		{name: "provider-midfail", run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			h.srv.Enqueue(llmtest.MidFail("claude-sonnet-4-6", 2, "Partial answer", "The retried answer.")...)
			h.submit(s.ID, "hi")
			c.turnEnd(s.ID)
			return s, c
		}},
		{name: "provider-retry", run: func(t *testing.T, h *harness) (store.Session, *capture) {
			s, c := start(h)
			h.srv.Enqueue(
				llmtest.HTTPError(429, llmtest.AnthropicErrorBody("rate_limit_error", "slow down")),
				textReply("ok"),
			)
			h.submit(s.ID, "hi")
			c.turnEnd(s.ID)
			return s, c
		}},
	}
}

// normaliser replaces what varies run to run with stable placeholders, by
// first appearance, preserving order: ULIDs → "01J000…n" (valid ULIDs that
// sort like the originals), timestamps → fixed instants increasing per occurrence,
// durations → 0, temp paths → /workspace and /data.
type normaliser struct {
	ids   map[string]string
	times int
	seen  map[string]any // raw frame → its normalised form
	paths *strings.Replacer
}

var (
	ulidRe    = regexp.MustCompile(`\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b`)
	timeRe    = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`)
	tookRe    = regexp.MustCompile(`bytes · [0-9.hmsµn]+`)
	traceBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

func newNormaliser(h *harness) *normaliser {
	pairs := []string{}
	for _, p := range [][2]string{{h.ws, "/workspace"}, {h.dir, "/data"}} {
		pairs = append(pairs, p[0], p[1])
		if real, err := filepath.EvalSymlinks(p[0]); err == nil && real != p[0] {
			pairs = append(pairs, real, p[1])
		}
	}
	return &normaliser{ids: map[string]string{}, seen: map[string]any{}, paths: strings.NewReplacer(pairs...)}
}

func (n *normaliser) id(s string) string {
	if p, ok := n.ids[s]; ok {
		return p
	}
	p := fmt.Sprintf("01J%023d", len(n.ids)+1)
	n.ids[s] = p
	return p
}

func (n *normaliser) str(s string) string {
	s = n.paths.Replace(s)
	if timeRe.MatchString(s) {
		if strings.HasPrefix(s, "0001-01-01") {
			return s
		}
		// Per occurrence, not per value: two instants in the same
		// millisecond in one run may differ in the next.
		n.times++
		return traceBase.Add(time.Duration(n.times) * time.Second).Format("2006-01-02T15:04:05.000Z")
	}
	s = tookRe.ReplaceAllString(s, "bytes · 0s")
	return ulidRe.ReplaceAllStringFunc(s, n.id)
}

// value normalises a decoded JSON value (numbers as json.Number).
func (n *normaliser) value(key string, v any) any {
	switch x := v.(type) {
	case string:
		return n.str(x)
	case json.Number:
		if key == "duration_ms" {
			return json.Number("0")
		}
		return x
	case []any:
		for i := range x {
			x[i] = n.value("", x[i])
		}
		return x
	case map[string]any:
		// Keys in a stable order so first appearances are deterministic.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			out[n.str(k)] = n.value(k, x[k])
		}
		return out
	}
	return v
}

// raw normalises one JSON document.
func (n *normaliser) raw(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("normalise %s: %v", b, err)
	}
	return n.value("", v)
}

// all normalises frames; a frame already seen byte for byte (a replayed
// event) gets the same rendering as before, so timestamps match across the
// main capture and its reconnect.
func (n *normaliser) all(t *testing.T, frames [][]byte) []any {
	out := make([]any, len(frames))
	for i, f := range frames {
		if v, ok := n.seen[string(f)]; ok {
			out[i] = v
			continue
		}
		out[i] = n.raw(t, f)
		n.seen[string(f)] = out[i]
	}
	return out
}

// normaliseTrace renders the trace file: the main frames, the reconnect
// variant (since + replayed frames), the post-run snapshot resync and the
// expectations, all through one normaliser.
func normaliseTrace(t *testing.T, name string, h *harness, sid string, main [][]byte, since string, replay, resync [][]byte, x traceExpect) []byte {
	t.Helper()
	n := newNormaliser(h)
	doc := map[string]any{"scenario": name}
	doc["frames"] = n.all(t, main)
	doc["session_id"] = n.str(sid)
	doc["reconnect"] = map[string]any{"since": n.str(since), "frames": n.all(t, replay)}
	doc["resync"] = n.all(t, resync)
	xb, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	doc["expect"] = n.raw(t, xb)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// lineDiff shows the first differing line of want and got with context.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	lo := max(0, i-3)
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d (file has %d lines, run has %d)\n", i+1, len(wl), len(gl))
	for j := lo; j < min(len(wl), i+4); j++ {
		fmt.Fprintf(&b, "- %s\n", wl[j])
	}
	for j := lo; j < min(len(gl), i+4); j++ {
		fmt.Fprintf(&b, "+ %s\n", gl[j])
	}
	return b.String()
}
