package dialect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// dialectTurn is a canonical turn as the agent loop records it: a thinking
// + text + tool-call message streamed in deltas 20 ms apart, the tool run
// with live output, a delegation with worker output, a compaction and the
// closing message. Every event has a fixed id and ts.
func dialectTurn() []ipc.Event {
	base := time.Date(2026, 5, 8, 14, 0, 0, 0, time.UTC)
	turn := "T1"
	var evs []ipc.Event
	at := 0 // ms since base
	add := func(step int, typ, actor string, p any) {
		at += step
		raw, err := json.Marshal(p)
		if err != nil {
			panic(err)
		}
		ts := base.Add(time.Duration(at) * time.Millisecond)
		var id ulid.ULID
		_ = id.SetTime(ulid.Timestamp(ts))
		copy(id[6:], fmt.Sprintf("evt%07d", len(evs)))
		evs = append(evs, ipc.Event{ID: id, Type: typ, SessionID: "S1", TurnID: &turn, TS: ipc.Timestamp{Time: ts}, Actor: actor, Payload: raw})
	}
	sig := "sig-1"
	add(0, ipc.TypeTurnStarted, ipc.ActorUser, ipc.TurnStarted{UserMessageID: "U1", Input: "list files"})
	add(1, ipc.TypeRouteDecided, ipc.ActorAgent, ipc.RouteDecided{Model: "anthropic:m", Reason: "default", Policy: "static", PolicyVersion: "v1"})
	add(1, ipc.TypeLLMCallStarted, ipc.ActorAgent, ipc.LLMCallStarted{CallID: "C1", Model: "anthropic:m", MessageID: "M1", Attempt: 1})
	add(5, ipc.TypeMessageStart, ipc.ActorAgent, ipc.MessageStart{MessageID: "M1", Role: store.RoleAssistant, Model: "anthropic:m"})
	add(20, ipc.TypeThinkingDelta, ipc.ActorAgent, ipc.ThinkingDelta{MessageID: "M1", ContentBlockIndex: 0, Text: "The user "})
	add(20, ipc.TypeThinkingDelta, ipc.ActorAgent, ipc.ThinkingDelta{MessageID: "M1", ContentBlockIndex: 0, Text: "wants ls."})
	add(20, ipc.TypeThinkingDelta, ipc.ActorAgent, ipc.ThinkingDelta{MessageID: "M1", ContentBlockIndex: 0, Signature: &sig})
	for _, w := range []string{"Let ", "me ", "list ", "the ", "files."} {
		add(20, ipc.TypeTextDelta, ipc.ActorAgent, ipc.TextDelta{MessageID: "M1", ContentBlockIndex: 1, Text: w})
	}
	add(20, ipc.TypeToolUseStart, ipc.ActorAgent, ipc.ToolUseStart{MessageID: "M1", ContentBlockIndex: 2, ToolUseID: "K1", ToolName: "bash"})
	add(20, ipc.TypeToolUseInputDelta, ipc.ActorAgent, ipc.ToolUseInputDelta{MessageID: "M1", ContentBlockIndex: 2, ToolUseID: "K1", PartialJSON: `{"command":`})
	add(20, ipc.TypeToolUseInputDelta, ipc.ActorAgent, ipc.ToolUseInputDelta{MessageID: "M1", ContentBlockIndex: 2, ToolUseID: "K1", PartialJSON: `"ls"}`})
	add(20, ipc.TypeToolUseEnd, ipc.ActorAgent, ipc.ToolUseEnd{MessageID: "M1", ContentBlockIndex: 2, ToolUseID: "K1", FinalInput: json.RawMessage(`{"command":"ls"}`)})
	add(5, ipc.TypeMessageComplete, ipc.ActorAgent, ipc.MessageComplete{MessageID: "M1", StopReason: "tool_use", Usage: store.Usage{InputTokens: 10, OutputTokens: 20},
		FinalContent: []store.ContentBlock{
			{Type: store.BlockThinking, Thinking: "The user wants ls.", Signature: sig},
			{Type: store.BlockText, Text: "Let me list the files."},
			{Type: store.BlockToolCall, ID: "K1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
		}})
	add(1, ipc.TypeLLMCallCompleted, ipc.ActorAgent, ipc.LLMCallCompleted{CallID: "C1", Model: "anthropic:m", MessageID: "M1", StopReason: "tool_use"})
	add(1, ipc.TypeToolCalled, ipc.ActorTool, ipc.ToolCalled{ToolUseID: "K1", ToolName: "bash", Input: json.RawMessage(`{"command":"ls"}`), MessageID: "M1",
		StatusText: "Running: ls", Summary: "-> executing `ls`"})
	add(10, ipc.TypeToolOutputDelta, ipc.ActorTool, ipc.ToolOutputDelta{ToolUseID: "K1", Stream: "stdout", Text: "a.txt\n"})
	add(10, ipc.TypeToolOutputDelta, ipc.ActorTool, ipc.ToolOutputDelta{ToolUseID: "K1", Stream: "stderr", Text: "warn\n"})
	add(10, ipc.TypeToolCompleted, ipc.ActorTool, ipc.ToolCompleted{ToolUseID: "K1", ToolName: "bash", StatusText: "Command finished (exit 0)",
		Summary: "**exit 0**", Output: "a.txt\nwarn\n", OutputBytes: 11, DurationMS: 30})
	add(1, ipc.TypeToolCalled, ipc.ActorTool, ipc.ToolCalled{ToolUseID: "K2", ToolName: "read", Input: json.RawMessage(`{"path":"x"}`), MessageID: "M1",
		StatusText: "Reading x", Summary: "-> reading `x`"})
	add(1, ipc.TypeToolFailed, ipc.ActorTool, ipc.ToolFailed{ToolUseID: "K2", ToolName: "read", ErrorClass: ipc.ToolErrExec, Message: "no such file",
		StatusText: "Read failed", Summary: "`x`: no such file"})
	add(1, ipc.TypeDelegateStarted, ipc.ActorTool, ipc.DelegateStarted{ToolUseID: "K3", WorkerSessionID: "W1", Task: "count lines", Depth: 1,
		StatusText: "Starting worker", Summary: "**Task:** count lines"})
	add(10, ipc.TypeToolOutputDelta, ipc.ActorTool, ipc.ToolOutputDelta{ToolUseID: "K3", Stream: "worker", Text: "Counting…"})
	add(10, ipc.TypeDelegateCompleted, ipc.ActorTool, ipc.DelegateCompleted{ToolUseID: "K3", WorkerSessionID: "W1", Success: true, Result: "42",
		StatusText: "Worker finished", Summary: "**Result:** 42"})
	add(1, ipc.TypeCompactionStarted, ipc.ActorSystem, ipc.CompactionStarted{Trigger: "threshold", EstimatedTokens: 900, ContextWindow: 1000})
	add(1, ipc.TypeCompactionComplete, ipc.ActorSystem, ipc.CompactionCompleted{Removed: 4, Kept: 2, TokensRemoved: 700, TokensKept: 200, Reason: "summary", ContextStartOffset: 4})
	add(1, ipc.TypeMessageStart, ipc.ActorAgent, ipc.MessageStart{MessageID: "M2", Role: store.RoleAssistant, Model: "anthropic:m"})
	add(1, ipc.TypeTextDelta, ipc.ActorAgent, ipc.TextDelta{MessageID: "M2", Text: "There "})
	add(1, ipc.TypeTextDelta, ipc.ActorAgent, ipc.TextDelta{MessageID: "M2", Text: "is "})
	add(60, ipc.TypeBusHandlerWarning, ipc.ActorSystem, ipc.HandlerWarning{SubscriptionName: "x", Code: ipc.CodeClientTooSlow, Message: "m"}) // flushes M2's update
	add(1, ipc.TypeTextDelta, ipc.ActorAgent, ipc.TextDelta{MessageID: "M2", Text: "one file."})
	add(1, ipc.TypeMessageComplete, ipc.ActorAgent, ipc.MessageComplete{MessageID: "M2", StopReason: "end_turn",
		FinalContent: []store.ContentBlock{{Type: store.BlockText, Text: "There is one file."}}})
	add(1, ipc.TypeTurnCompleted, ipc.ActorAgent, ipc.TurnCompleted{Status: ipc.TurnStatusCompleted, StopReason: "end_turn"})
	return evs
}

// encodeAll runs a fresh encoder over evs: one line per frame, "<event
// index> <frame>".
func encodeAll(t *testing.T, dialect string, evs []ipc.Event) []string {
	t.Helper()
	enc, err := New().NewEncoder(dialect, "S1")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, ev := range evs {
		frames, err := enc.Encode(ev)
		if err != nil {
			t.Fatalf("event %d (%s): %v", i, ev.Type, err)
		}
		for _, f := range frames {
			if !json.Valid(f) {
				t.Fatalf("event %d: invalid JSON %s", i, f)
			}
			out = append(out, fmt.Sprintf("%02d %s", i, f))
		}
	}
	return out
}

func frameTypes(t *testing.T, lines []string, key func(map[string]any) string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		var m map[string]any
		_, js, _ := strings.Cut(l, " ")
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, key(m))
	}
	return out
}

// Structural checks that do not depend on the golden files.
func TestDialectMappings(t *testing.T) {
	evs := dialectTurn()
	s000 := encodeAll(t, Seed000, evs)
	got := frameTypes(t, s000, func(m map[string]any) string {
		return m["streamId"].(string) + ":" + m["event"].(map[string]any)["type"].(string)
	})
	// streamId is the message id (the id the seed's client keys its
	// messages by); a tool call's frames carry the message that asked.
	want := []string{
		"M1:message_start",
		"M1:message_update", // first delta (27 ms): at once
		"M1:message_update", // 87 ms (deltas at 47 and 67 ms withheld)
		"M1:message_update", // 147 ms
		"M1:message_update", // 207 ms; 227 and 247 end up in message_end
		"M1:message_end",
		"M1:tool_execution_start", "M1:tool_execution_end",
		"M1:tool_execution_start", "M1:tool_execution_end",
		"compaction:S1:compaction_start", "compaction:S1:compaction_end",
		"M2:message_start",
		"M2:message_update", // first delta
		"M2:message_update", // flushed by the warning 60 ms later
		"M2:message_end",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("seed000 frames\n got %v\nwant %v", got, want)
	}
	// The flushed update carries everything accumulated so far.
	_, last, _ := strings.Cut(s000[len(s000)-2], " ")
	if !strings.Contains(last, `"text":"There is "`) {
		t.Fatalf("flushed update %s", last)
	}

	s002 := encodeAll(t, Seed002, evs)
	got = frameTypes(t, s002, func(m map[string]any) string { return m["type"].(string) })
	if n := strings.Count(strings.Join(got, " "), "message.chunk"); n != 8 || got[0] != "message.new" || got[1] != "message.start" || got[7] != "message.end" || got[len(got)-1] != "message.end" {
		t.Fatalf("seed002 frames %v", got)
	}
	if !strings.Contains(s002[7], `"content":{"type":"text","text":"Let me list the files."},"isComplete":true`) || !strings.Contains(s002[7], `"validated":true`) {
		t.Fatalf("seed002 message.end %s", s002[7])
	}

	s004 := encodeAll(t, Seed004, evs)
	got = frameTypes(t, s004, func(m map[string]any) string {
		tcs := m["tool_calls"].([]any)
		switch {
		case m["end"] != nil:
			return "end"
		case m["thinking"] != nil:
			return "think"
		case len(tcs) == 0:
			return "text"
		}
		tc := tcs[0].(map[string]any)
		return fmt.Sprintf("%s/%s/%v", tc["call_id"], tc["event_type"], tc["is_complete"])
	})
	// The card opens when the model finished writing the call (tool.use_end)
	// and again with the status once it runs; output is a *_delta part; a
	// failed call ends in "error"; the delegation's card stays open until
	// its tool result (this turn has none, so the turn's end closes it).
	want = []string{"think", "think", "text", "text", "text", "text", "text",
		"K1/call/true", "K1/call/true", "K1/result_delta/false", "K1/result_delta/false", "K1/result/true",
		"K2/call/true", "K2/error/true",
		"K3/delegation_call/true", "K3/delegation_result_delta/false",
		"text", "text", "text", "K3/error/true", "end"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("seed004 frames\n got %v\nwant %v", got, want)
	}
	// The answer's text: message (what Potpie's client reads) and response
	// (the document's name) alike, each message a paragraph.
	var text, thinking strings.Builder
	for _, l := range s004 {
		var m chatAgentResponse
		_, js, _ := strings.Cut(l, " ")
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Fatal(err)
		}
		if m.Message != m.Response {
			t.Fatalf("message %q != response %q", m.Message, m.Response)
		}
		text.WriteString(m.Message)
		thinking.WriteString(m.Thinking)
	}
	if text.String() != "Let me list the files.\n\nThere is one file." || thinking.String() != "The user wants ls." {
		t.Fatalf("seed004 answer %q, thinking %q", text.String(), thinking.String())
	}
}

// seed000 updates, the number and bytes of message_update frames for n
// 10-byte deltas 1 ms apart.
func seed000Updates(t *testing.T, n int) (updates, bytesOut int) {
	t.Helper()
	enc, _ := New().NewEncoder(Seed000, "S")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := func(ms int, typ string, p any) ipc.Event {
		raw, _ := json.Marshal(p)
		return ipc.Event{Type: typ, SessionID: "S", TS: ipc.Timestamp{Time: base.Add(time.Duration(ms) * time.Millisecond)}, Actor: ipc.ActorAgent, Payload: raw}
	}
	if _, err := enc.Encode(ev(0, ipc.TypeMessageStart, ipc.MessageStart{MessageID: "M"})); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		fs, err := enc.Encode(ev(i+1, ipc.TypeTextDelta, ipc.TextDelta{MessageID: "M", Text: "0123456789"}))
		if err != nil {
			t.Fatal(err)
		}
		updates += len(fs)
		for _, f := range fs {
			bytesOut += len(f)
		}
	}
	return updates, bytesOut
}

// A long answer (100,000 deltas, 1 MB over 100 s) costs seed000 clients a
// bounded multiple of its size in updates, not one full copy per interval
// (which was 2,000 copies averaging 0.5 MB: 1 GB).
func TestSeed000GrowthBoundsLongMessage(t *testing.T) {
	const n = 100_000
	updates, bytesOut := seed000Updates(t, n)
	full := 10 * n
	// Below the floor: at most one update of at most the floor per interval
	// (16 KiB at 50 ms is reached after 1.6 s: 33 updates); above it a
	// geometric series of ratio 1.25: about 5× the final size.
	bound := int(float64(full)*(1+1/UpdateGrowth)) + 40*(UpdateGrowthFloor+200)
	t.Logf("%d updates, %d bytes of updates for %d bytes of content (%.1fx)", updates, bytesOut, full, float64(bytesOut)/float64(full))
	if bytesOut > bound {
		t.Fatalf("%d bytes of updates for a %d-byte message, bound %d", bytesOut, full, bound)
	}
}

// Throttling keeps seed000 output linear: 1,000 deltas 1 ms apart (10 KB,
// below the growth floor) give one update per UpdateInterval, not one per
// delta.
func TestSeed000ThrottleBoundsOutput(t *testing.T) {
	const n = 1000
	updates, bytesOut := seed000Updates(t, n)
	if want := n / int(UpdateInterval/time.Millisecond); updates != want { // at 1, 51, …, 951 ms
		t.Fatalf("%d updates for %d deltas over %d ms, want %d", updates, n, n, want)
	}
	if full := 10 * n; bytesOut > (updates+1)*(full+200) {
		t.Fatalf("%d bytes of updates", bytesOut)
	}
}

func TestUnknownDialectRejected(t *testing.T) {
	b, _ := newTestBus(t, ipc.Options{})
	mkSession(t, b, "s", "")
	_, err := b.Subscribe(context.Background(), ipc.SubscribeRequest{SessionID: "s", Dialect: "seed999"})
	var se *ipc.SubscribeError
	if !errorsAs(err, &se) || se.Code != ipc.CodeInvalidFilter || !strings.Contains(se.Message, `"seed999"`) {
		t.Fatalf("err %v", err)
	}
	f, err := ipc.DecodeClientFrame([]byte(`{"type":"subscribe","dialect":"seed002"}`))
	if err != nil || f.Subscribe.Dialect != Seed002 {
		t.Fatalf("decode dialect: %+v %v", f.Subscribe, err)
	}
}

// A subscription in a dialect gets the dialect's frames for replayed and
// live events (with the canonical event ids), snapshot frames unchanged,
// and its ack names the dialect.
func TestSubscriptionDialect(t *testing.T) {
	b, _ := newTestBus(t, ipc.Options{})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	start, _ := b.Commit(ctx, ipc.Draft{Type: ipc.TypeTurnStarted, SessionID: "s", Actor: ipc.ActorUser})
	if _, err := b.Commit(ctx, ipc.Draft{Type: ipc.TypeMessageStart, SessionID: "s", Actor: ipc.ActorAgent, Payload: ipc.MessageStart{MessageID: "M", Role: "assistant"}}); err != nil {
		t.Fatal(err)
	}
	c := start[0].ID.String()
	s := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Since: &c, Dialect: Seed002})
	if s.Ack().Dialect != Seed002 {
		t.Fatalf("ack dialect %q", s.Ack().Dialect)
	}
	evs, err := b.Commit(ctx, delta("s", "M", "hi"), ipc.Draft{Type: ipc.TypeMessageComplete, SessionID: "s", Actor: ipc.ActorAgent,
		Payload: ipc.MessageComplete{MessageID: "M", StopReason: "end_turn", FinalContent: []store.ContentBlock{{Type: "text", Text: "hi"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`"type":"message.start"`, `"type":"message.chunk","payload":{"messageId":"M","content":{"type":"text","text":"hi"}}`, `"type":"message.end"`} {
		f := next(t, s)
		if !bytes.Contains(f.Data, []byte(want)) {
			t.Fatalf("frame %d %s, want %s", i, f.Data, want)
		}
		if i > 0 && f.EventID != evs[i-1].ID.String() {
			t.Fatalf("frame %d event id %s", i, f.EventID)
		}
	}
	snap := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Snapshot: true, Dialect: Seed000})
	if f := next(t, snap); !bytes.HasPrefix(f.Data, []byte(`{"type":"snapshot"`)) {
		t.Fatalf("snapshot frame %s", f.Data)
	}
}

// A dialect subscription that resumes inside a message — after a cursor or
// with a snapshot — first gets the message's start and its content so far
// (carrying the resume point's id), then the live stream; in seed002 only
// when the client does not hold the message: one it names in
// known_message_ids, or without those one it saw start before its cursor.
func TestSubscriptionDialectResumesOpenMessage(t *testing.T) {
	b, _ := newTestBus(t, ipc.Options{})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	if _, err := b.Commit(ctx, ipc.Draft{Type: ipc.TypeTurnStarted, SessionID: "s", Actor: ipc.ActorUser, Payload: ipc.TurnStarted{UserMessageID: "U", Input: "q"}},
		ipc.Draft{Type: ipc.TypeMessageStart, SessionID: "s", Actor: ipc.ActorAgent, Payload: ipc.MessageStart{MessageID: "M", Role: "assistant"}}); err != nil {
		t.Fatal(err)
	}
	evs, err := b.Commit(ctx, delta("s", "M", "Hel"), delta("s", "M", "lo"))
	if err != nil {
		t.Fatal(err)
	}
	cursor := evs[1].ID.String()
	resumed := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Since: &cursor, Dialect: Seed002})
	resumedUnknown := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Since: &cursor, Dialect: Seed002, KnownMessageIDs: []string{"U"}})
	snap := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Snapshot: true, Dialect: Seed002})
	snapKnown := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Snapshot: true, Dialect: Seed002, KnownMessageIDs: []string{"U", "M"}})
	next(t, snapKnown)
	if f := next(t, snap); !bytes.HasPrefix(f.Data, []byte(`{"type":"snapshot"`)) || bytes.Contains(f.Data, []byte(`"streaming"`)) {
		t.Fatalf("snapshot %s: want seed002 records without the partial message", f.Data)
	}
	if _, err := b.Commit(ctx, delta("s", "M", "!"), ipc.Draft{Type: ipc.TypeMessageComplete, SessionID: "s", Actor: ipc.ActorAgent,
		Payload: ipc.MessageComplete{MessageID: "M", StopReason: "end_turn", FinalContent: []store.ContentBlock{{Type: "text", Text: "Hello!"}}}}); err != nil {
		t.Fatal(err)
	}
	reopen := []string{
		`{"type":"message.start","payload":{"sessionId":"s","messageId":"M","role":"agent"`,
		`{"type":"message.chunk","payload":{"messageId":"M","content":{"type":"text","text":"Hello"}},"eventId":"`,
		`{"type":"message.chunk","payload":{"messageId":"M","content":{"type":"text","text":"!"}}`,
		`"content":{"type":"text","text":"Hello!"},"isComplete":true`,
	}
	// A client resuming after its own cursor holds the message (it saw its
	// start): seed002 continues it without a second message.start (D4).
	for name, tc := range map[string]struct {
		s    *ipc.Subscription
		want []string
	}{"cursor": {resumed, reopen[2:]}, "snapshot": {snap, reopen}, "cursor, held by none": {resumedUnknown, reopen},
		"snapshot, held": {snapKnown, reopen[2:]}} {
		s, want := tc.s, tc.want
		for i, w := range want {
			if f := next(t, s); !bytes.Contains(f.Data, []byte(w)) {
				t.Fatalf("%s: frame %d %s, want %s", name, i, f.Data, w)
			}
		}
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// Every event a dialect maps must decode: a malformed payload is an error
// naming the event, for every type each encoder reads, and nothing for the
// types it does not map.
func TestDialectsRejectMalformedPayloads(t *testing.T) {
	reads := map[string][]string{
		Seed000: {ipc.TypeMessageStart, ipc.TypeMessageReset, ipc.TypeTextDelta, ipc.TypeThinkingDelta, ipc.TypeToolUseStart, ipc.TypeToolUseInputDelta, ipc.TypeToolUseEnd,
			ipc.TypeMessageComplete, ipc.TypeLLMCallFailed, ipc.TypeTurnCompleted, ipc.TypeToolCalled, ipc.TypeToolCompleted, ipc.TypeToolFailed, ipc.TypeCompactionComplete},
		Seed002: {ipc.TypeTurnStarted, ipc.TypeMessageStart, ipc.TypeTextDelta, ipc.TypeMessageComplete, ipc.TypeLLMCallFailed, ipc.TypeTurnCompleted,
			ipc.TypeMessageReset},
		Seed004: {ipc.TypeTextDelta, ipc.TypeThinkingDelta, ipc.TypeMessageReset, ipc.TypeMessageComplete, ipc.TypeToolUseStart, ipc.TypeToolUseEnd,
			ipc.TypeToolCalled, ipc.TypeToolCompleted, ipc.TypeToolFailed,
			ipc.TypeDelegateStarted, ipc.TypeDelegateCompleted, ipc.TypeDelegateFailed, ipc.TypeToolOutputDelta, ipc.TypeTurnCompleted, ipc.TypeTurnCancelled},
	}
	all := append(append([]string{}, ipc.BusTypes...), ipc.StreamingTypes...)
	for dialect, types := range reads {
		for _, typ := range all {
			enc, err := New().NewEncoder(dialect, "S")
			if err != nil {
				t.Fatal(err)
			}
			frames, err := enc.Encode(ipc.Event{Type: typ, SessionID: "S", Payload: json.RawMessage(`[1]`)})
			switch want := slices.Contains(types, typ); {
			case want && (err == nil || !strings.Contains(err.Error(), typ+" event") || !strings.Contains(err.Error(), "decode payload")):
				t.Errorf("%s %s: frames %q, err %v; want a decode error naming the event", dialect, typ, frames, err)
			case !want && (err != nil || len(frames) > 0) && typ != ipc.TypeCompactionStarted:
				t.Errorf("%s %s: frames %q, err %v; want nothing", dialect, typ, frames, err)
			}
		}
	}
	// A delta whose text is not a string was dropped from seed000's
	// content without a word; now it is an error.
	enc, _ := New().NewEncoder(Seed000, "S")
	ev := ipc.Event{Type: ipc.TypeTextDelta, SessionID: "S", Payload: json.RawMessage(`{"message_id":"M","content_block_index":0,"text":5}`)}
	if _, err := enc.Encode(ev); err == nil || !strings.Contains(err.Error(), "decode payload") {
		t.Fatalf("text.delta with a numeric text: err %v, want a decode error", err)
	}
}

// Subscribers of one dialect share the frames that depend on the event
// alone: the second subscriber's chunk is the first one's bytes, not a
// second encoding; what depends on a subscriber's own state (a start frame
// for a message it joined mid-way) stays its own, and a subscriber of
// another dialect gets its own encoding.
func TestDialectFramesEncodedOnce(t *testing.T) {
	b, _ := newTestBus(t, ipc.Options{})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	a := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Dialect: Seed002})
	if _, err := b.Commit(ctx, ipc.Draft{Type: ipc.TypeMessageStart, SessionID: "s", Actor: ipc.ActorAgent, Payload: ipc.MessageStart{MessageID: "M", Role: "assistant"}}); err != nil {
		t.Fatal(err)
	}
	next(t, a) // message.start
	late := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Dialect: Seed002})
	other := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Dialect: Seed004})
	if _, err := b.Commit(ctx, delta("s", "M", "Hello")); err != nil {
		t.Fatal(err)
	}
	fa := next(t, a)
	if f := next(t, late); !bytes.Contains(f.Data, []byte(`"type":"message.start"`)) {
		t.Fatalf("the late subscriber's first frame %s, want its own message.start", f.Data)
	}
	fl := next(t, late)
	if !bytes.Contains(fa.Data, []byte(`"type":"message.chunk"`)) || string(fa.Data) != string(fl.Data) {
		t.Fatalf("chunks differ: %s vs %s", fa.Data, fl.Data)
	}
	if &fa.Data[0] != &fl.Data[0] {
		t.Error("the chunk was encoded once per subscriber, not once per dialect")
	}
	if fo := next(t, other); !bytes.Contains(fo.Data, []byte(`"response":"Hello"`)) {
		t.Fatalf("seed004 subscriber got %s", fo.Data)
	}
}

// The shared frames are bounded: past sharedCap the oldest is dropped (and
// made again if asked for), the newest kept.
func TestSharedFramesBounded(t *testing.T) {
	sf := newSharedFrames()
	made := 0
	mk := func() ([]byte, error) { made++; return []byte("f"), nil }
	ids := make([]ulid.ULID, sharedCap+1)
	for i := range ids {
		ids[i] = ulid.Make()
		if _, err := sf.frame(Seed002, ids[i], mk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sf.frame(Seed002, ids[sharedCap], mk); err != nil || made != sharedCap+1 {
		t.Fatalf("the newest frame was made again (%d makes, err %v)", made, err)
	}
	if _, err := sf.frame(Seed002, ids[0], mk); err != nil || made != sharedCap+2 {
		t.Fatalf("the oldest frame was not evicted (%d makes, err %v)", made, err)
	}
	n := 0
	sf.frames.Range(func(any, any) bool { n++; return true })
	if n > sharedCap {
		t.Fatalf("%d frames kept, bound %d", n, sharedCap)
	}
	if _, err := sf.frame(Seed004, ids[1], func() ([]byte, error) { return nil, errors.New("bad") }); err == nil {
		t.Fatal("an encoding error was not returned")
	}
}
