package agui

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/ipc"
	"agenthub/store"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// traceEvents reads a recorded real-hub trace's events (app/hub
// TestRecordedTraces writes them).
func traceEvents(t *testing.T, path string) (scenario string, evs []ipc.Event) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Scenario string `json:"scenario"`
		Frames   []struct {
			Type  string    `json:"type"`
			Event ipc.Event `json:"event"`
		} `json:"frames"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, f := range tr.Frames {
		if f.Type == "event" {
			evs = append(evs, f.Event)
		}
	}
	return tr.Scenario, evs
}

// span is what an event does to the span (message, tool call, reasoning,
// step) it names: opens it, needs it open, or needs it open and closes it.
type span struct {
	kind string
	op   int // spanOpen, spanInside or spanClose
	id   func(Event) string
}

const (
	spanOpen = iota
	spanInside
	spanClose
)

var (
	byMessage  = func(e Event) string { return e.MessageID }
	byToolCall = func(e Event) string { return e.ToolCallID }
	byStep     = func(e Event) string { return e.StepName }
	// spans maps each event type that opens, continues or closes a span.
	spans = map[string]span{
		TextMessageStart:        {"text", spanOpen, byMessage},
		TextMessageContent:      {"text", spanInside, byMessage},
		TextMessageEnd:          {"text", spanClose, byMessage},
		ToolCallStart:           {"tool", spanOpen, byToolCall},
		ToolCallArgs:            {"tool", spanInside, byToolCall},
		ToolCallEnd:             {"tool", spanClose, byToolCall},
		ReasoningStart:          {"span", spanOpen, byMessage},
		ReasoningMessageStart:   {"reasoning", spanOpen, byMessage},
		ReasoningMessageContent: {"reasoning", spanInside, byMessage},
		ReasoningMessageEnd:     {"reasoning", spanClose, byMessage},
		ReasoningEnd:            {"span", spanClose, byMessage},
		StepStarted:             {"step", spanOpen, byStep},
		StepFinished:            {"step", spanClose, byStep},
	}
)

// verify checks the rules the stock client's verifier enforces: RUN_STARTED
// first, nothing after RUN_FINISHED/RUN_ERROR, content only inside an open
// message/tool call/reasoning message, nothing open at RUN_FINISHED, every
// step finished.
func verify(t *testing.T, evs []Event) {
	t.Helper()
	open := map[string]bool{}
	for i, e := range evs {
		switch {
		case i == 0 && e.Type != RunStarted:
			t.Fatalf("first event %s", e.Type)
		case i > 0 && (evs[i-1].Type == RunFinished || evs[i-1].Type == RunError):
			t.Fatalf("%s after the run ended", e.Type)
		}
		if sp, ok := spans[e.Type]; ok {
			k := sp.kind + ":" + sp.id(e)
			if sp.op != spanOpen && !open[k] {
				t.Fatalf("event %d %s: %s is not open", i, e.Type, k)
			}
			switch sp.op {
			case spanOpen:
				open[k] = true
			case spanClose:
				delete(open, k)
			}
		}
		if e.Type == TextMessageContent && e.Delta == "" {
			t.Fatalf("empty delta")
		}
		if e.Type == RunFinished && len(open) > 0 {
			t.Fatalf("RUN_FINISHED with %v open", open)
		}
	}
	if last := evs[len(evs)-1].Type; last != RunFinished && last != RunError {
		t.Fatalf("the run ends with %s", last)
	}
}

// Every recorded real-hub trace becomes a balanced AG-UI run, compared
// with testdata/<scenario>.golden (rewrite with -update).
func TestEncoderRecordedTraces(t *testing.T) {
	files, _ := filepath.Glob("../../frontend/test/traces/recorded/*.json")
	if len(files) == 0 {
		t.Fatal("no recorded traces")
	}
	for _, f := range files {
		scenario, evs := traceEvents(t, f)
		t.Run(scenario, func(t *testing.T) {
			var turn string
			for _, ev := range evs {
				if ev.Type == ipc.TypeTurnStarted && ev.TurnID != nil {
					turn = *ev.TurnID
					break
				}
			}
			// The thread's history at a reset: its user message (the
			// dashboard reads the store; here a fixed stand-in).
			history := func() []store.Message {
				return []store.Message{{ID: "user-1", Role: store.RoleUser, Content: []store.ContentBlock{{Type: store.BlockText, Text: "hi"}}}}
			}
			enc := NewEncoder("thread-1", turn, history)
			out := []Event{enc.Started()}
			for _, ev := range evs {
				if ev.TurnID == nil || *ev.TurnID != turn {
					continue
				}
				got, err := enc.Encode(ev)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, got...)
			}
			verify(t, out)
			var sb strings.Builder
			for _, e := range out {
				fmt.Fprintf(&sb, "%s\n", Encoded(e))
			}
			path := filepath.Join("testdata", scenario+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (rerun with -update)", err)
			}
			if sb.String() != string(want) {
				t.Fatalf("%s differs (rerun with -update if intended):\n%s", path, sb.String())
			}
		})
	}
}

// A run whose turn is cancelled mid-stream closes what is open and ends
// RUN_FINISHED with the cancelled outcome; a failed turn ends RUN_ERROR
// with the error class as code; nothing follows the end.
func TestEncoderEndings(t *testing.T) {
	ev := func(typ string, p any) ipc.Event {
		raw, _ := json.Marshal(p)
		return ipc.Event{Type: typ, SessionID: "s", Payload: raw}
	}
	enc := NewEncoder("th", "T", nil)
	out := []Event{enc.Started()}
	for _, e := range []ipc.Event{
		ev(ipc.TypeThinkingDelta, ipc.ThinkingDelta{MessageID: "M", Text: "hmm"}),
		ev(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "M", Text: "Hi"}),
		ev(ipc.TypeToolUseStart, ipc.ToolUseStart{MessageID: "M", ToolUseID: "K", ToolName: "bash"}),
		ev(ipc.TypeDelegateStarted, ipc.DelegateStarted{ToolUseID: "D"}),
		ev(ipc.TypeTodoUpdated, ipc.TodoUpdated{Todos: []store.Todo{{ID: "1", Text: "Fix", Status: store.TodoDone}}, By: store.TodosByUser}),
		ev(ipc.TypeTurnCancelled, ipc.TurnCancelled{Reason: "user_cancel"}),
		ev(ipc.TypeTextDelta, ipc.TextDelta{MessageID: "M", Text: "late"}),
	} {
		got, err := enc.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got...)
	}
	verify(t, out)
	var state *State
	for _, e := range out {
		if e.Type == StateSnapshot {
			state = e.Snapshot
		}
	}
	if state == nil || len(state.Todos) != 1 || state.Todos[0].Status != store.TodoDone {
		t.Fatalf("todo.updated → %+v", state)
	}
	if last := out[len(out)-1]; last.Type != RunFinished || last.Outcome == nil || last.Outcome.Type != "cancelled" {
		t.Fatalf("last %+v", last)
	}
	enc = NewEncoder("th", "T", nil)
	got, _ := enc.Encode(ev(ipc.TypeTurnCompleted, ipc.TurnCompleted{Status: ipc.TurnStatusFailed, Error: "invalid x-api-key", ErrorClass: "auth"}))
	if len(got) != 1 || got[0].Type != RunError || got[0].Code != "auth" || got[0].Message != "invalid x-api-key" || !enc.Done() {
		t.Fatalf("failed turn → %+v", got)
	}
	if _, err := enc.Encode(ipc.Event{Type: ipc.TypeTextDelta, Payload: json.RawMessage(`[1]`)}); err != nil {
		t.Fatalf("after the end an event is ignored, got %v", err)
	}
	if _, err := NewEncoder("th", "T", nil).Encode(ipc.Event{Type: ipc.TypeTextDelta, Payload: json.RawMessage(`[1]`)}); err == nil {
		t.Fatal("a malformed payload was not an error")
	}
}
