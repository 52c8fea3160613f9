package ipc

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

var updateFixture = flag.Bool("update", false, "rewrite frontend/src/protocol/wire-fixture.json from the Go types")

// wireFixturePath is the fixture the TypeScript protocol test reads.
const wireFixturePath = "../frontend/src/protocol/wire-fixture.json"

// wireFixture is the file's shape: one event per catalog type, one server
// frame of each kind, and a message and session record.
type wireFixture struct {
	Comment string            `json:"_comment"`
	Events  []Event           `json:"events"`
	Frames  []json.RawMessage `json:"frames"`
	Message store.Message     `json:"message"`
	Session store.Session     `json:"session"`
}

const (
	fxSession = "01JZ3K8Q2R5T7V9X1B3D5F7H9K"
	fxTurn    = "01JZ3K9A1C3E5G7J9M1P3R5T7V"
	fxMessage = "01JZ3K9B2D4F6H8K0N2Q4S6V8W"
	fxTool    = "toolu_01A2B3C4"
	fxWorker  = "01JZ3KA0B1C2D3E4F5G6H7J8K9"
	fxDeleg   = "toolu_01D5E6F7"
	fxModel   = "anthropic:claude-sonnet-4-6"
)

var (
	fxUsage = store.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 800, CacheWriteTokens: 64, ReasoningTokens: 120, CostUSD: 0.01137, OutputEstimated: true}
	fxInput = json.RawMessage(`{"command":"go test ./...","timeout_ms":60000}`)
	// Every key set so the TS side sees each (a real rule has a prefix or a command, not both).
	fxRule = &PermissionRule{Tool: "bash", Prefix: "go test", Command: "go test ./...", Action: "allow"}
	fxSess = store.Session{
		ID: fxSession, Title: "Fix the flaky test", TitleSource: "auto", WorkspacePath: "/home/me/code/proj", ActiveModel: fxModel,
		ParentSessionID: "01JZ3K7P0Q2S4V6W8Y0A2C4E6G", CreatedAt: time.Date(2026, 5, 8, 14, 20, 0, 0, time.UTC),
		TurnCount: 3, CostSoFarUSD: 0.142, Usage: fxUsage, CurrentTurnID: fxTurn, StreamingMessageID: fxMessage,
		ContextStartOffset: 4, ContextSummary: "Earlier: the user asked to fix a flaky test.", Depth: 1,
		Branched: true, HeadID: "01JZ3K9A0B2D4F6H8K0M2P4R6T",
		QueuedTurns:  []store.QueuedTurn{{TurnID: "01JZ3KB0C2E4G6J8M0P2R4T6W8", Content: "Then commit the fix"}},
		ApprovalMode: "auto-edits", PendingApprovals: 1, SandboxReadWorkspaceOnly: true, SandboxNoNetwork: true, AGUIThreadID: "0190a0e4-7b3c-7000-8000-0000000000aa",
	}
	fxMsg = store.Message{
		ID: fxMessage, SessionID: fxSession, Offset: 7, TurnID: fxTurn, Role: store.RoleToolResult,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: "ok"}}, Status: store.StatusComplete,
		StopReason: "end_turn", Usage: &fxUsage, Model: fxModel, ToolCallID: fxTool, ToolName: "bash", IsError: true,
		StatusText: "Ran: go test ./... (exit 1)", Summary: "**exit 1**",
		Approval:  &store.ToolApproval{Decision: DecisionDeny, By: "window", Message: "not now"},
		CreatedAt: time.Date(2026, 5, 8, 14, 23, 12, 345_000_000, time.UTC),
		Turn: &store.TurnOutcome{ID: fxTurn, Status: store.TurnFailed,
			Error: &store.TurnError{Class: ErrClassOverloaded, Message: "provider overloaded", Attempts: 4}, FilesChanged: 2, FilesUndone: true},
		ParentID: "01JZ3K9A0B2D4F6H8K0M2P4R6T", Siblings: []string{"01JZ3K9A0B2D4F6H8K0M2P4R6T", "01JZ3K9C4E6G8J0M2P4R6T8W0Y"},
		Retries: &fxRetries,
	}
	fxRetries = store.Retries{Count: 2, ErrorClass: ErrClassOverloaded, Error: "Anthropic: Overloaded"}
)

// fixturePayloads is one payload per catalog type, every field set (the
// real payload structs, so a Go change shows up in the marshalled output).
func fixturePayloads() map[string]struct {
	actor   string
	payload any
} {
	type ap = struct {
		actor   string
		payload any
	}
	sig := "EqQBCkgIARABGAIiQ"
	const fxAttachment = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	return map[string]ap{
		TypeTurnStarted: {ActorUser, TurnStarted{UserMessageID: "01JZ3K9A0B2D4F6H8K0M2P4R6T", Input: "Run the tests",
			Attachments: []AttachedFile{{Path: "docs/plan.md", Bytes: 131072, Cut: true},
				{Path: "screen.png", Bytes: 48213, Kind: AttachedImage, ID: fxAttachment, MediaType: "image/png", Width: 1280, Height: 800}}}},
		TypeRouteDecided: {ActorAgent, RouteDecided{Model: fxModel, Reason: "default model", Policy: "static", PolicyVersion: "2026-05-08T14:23:11Z"}},
		TypeLLMCallStarted: {ActorAgent, LLMCallStarted{CallID: "call_01JZ3K9B", Model: fxModel, MessageID: fxMessage,
			Attempt: 1, Purpose: "title"}},
		TypeLLMCallCompleted: {ActorAgent, LLMCallCompleted{CallID: "call_01JZ3K9B", Model: fxModel, MessageID: fxMessage,
			StopReason: "tool_use", Usage: fxUsage, DurationMS: 2140, Purpose: "title"}},
		TypeLLMCallFailed: {ActorAgent, LLMCallFailed{CallID: "call_01JZ3K9B", Model: fxModel, MessageID: fxMessage,
			ErrorClass: ErrClassRateLimit, Message: "429 Too Many Requests", Attempt: 1, WillRetry: true, RetryInMS: 2000, MaxAttempts: 4, Purpose: "title"}},
		TypeLLMCallStalled: {ActorAgent, LLMCallStalled{CallID: "call_01JZ3K9B", IdleMS: 5003}},
		TypeToolCalled: {ActorTool, ToolCalled{ToolUseID: fxTool, ToolName: "bash", Input: fxInput, MessageID: fxMessage,
			StatusText: "Running: go test ./...", Summary: "-> executing `go test ./...` in `/home/me/code/proj`"}},
		TypeToolCompleted: {ActorTool, ToolCompleted{ToolUseID: fxTool, ToolName: "bash", StatusText: "Command finished (exit 0)",
			Summary: "**exit 0**\n```\nok  proj 0.41s\n```", Output: "ok  proj 0.41s\n", IsError: false, Truncated: true,
			OutputBytes: 15, OutputPath: "/data/out/toolu_01A2B3C4.txt", DurationMS: 512}},
		TypeToolFailed: {ActorTool, ToolFailed{ToolUseID: fxTool, ToolName: "bash", ErrorClass: ToolErrCancelled,
			Message: "cancelled by user", StatusText: "Cancelled", Summary: "~~go test ./...~~ cancelled"}},
		TypeTurnCompleted: {ActorAgent, TurnCompleted{Status: TurnStatusFailed, StopReason: "error", Usage: fxUsage,
			Error: "provider overloaded", ErrorClass: ErrClassOverloaded, FilesChanged: 2}},
		TypeTurnCancelled: {ActorUser, TurnCancelled{Reason: "user_cancel", PartialMessageID: fxMessage, CancelledTools: []string{fxTool}, FilesChanged: 1}},
		TypeSessionBranched: {ActorUser, SessionBranched{Reason: BranchRegenerate, MessageID: "01JZ3K9A0B2D4F6H8K0M2P4R6T",
			HeadID: "01JZ3K9A0B2D4F6H8K0M2P4R6T", Session: fxSess, AbandonedTurns: []AbandonedTurn{{TurnID: fxTurn, FilesChanged: 2}}}},
		TypeSessionForked: {ActorUser, SessionForked{NewSessionID: "01JZ3KF0RK2D4F6H8K0M2P4R6T", MessageID: fxMessage}},
		TypeTurnUndone: {ActorUser, TurnUndone{Restored: []string{"notes.txt"},
			Skipped: []SkippedFile{{Path: "main.go", Reason: "changed since the turn"}}}},
		TypeDelegateStarted: {ActorTool, DelegateStarted{ToolUseID: fxDeleg, WorkerSessionID: fxWorker, Task: "Find the flaky test",
			Depth: 1, StatusText: "Starting worker", Summary: "**Task:** Find the flaky test"}},
		TypeDelegateCompleted: {ActorTool, DelegateCompleted{ToolUseID: fxDeleg, WorkerSessionID: fxWorker, Success: true,
			Result: "TestFoo races on a map.", StatusText: "Worker finished", Summary: "**Result:** TestFoo races on a map."}},
		TypeDelegateFailed: {ActorTool, DelegateFailed{ToolUseID: fxDeleg, WorkerSessionID: fxWorker, FailureMode: FailureCancelledByUser,
			Message: "cancelled", StatusText: "Worker cancelled", Summary: "Worker cancelled by user"}},
		TypeToolApprovalRequested: {ActorTool, ToolApprovalRequested{ToolUseID: fxTool, ToolName: "bash", Input: fxInput,
			StatusText: "Running: go test ./...", Risk: RiskHigh, Summary: "-> executing in the workspace:\n\n```bash\ngo test ./...\n```\n",
			Reason: "bash asks by default", AlwaysRule: fxRule, WorkerSessionID: fxWorker, GitWritesOffer: true,
			EditContext: &EditContext{StartLine: 5, Old: "beta\n", New: "BETA\n", Before: []string{"alpha"}, After: []string{"gamma"}}}},
		TypeToolApprovalResolved: {ActorTool, ToolApprovalResolved{ToolUseID: fxTool, Decision: DecisionAlways, By: "dashboard",
			Message: "fine", Rule: fxRule, WorkerSessionID: fxWorker}},
		TypeMCPServerStatus: {ActorSystem, MCPServerStatus{Server: "files", Transport: "stdio", Workspace: "/home/u/proj", Status: MCPFailed,
			Tools: []string{"files__read"}, UnsupportedTools: []string{"long-research"}, Error: "exited: exit status 1", StderrTail: "panic: boom\n", Restarts: 2, RetryInMS: 4000}},
		TypeCompactionStarted: {ActorSystem, CompactionStarted{Trigger: "threshold", EstimatedTokens: 182000, ContextWindow: 200000}},
		TypeCompactionComplete: {ActorSystem, CompactionCompleted{Removed: 24, Kept: 8, TokensRemoved: 45000, TokensKept: 12000,
			Reason: "tokens", ContextStartOffset: 24, Error: "summary call failed: 529 overloaded"}},
		TypeSessionCreated:    {ActorSystem, SessionChanged{Session: fxSess, Deleted: true}},
		TypeSessionUpdated:    {ActorSystem, SessionChanged{Session: fxSess, Deleted: true}},
		TypeBusHandlerWarning: {ActorSystem, HandlerWarning{SubscriptionName: "ws-01JZ3K", Code: CodeClientTooSlow, Message: "outbound queue overflowed"}},
		TypeMessageStart:      {ActorAgent, MessageStart{MessageID: fxMessage, Role: store.RoleAssistant, Model: fxModel}},
		TypeMessageReset: {ActorAgent, MessageReset{MessageID: fxMessage, Attempt: 3, ErrorClass: ErrClassOverloaded,
			Error: "Anthropic: Overloaded"}},
		TypeTextDelta:     {ActorAgent, TextDelta{MessageID: fxMessage, ContentBlockIndex: 1, Text: "Let me run"}},
		TypeThinkingDelta: {ActorAgent, ThinkingDelta{MessageID: fxMessage, ContentBlockIndex: 0, Text: "", Signature: &sig}},
		TypeToolUseStart:  {ActorAgent, ToolUseStart{MessageID: fxMessage, ContentBlockIndex: 2, ToolUseID: fxTool, ToolName: "bash"}},
		TypeToolUseInputDelta: {ActorAgent, ToolUseInputDelta{MessageID: fxMessage, ContentBlockIndex: 2, ToolUseID: fxTool,
			PartialJSON: `{"command": "go te`}},
		TypeToolUseEnd:      {ActorAgent, ToolUseEnd{MessageID: fxMessage, ContentBlockIndex: 2, ToolUseID: fxTool, FinalInput: fxInput}},
		TypeToolOutputDelta: {ActorTool, ToolOutputDelta{ToolUseID: fxTool, Stream: "worker", Text: "ok  proj 0.41s\n", Reset: true}},
		TypeMessageComplete: {ActorAgent, MessageComplete{MessageID: fxMessage, StopReason: "tool_use", Usage: fxUsage, Retries: &fxRetries,
			FinalContent: []store.ContentBlock{
				{Type: store.BlockThinking, Thinking: "The user wants tests run.", Signature: sig},
				{Type: store.BlockText, Text: "Let me run the tests."},
				{Type: store.BlockToolCall, ID: fxTool, Name: "bash", Arguments: fxInput, ProviderID: "call_0"},
				{Type: store.BlockImage, Source: &store.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgo="}},
				{Type: store.BlockImage, Source: &store.ImageSource{Type: store.ImageAttachment, MediaType: "image/png", Attachment: fxAttachment,
					Name: "screen.png", Width: 1280, Height: 800, Bytes: 48213}},
			}}},
	}
}

// buildWireFixture builds the fixture from the Go types: events in catalog
// order with increasing ids 37 ms apart, then one frame of each kind.
func buildWireFixture(t *testing.T) wireFixture {
	t.Helper()
	payloads := fixturePayloads()
	fx := wireFixture{
		Comment: "Generated by `go test ./ipc -run TestWireFixture -update` from ipc/payload.go, ipc/event.go, " +
			"ipc/frames.go and store/model.go (every field set). Do not edit by hand.",
		Message: fxMsg, Session: fxSess,
	}
	base := time.Date(2026, 5, 8, 14, 23, 11, 37_000_000, time.UTC)
	turn := fxTurn
	for i, typ := range allTypes() {
		ap, ok := payloads[typ]
		if !ok {
			t.Fatalf("catalog type %s has no fixture payload: add one to fixturePayloads", typ)
		}
		requireAllFields(t, typ, ap.payload)
		raw, err := json.Marshal(ap.payload)
		if err != nil {
			t.Fatal(err)
		}
		ts := base.Add(time.Duration(i) * 37 * time.Millisecond)
		var id ulid.ULID
		_ = id.SetTime(ulid.Timestamp(ts))
		copy(id[6:], fmt.Sprintf("fixture%03d", i))
		fx.Events = append(fx.Events, Event{ID: id, Type: typ, SessionID: fxSession, TurnID: &turn,
			TS: Timestamp{ts}, Actor: ap.actor, Payload: raw})
	}
	if len(payloads) != len(fx.Events) {
		t.Fatalf("fixturePayloads has %d entries, the catalog %d types", len(payloads), len(fx.Events))
	}
	filter, err := ParseFilter(raw(`{"event_types":["turn.started","text.delta"],"actors":["agent","user"],"include_worker_sessions":true}`))
	if err != nil {
		t.Fatal(err)
	}
	since := fx.Events[0].ID.String()
	epoch := "01KR3ZG000EP0CH0000000000A"
	snap, err := EncodeSnapshot(fxSess, []store.Message{fxMsg}, fx.Events[len(fx.Events)-1].ID, epoch, "2026-05-08T14:23:11Z", true)
	if err != nil {
		t.Fatal(err)
	}
	env, err := json.Marshal(fx.Events[len(fx.Events)-1])
	if err != nil {
		t.Fatal(err)
	}
	fx.Frames = []json.RawMessage{
		SubscribeAckFrame{Type: "subscribe_ack", ResolvedFilter: filter, Since: &since, Snapshot: false, ReplayEventCount: 2, Epoch: epoch, Dialect: DialectCanonical}.JSON(),
		(&SubscribeError{Code: CodeCursorExpired, Message: "cursor is not in the event log; resubscribe with snapshot: true"}).Frame(),
		snap,
		eventFrame(env),
		PingFrame("n-1"),
		PongFrame("n-1"),
		(&FrameError{Code: CodeUnknownFrameType, Message: `unknown frame type "warp"`}).Frame(),
	}
	return fx
}

// requireAllFields fails if marshalling v omits any of its struct's JSON
// fields (the fixture must show every optional field).
func requireAllFields(t *testing.T, typ string, v any) {
	t.Helper()
	raw, _ := json.Marshal(v)
	var got map[string]json.RawMessage
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s payload is not an object: %s", typ, raw)
	}
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if _, ok := got[name]; !ok {
			t.Errorf("%s fixture payload omits %q: set it so the TS side sees it", typ, name)
		}
	}
}

func encodeFixture(fx wireFixture) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(fx) // cannot fail: plain values
	return buf.Bytes()
}

// TestWireFixture keeps frontend/src/protocol/wire-fixture.json equal to
// what the Go types marshal to; the TS protocol test checks its types
// against that file, so a Go payload change fails until the TS side follows.
func TestWireFixture(t *testing.T) {
	fx := buildWireFixture(t)
	for _, r := range []any{fx.Message, fx.Session, fx.Session.Usage} {
		requireAllFields(t, fmt.Sprintf("%T", r), r)
	}
	want := encodeFixture(fx)
	if *updateFixture {
		if err := os.WriteFile(wireFixturePath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s; now run `cd frontend && npx vitest run src/protocol`", wireFixturePath)
		return
	}
	got, err := os.ReadFile(wireFixturePath)
	if err != nil {
		t.Fatalf("read fixture: %v (rerun with -update to create it)", err)
	}
	var g, w any
	if err := decodeNumbers(got, &g); err != nil {
		t.Fatalf("fixture is not JSON: %v (rerun with -update to rewrite it)", err)
	}
	if err := decodeNumbers(want, &w); err != nil {
		t.Fatal(err)
	}
	if diffs := jsonDiff("", g, w, nil); len(diffs) > 0 {
		if len(diffs) > 40 {
			diffs = append(diffs[:40], fmt.Sprintf("… and %d more", len(diffs)-40))
		}
		t.Fatalf("%s is out of date with the Go wire types (file vs Go):\n  %s\n"+
			"Rerun `GOFLAGS=-mod=mod go test ./ipc -run TestWireFixture -update` to rewrite it, "+
			"then make the TS types follow (`cd frontend && npx vitest run src/protocol`).",
			wireFixturePath, strings.Join(diffs, "\n  "))
	}
}

func decodeNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// jsonDiff lists the differences between decoded JSON values got (the
// file) and want (Go), one line per path.
func jsonDiff(path string, got, want any, out []string) []string {
	where := path
	if where == "" {
		where = "(root)"
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return append(out, fmt.Sprintf("%s: file has %s, Go has an object", where, short(got)))
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, inG := g[k]
			wv, inW := w[k]
			p := path + "." + k
			if path == "" {
				p = k
			}
			switch {
			case !inG:
				out = append(out, fmt.Sprintf("%s: missing in file (Go has %s)", p, short(wv)))
			case !inW:
				out = append(out, fmt.Sprintf("%s: in file only (%s), Go no longer sends it", p, short(gv)))
			default:
				out = jsonDiff(p, gv, wv, out)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return append(out, fmt.Sprintf("%s: file has %s, Go has an array", where, short(got)))
		}
		for i := range max(len(g), len(w)) {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(g):
				out = append(out, fmt.Sprintf("%s: missing in file (Go has %s)", p, short(w[i])))
			case i >= len(w):
				out = append(out, fmt.Sprintf("%s: in file only (%s)", p, short(g[i])))
			default:
				out = jsonDiff(p, g[i], w[i], out)
			}
		}
		return out
	}
	if !reflect.DeepEqual(got, want) {
		out = append(out, fmt.Sprintf("%s: file has %s, Go has %s", where, short(got), short(want)))
	}
	return out
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// The diff names paths both ways and never reports equal values.
func TestJSONDiff(t *testing.T) {
	var a, b any
	_ = decodeNumbers([]byte(`{"x":1,"y":[1,2],"z":{"k":"v"},"old":true}`), &a)
	_ = decodeNumbers([]byte(`{"x":1.5,"y":[1],"z":{"k":"v","n":null}}`), &b)
	got := jsonDiff("", a, b, nil)
	want := []string{
		`old: in file only (true), Go no longer sends it`,
		`x: file has 1, Go has 1.5`,
		`y[1]: in file only (2)`,
		`z.n: missing in file (Go has null)`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("diff\n got %q\nwant %q", got, want)
	}
	if d := jsonDiff("", a, a, nil); d != nil {
		t.Fatalf("self diff %q", d)
	}
}
