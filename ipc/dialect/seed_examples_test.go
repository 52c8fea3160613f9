package dialect

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/store"
)

// seedEvents builds canonical events of session S, turn T, one per ms.
func seedEvents(specs ...struct {
	typ string
	p   any
}) []ipc.Event {
	turn := "T"
	base := time.Date(2025, 11, 2, 6, 0, 0, 0, time.UTC)
	var evs []ipc.Event
	for i, s := range specs {
		raw, _ := json.Marshal(s.p)
		ts := base.Add(time.Duration(i) * time.Second)
		evs = append(evs, ipc.Event{Type: s.typ, SessionID: "S", TurnID: &turn, TS: ipc.Timestamp{Time: ts}, Actor: ipc.ActorAgent, Payload: raw})
	}
	return evs
}

func spec(typ string, p any) struct {
	typ string
	p   any
} {
	return struct {
		typ string
		p   any
	}{typ, p}
}

// encodeStripped encodes evs in dialect d and returns each frame decoded,
// without the additive fields (eventId, messageId, status, validated), so it
// can be compared with the seed document's own examples.
func encodeStripped(t *testing.T, d string, evs []ipc.Event) []map[string]any {
	t.Helper()
	enc, err := New().NewEncoder(d, "S")
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range evs {
		fs, err := enc.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			var m map[string]any
			if err := json.Unmarshal(f, &m); err != nil {
				t.Fatal(err)
			}
			delete(m, "eventId")
			delete(m, "messageId")
			if p, ok := m["payload"].(map[string]any); ok {
				delete(p, "status")
				delete(p, "validated")
			}
			out = append(out, m)
		}
	}
	return out
}

func mustJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

func sameFrames(t *testing.T, got []map[string]any, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		b, _ := json.Marshal(got)
		t.Fatalf("%d frames, want %d: %s", len(got), len(want), b)
	}
	for i, w := range want {
		if wm := mustJSON(t, w); !reflect.DeepEqual(got[i], wm) {
			g, _ := json.Marshal(got[i])
			t.Fatalf("frame %d\n got %s\nwant %s", i, g, w)
		}
	}
}

// Seed 002's own example: chunks "Hello", " World", "!" and a message.end
// with "Hello World!" (message.start/chunk/end exactly as the document).
func TestSeed002WorkedExample(t *testing.T) {
	evs := seedEvents(
		spec(ipc.TypeMessageStart, ipc.MessageStart{MessageID: "msg-001", Role: "assistant"}),
		spec(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "msg-001", Text: "Hello"}),
		spec(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "msg-001", Text: " World"}),
		spec(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "msg-001", Text: "!"}),
		spec(ipc.TypeMessageComplete, ipc.MessageComplete{MessageID: "msg-001", StopReason: "end_turn",
			FinalContent: []store.ContentBlock{{Type: store.BlockText, Text: "Hello World!"}}}),
	)
	sameFrames(t, encodeStripped(t, Seed002, evs),
		`{"type":"message.start","payload":{"sessionId":"S","messageId":"msg-001","role":"agent","timestamp":"2025-11-02T06:00:00.000Z"}}`,
		`{"type":"message.chunk","payload":{"messageId":"msg-001","content":{"type":"text","text":"Hello"}}}`,
		`{"type":"message.chunk","payload":{"messageId":"msg-001","content":{"type":"text","text":" World"}}}`,
		`{"type":"message.chunk","payload":{"messageId":"msg-001","content":{"type":"text","text":"!"}}}`,
		`{"type":"message.end","payload":{"messageId":"msg-001","content":{"type":"text","text":"Hello World!"},"isComplete":true,"timestamp":"2025-11-02T06:00:04.000Z"}}`,
	)
}

// Seed 000's own examples: message_start with empty content, an update
// with text and thinking, message_end with stopReason, the Bash tool's
// start and end, and the compaction pair.
func TestSeed000WorkedExamples(t *testing.T) {
	evs := seedEvents(
		spec(ipc.TypeMessageStart, ipc.MessageStart{MessageID: "M", Role: "assistant"}),
		spec(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "M", ContentBlockIndex: 0, Text: "Here is the partial response so far..."}),
		spec(ipc.TypeThinkingDelta, ipc.ThinkingDelta{MessageID: "M", ContentBlockIndex: 1, Text: "Let me consider..."}),
		spec(ipc.TypeMessageComplete, ipc.MessageComplete{MessageID: "M", StopReason: "end_turn",
			FinalContent: []store.ContentBlock{{Type: store.BlockText, Text: "Final complete response."}}}),
		spec(ipc.TypeToolCalled, ipc.ToolCalled{ToolUseID: "toolu_01ABC", ToolName: "Bash", Input: json.RawMessage(`{"command":"ls -la"}`), MessageID: "M"}),
		spec(ipc.TypeToolCompleted, ipc.ToolCompleted{ToolUseID: "toolu_01ABC", ToolName: "Bash", Output: "file1.txt\nfile2.txt\n"}),
		spec(ipc.TypeCompactionStarted, ipc.CompactionStarted{Trigger: "threshold"}),
		spec(ipc.TypeCompactionComplete, ipc.CompactionCompleted{Removed: 24, Kept: 8, TokensRemoved: 45000, TokensKept: 12000, Reason: "tokens"}),
	)
	sameFrames(t, encodeStripped(t, Seed000, evs),
		`{"streamId":"M","agentId":"S","event":{"type":"message_start","message":{"role":"assistant","content":[]}}}`,
		`{"streamId":"M","agentId":"S","event":{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"Here is the partial response so far..."}]}}}`,
		`{"streamId":"M","agentId":"S","event":{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"Here is the partial response so far..."},{"type":"thinking","thinking":"Let me consider..."}]}}}`,
		`{"streamId":"M","agentId":"S","event":{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Final complete response."}],"stopReason":"end_turn"}}}`,
		`{"streamId":"M","agentId":"S","event":{"type":"tool_execution_start","toolCallId":"toolu_01ABC","toolName":"Bash","args":{"command":"ls -la"}}}`,
		`{"streamId":"M","agentId":"S","event":{"type":"tool_execution_end","toolCallId":"toolu_01ABC","result":"file1.txt\nfile2.txt\n","isError":false}}`,
		`{"streamId":"compaction:S","agentId":"S","event":{"type":"compaction_start"}}`,
		`{"streamId":"compaction:S","agentId":"S","event":{"type":"compaction_end","removed":24,"kept":8,"tokensRemoved":45000,"tokensKept":12000,"reason":"tokens"}}`,
	)
}

// Seed 004's example flow: the call, streamed result parts, the final
// part; a client accumulating stream_part as the seed's
// updateStreamingToolCall does ends with the whole streamed content and
// the final status. The streamed parts are "result_delta" (what Potpie's
// client accumulates; the document's example says "result"), the call
// part carries the arguments where Potpie's client reads them.
func TestSeed004WorkedExample(t *testing.T) {
	evs := seedEvents(
		spec(ipc.TypeToolCalled, ipc.ToolCalled{ToolUseID: "call_123", ToolName: "fetch_file", StatusText: "Fetching file: app/main.py",
			Summary: "-> fetching contents for file app/main.py", Input: json.RawMessage(`{}`)}),
		spec(ipc.TypeToolOutputDelta, ipc.ToolOutputDelta{ToolUseID: "call_123", Stream: "stdout", Text: "```python\n..."}),
		spec(ipc.TypeToolOutputDelta, ipc.ToolOutputDelta{ToolUseID: "call_123", Stream: "stdout", Text: "...complete code...\n```"}),
		spec(ipc.TypeToolCompleted, ipc.ToolCompleted{ToolUseID: "call_123", ToolName: "fetch_file", StatusText: "File content fetched successfully",
			Summary: "```python\n...complete code...\n```"}),
	)
	got := encodeStripped(t, Seed004, evs)
	sameFrames(t, got[:1],
		`{"message":"","response":"","tool_calls":[{"call_id":"call_123","event_type":"call","tool_name":"fetch_file","tool_response":"Fetching file: app/main.py","tool_call_details":{"summary":"-> fetching contents for file app/main.py","arguments":{}},"is_complete":true}],"citations":[]}`)
	// The seed's reducer (processStreamChunk / updateStreamingToolCall).
	type state struct {
		eventType, response, summary, stream string
		complete, streaming                  bool
	}
	var st *state
	for _, f := range got {
		tc := f["tool_calls"].([]any)[0].(map[string]any)
		details := tc["tool_call_details"].(map[string]any)
		if part, ok := tc["stream_part"].(string); ok {
			if st == nil {
				st = &state{}
			}
			st.stream += part
			if s, _ := details["summary"].(string); s != "" {
				st.summary = s
			}
			if r, _ := tc["tool_response"].(string); r != "" {
				st.response = r
			}
			st.eventType, st.complete, st.streaming = tc["event_type"].(string), tc["is_complete"].(bool), !tc["is_complete"].(bool)
		} else {
			st = &state{eventType: tc["event_type"].(string), response: tc["tool_response"].(string), summary: details["summary"].(string), complete: true}
		}
	}
	want := state{eventType: "result", response: "File content fetched successfully", summary: "```python\n...complete code...\n```",
		stream: "```python\n......complete code...\n```", complete: true}
	if *st != want {
		t.Fatalf("seed reducer state %+v, want %+v", *st, want)
	}
}

// A subscription that starts inside a message it never saw begin (live,
// no cursor; a worker's message) still gets a start frame before the first
// content, so a seed client does not drop it; a turn that ends without its
// message completing (crash, early cancel) ends the seed002 message failed
// or cancelled; seed004 keeps a worker's text out of the response.
func TestDialectsOpenUnseenMessagesAndCloseAbandonedOnes(t *testing.T) {
	mid := seedEvents(
		spec(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "W", Text: "late "}),
		spec(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "W", Text: "join"}),
		spec(ipc.TypeTurnCancelled, ipc.TurnCancelled{Reason: "user_cancel"}),
	)
	sameFrames(t, encodeStripped(t, Seed000, mid[:1]),
		`{"streamId":"W","agentId":"S","event":{"type":"message_start","message":{"role":"assistant","content":[]}}}`,
		`{"streamId":"W","agentId":"S","event":{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"late "}]}}}`)
	got := encodeStripped(t, Seed002, mid)
	sameFrames(t, got[:2],
		`{"type":"message.start","payload":{"sessionId":"S","messageId":"W","role":"agent","timestamp":"2025-11-02T06:00:00.000Z"}}`,
		`{"type":"message.chunk","payload":{"messageId":"W","content":{"type":"text","text":"late "}}}`)
	enc, _ := New().NewEncoder(Seed002, "S")
	var last []byte
	for _, ev := range mid {
		fs, err := enc.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) > 0 {
			last = fs[len(fs)-1]
		}
	}
	if end := mustJSON(t, string(last)); end["type"] != "message.end" ||
		!reflect.DeepEqual(end["payload"].(map[string]any)["content"], map[string]any{"type": "text", "text": "late join\n\n_(cancelled)_"}) ||
		end["payload"].(map[string]any)["status"] != "cancelled" || end["payload"].(map[string]any)["isComplete"] != false {
		t.Fatalf("abandoned message.end %s", last)
	}
	// seed004: the subscribed session's text is the response; a worker's is not.
	worker := seedEvents(spec(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "W", Text: "worker text"}))
	worker[0].SessionID = "worker"
	if got := encodeStripped(t, Seed004, worker); len(got) != 0 {
		t.Fatalf("a worker's text reached the seed004 response: %v", got)
	}
}

// A failed turn ends visibly in seed000, in pi-ai's shapes: the errored
// message's message_end has stopReason "error" and the call's error as
// errorMessage (once, though the error arrives after message.complete); a
// turn that failed before any message gets a "<turn>:error" message; the
// snapshot history shows the same.
func TestSeed000FailedTurns(t *testing.T) {
	midStream := seedEvents(
		spec(ipc.TypeMessageStart, ipc.MessageStart{MessageID: "M", Role: "assistant"}),
		spec(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "M", Text: "part"}),
		spec(ipc.TypeMessageComplete, ipc.MessageComplete{MessageID: "M", StopReason: "error",
			FinalContent: []store.ContentBlock{{Type: store.BlockText, Text: "part"}}}),
		spec(ipc.TypeLLMCallFailed, ipc.LLMCallFailed{MessageID: "M", ErrorClass: ipc.ErrClassOverloaded, Message: "Anthropic: Overloaded"}),
		spec(ipc.TypeTurnCompleted, ipc.TurnCompleted{Status: ipc.TurnStatusFailed, Error: "Anthropic: Overloaded", ErrorClass: ipc.ErrClassOverloaded}),
	)
	sameFrames(t, encodeStripped(t, Seed000, midStream),
		`{"streamId":"M","agentId":"S","event":{"type":"message_start","message":{"role":"assistant","content":[]}}}`,
		`{"streamId":"M","agentId":"S","event":{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"part"}]}}}`,
		`{"streamId":"M","agentId":"S","event":{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"part"}],"stopReason":"error","errorMessage":"Anthropic: Overloaded"}}}`)
	before := seedEvents(
		spec(ipc.TypeLLMCallFailed, ipc.LLMCallFailed{ErrorClass: ipc.ErrClassAuth, Message: "invalid x-api-key"}),
		spec(ipc.TypeTurnCompleted, ipc.TurnCompleted{Status: ipc.TurnStatusFailed, Error: "invalid x-api-key", ErrorClass: ipc.ErrClassAuth}),
	)
	sameFrames(t, encodeStripped(t, Seed000, before),
		`{"streamId":"T:error","agentId":"S","event":{"type":"message_start","message":{"role":"assistant","content":[]}}}`,
		`{"streamId":"T:error","agentId":"S","event":{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"invalid x-api-key"}}}`)

	failed := func(id string) *store.TurnOutcome {
		return &store.TurnOutcome{ID: id, Status: store.TurnFailed, Error: &store.TurnError{Class: ipc.ErrClassAuth, Message: "boom " + id}}
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hist := seed000History([]store.Message{
		{ID: "U1", TurnID: "T1", Role: store.RoleUser, Content: []store.ContentBlock{{Type: store.BlockText, Text: "a"}}, Turn: failed("T1"), CreatedAt: at},
		{ID: "U2", TurnID: "T2", Role: store.RoleUser, Content: []store.ContentBlock{{Type: store.BlockText, Text: "b"}}, Turn: failed("T2"), CreatedAt: at},
		{ID: "A2", TurnID: "T2", Role: store.RoleAssistant, Status: store.StatusError, StopReason: "error", CreatedAt: at},
	})
	var got []string
	for _, m := range hist {
		got = append(got, m.ID+"/"+m.StopReason+"/"+m.ErrorMessage)
	}
	if want := "U1// T1:error/error/boom T1 U2// A2/error/boom T2"; strings.Join(got, " ") != want {
		t.Fatalf("seed000 history %v, want %s", got, want)
	}
}
