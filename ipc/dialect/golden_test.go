package dialect

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agenthub/ipc"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// recordedTracesDir holds the frames the real hub produced for each
// scenario (app/hub TestRecordedTraces writes them).
const recordedTracesDir = "../../frontend/test/traces/recorded"

// update rewrites the golden files from what the encoders give now.
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// recordedTrace is the part of a recorded trace the dialect tests use.
type recordedTrace struct {
	Scenario  string            `json:"scenario"`
	SessionID string            `json:"session_id"`
	Frames    []json.RawMessage `json:"frames"`
	Reconnect struct {
		Since string `json:"since"`
	} `json:"reconnect"`
	Resync []json.RawMessage `json:"resync"`
}

// loadTraces reads every recorded trace: its events in log order and the
// trace itself.
func loadTraces(t *testing.T) map[string]traceEvents {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(recordedTracesDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded traces in %s (%v)", recordedTracesDir, err)
	}
	out := map[string]traceEvents{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tr recordedTrace
		if err := json.Unmarshal(data, &tr); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var evs []ipc.Event
		for _, fr := range tr.Frames {
			var head struct {
				Type  string          `json:"type"`
				Event json.RawMessage `json:"event"`
			}
			if err := json.Unmarshal(fr, &head); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if head.Type != "event" {
				continue
			}
			var ev ipc.Event
			if err := json.Unmarshal(head.Event, &ev); err != nil {
				t.Fatalf("%s: event %s: %v", f, head.Event, err)
			}
			evs = append(evs, ev)
		}
		out[tr.Scenario] = traceEvents{trace: tr, events: evs}
	}
	return out
}

type traceEvents struct {
	trace  recordedTrace
	events []ipc.Event
}

// traceStore commits evs[:n] to a fresh in-memory store as the bus would
// have (same ids, bytes, families and groups).
func traceStore(t *testing.T, sid string, evs []ipc.Event) *ipc.MemoryStore {
	t.Helper()
	m := ipc.NewMemoryStore()
	if err := m.Commit(nil, []store.Op{{Kind: store.OpPutSession, Session: store.Session{ID: sid}}}); err != nil {
		t.Fatal(err)
	}
	var recs []store.EventRecord
	for _, ev := range evs {
		rec, err := ipc.RecordOf(ev)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if err := m.Commit(recs, nil); err != nil {
		t.Fatal(err)
	}
	return m
}

// midMessage is the index of the first streaming event that another
// streaming event of the same message follows: a resume point inside a
// message. -1 when the trace has none.
func midMessage(evs []ipc.Event) int {
	for i := 0; i+1 < len(evs); i++ {
		if ipc.IsMessageDelta(evs[i].Type) && ipc.IsMessageDelta(evs[i+1].Type) {
			return i
		}
	}
	return -1
}

// goldenLines encodes one trace in one dialect: the live stream; a resume
// after the trace's own reconnect cursor; a reconnect and a snapshot inside
// the first streamed message; and the trace's after-the-turn snapshot. Each section
// is what a client connecting that way receives; lines are "<event index>
// <frame>" ("R" for resume frames, "S" for snapshot frames).
func goldenLines(t *testing.T, dialect string, te traceEvents) string {
	t.Helper()
	var sb strings.Builder
	encode := func(enc ipc.Encoder, from int) {
		for i := from; i < len(te.events); i++ {
			frames, err := enc.Encode(te.events[i])
			if err != nil {
				t.Fatalf("event %d (%s): %v", i, te.events[i].Type, err)
			}
			for _, f := range frames {
				if !json.Valid(f) {
					t.Fatalf("event %d: invalid JSON %s", i, f)
				}
				fmt.Fprintf(&sb, "%02d %s\n", i, f)
			}
		}
	}
	newEnc := func() ipc.Encoder {
		enc, err := New().NewEncoder(dialect, te.trace.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		return enc
	}
	resume := func(enc ipc.Encoder, at int, withSnapshot bool) {
		ms := traceStore(t, te.trace.SessionID, te.events[:at+1])
		_ = ms.View(func(tx ipc.StoreView) error {
			rp, err := traceResumePoint(t, tx, dialect, te.trace.SessionID, te.events[at].ID, !withSnapshot)
			if err != nil {
				t.Fatal(err)
			}
			rp.FromCursor = !withSnapshot
			if withSnapshot { // the canonical snapshot at that point: the partial message last
				msgs := []store.Message{}
				if rp.Message != nil {
					msgs = append(msgs, *rp.Message)
				}
				canon, err := ipc.EncodeSnapshot(store.Session{ID: te.trace.SessionID, CurrentTurnID: rp.TurnID}, msgs, te.events[at].ID, "EPOCH", "", false)
				if err != nil {
					t.Fatal(err)
				}
				snap, err := enc.Snapshot(canon)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&sb, "S  %s\n", snap)
			}
			frames, err := enc.Resume(rp)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range frames {
				fmt.Fprintf(&sb, "R  %s\n", f)
			}
			return nil
		})
		encode(enc, at+1)
	}
	sb.WriteString("# live\n")
	encode(newEnc(), 0)
	if since := te.trace.Reconnect.Since; since != "" {
		at := slices.IndexFunc(te.events, func(ev ipc.Event) bool { return ev.ID.String() == since })
		if at < 0 {
			t.Fatalf("reconnect cursor %s is not an event of the trace", since)
		}
		fmt.Fprintf(&sb, "# reconnect after event %02d\n", at)
		resume(newEnc(), at, false)
	}
	if at := midMessage(te.events); at >= 0 {
		fmt.Fprintf(&sb, "# reconnect mid-message after event %02d\n", at)
		resume(newEnc(), at, false)
		fmt.Fprintf(&sb, "# snapshot mid-message after event %02d\n", at)
		resume(newEnc(), at, true)
	}
	if len(te.trace.Resync) > 1 {
		snap, err := newEnc().Snapshot(te.trace.Resync[1])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "# snapshot after the turn\nS  %s\n", snap)
	}
	return sb.String()
}

// traceResumePoint is the resume point a dialect subscription to sid with
// everything in its filter gets after event at (after its own cursor when
// fromCursor), as the bus computes it.
func traceResumePoint(t *testing.T, tx ipc.StoreView, dialect, sid string, at ulid.ULID, fromCursor bool) (ipc.ResumePoint, error) {
	t.Helper()
	f, err := ipc.ParseFilter(nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := New().NewEncoder(dialect, sid)
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := enc.(ipc.WorkerSessionsEncoder); ok && w.IncludesWorkerSessions() {
		f.IncludeWorkerSessions = true
	}
	return ipc.ResumePointAt(tx, sid, f, at, fromCursor, nil)
}

// TestDialectGoldenTraces compares every dialect's frames for every
// recorded real-hub trace with testdata/<scenario>.<dialect>.golden
// (rewrite with -update).
func TestDialectGoldenTraces(t *testing.T) {
	for name, te := range loadTraces(t) {
		for _, d := range []string{Seed000, Seed002, Seed004} {
			t.Run(name+"/"+d, func(t *testing.T) {
				got := goldenLines(t, d, te)
				if again := goldenLines(t, d, te); again != got {
					t.Fatal("encoder is not pure: a second run over the same events differs")
				}
				checkGolden(t, filepath.Join("testdata", name+"."+d+".golden"), got)
			})
		}
	}
}

// checkGolden compares got with the file at path (-update rewrites it).
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (rerun with -update)", err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		g, w := "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s line %d\n got %s\nwant %s\n(rerun with -update if the change is intended)", path, i+1, g, w)
		}
	}
}

// A client of each dialect that resumes — after the trace's reconnect
// cursor or inside a message — ends with the same messages and tool calls
// as one that watched the whole turn live. The clients are the seeds'
// own reducers (seed 002's start/chunk/end handlers, which ignore a chunk
// without a start; seed 000's replace-by-snapshot store; seed 004's
// call_id map with stream_part accumulation).
func TestDialectResumeMatchesLive(t *testing.T) {
	for name, te := range loadTraces(t) {
		for _, d := range []string{Seed000, Seed002, Seed004} {
			t.Run(name+"/"+d, func(t *testing.T) {
				live := newSeedClient(d)
				enc, _ := New().NewEncoder(d, te.trace.SessionID)
				for _, ev := range te.events {
					fs, err := enc.Encode(ev)
					if err != nil {
						t.Fatal(err)
					}
					live.apply(t, fs...)
				}
				var points []int
				if at := slices.IndexFunc(te.events, func(ev ipc.Event) bool { return ev.ID.String() == te.trace.Reconnect.Since }); at >= 0 {
					points = append(points, at)
				}
				if at := midMessage(te.events); at >= 0 {
					points = append(points, at)
				}
				if len(points) == 0 {
					t.Skip("no resume point in this trace")
				}
				for _, at := range points {
					// The resuming client saw everything up to the cursor.
					c := newSeedClient(d)
					first, _ := New().NewEncoder(d, te.trace.SessionID)
					for _, ev := range te.events[:at+1] {
						fs, _ := first.Encode(ev)
						c.apply(t, fs...)
					}
					enc, _ := New().NewEncoder(d, te.trace.SessionID)
					ms := traceStore(t, te.trace.SessionID, te.events[:at+1])
					_ = ms.View(func(tx ipc.StoreView) error {
						rp, err := traceResumePoint(t, tx, d, te.trace.SessionID, te.events[at].ID, true)
						if err != nil {
							t.Fatal(err)
						}
						rp.FromCursor = true
						fs, err := enc.Resume(rp)
						if err != nil {
							t.Fatal(err)
						}
						c.resume()
						c.apply(t, fs...)
						return nil
					})
					for _, ev := range te.events[at+1:] {
						fs, err := enc.Encode(ev)
						if err != nil {
							t.Fatal(err)
						}
						c.apply(t, fs...)
					}
					if got, want := c.state(), live.state(); got != want {
						t.Fatalf("resumed after event %d:\n got %s\nwant %s", at, got, want)
					}
				}
			})
		}
	}
}

// seedClient is a minimal client of one dialect, reducing frames as the
// seed document's frontend code does.
type seedClient struct {
	dialect string
	msgs    map[string]string // message id → its text (000: content JSON)
	order   []string
	calls   map[string]string // seed004: the running answer's call id → event_type|response|accumulated stream|complete
	text    strings.Builder   // seed004: the running answer's text
	ended   []string          // seed004: the answers of ended turns
}

func newSeedClient(d string) *seedClient {
	return &seedClient{dialect: d, msgs: map[string]string{}, calls: map[string]string{}}
}

// resume prepares the client for a dialect resume: a seed004 client
// resumes a running turn into a fresh answer (as Potpie's does).
func (c *seedClient) resume() {
	if c.dialect == Seed004 {
		c.text.Reset()
		clear(c.calls)
	}
}

func (c *seedClient) put(id, v string) {
	if _, ok := c.msgs[id]; !ok {
		c.order = append(c.order, id)
	}
	c.msgs[id] = v
}

func (c *seedClient) apply(t *testing.T, frames ...[]byte) {
	t.Helper()
	for _, f := range frames {
		var m map[string]any
		if err := json.Unmarshal(f, &m); err != nil {
			t.Fatalf("frame %s: %v", f, err)
		}
		switch c.dialect {
		case Seed002:
			p, _ := m["payload"].(map[string]any)
			id, _ := p["messageId"].(string)
			switch m["type"] {
			case "message.start":
				c.put(id, "")
			case "message.chunk":
				if _, ok := c.msgs[id]; ok { // a chunk without a start is ignored (seed 002)
					c.msgs[id] += p["content"].(map[string]any)["text"].(string)
				}
			case "message.end":
				if _, ok := c.msgs[id]; ok {
					c.msgs[id] = p["content"].(map[string]any)["text"].(string) + "|" + p["status"].(string)
				}
			case "message.new":
				c.put(id, "user:"+p["content"].(map[string]any)["text"].(string))
			}
		case Seed000:
			ev := m["event"].(map[string]any)
			id, _ := m["messageId"].(string)
			switch ev["type"] {
			case "message_start":
				c.put(id, "[]")
			case "message_update", "message_end":
				if _, ok := c.msgs[id]; ok {
					b, _ := json.Marshal(ev["message"].(map[string]any)["content"])
					c.msgs[id] = string(b)
				}
			case "tool_execution_start":
				c.put(ev["toolCallId"].(string), "running")
			case "tool_execution_end":
				c.put(ev["toolCallId"].(string), fmt.Sprintf("done %v %v", ev["result"], ev["isError"]))
			}
		case Seed004:
			c.text.WriteString(m["response"].(string))
			for _, x := range m["tool_calls"].([]any) {
				tc := x.(map[string]any)
				id := tc["call_id"].(string)
				head := fmt.Sprintf("%s|%s|%s", tc["event_type"], tc["tool_name"], tc["tool_response"])
				if part, ok := tc["stream_part"].(string); ok {
					_, acc, _ := strings.Cut(c.calls[id], "#")
					if i := strings.LastIndex(acc, "#"); i >= 0 {
						acc = acc[:i]
					}
					c.calls[id] = fmt.Sprintf("%s#%s#%v", head, acc+part, tc["is_complete"])
				} else {
					c.calls[id] = fmt.Sprintf("%s##%v", head, tc["is_complete"])
				}
			}
			if m["end"] != nil {
				c.ended = append(c.ended, c.answer())
				c.text.Reset()
				clear(c.calls)
			}
		}
	}
}

func (c *seedClient) state() string {
	var sb strings.Builder
	for _, id := range c.order {
		fmt.Fprintf(&sb, "%s=%s;", id, c.msgs[id])
	}
	for _, a := range c.ended {
		sb.WriteString("ended:" + a + ";")
	}
	sb.WriteString(c.answer())
	return sb.String()
}

// answer is the seed004 running answer: its calls and text.
func (c *seedClient) answer() string {
	var sb strings.Builder
	keys := make([]string, 0, len(c.calls))
	for k := range c.calls {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s=%s;", k, c.calls[k])
	}
	sb.WriteString("text=" + c.text.String())
	return sb.String()
}
