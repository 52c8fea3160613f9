package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"agenthub/ipc"
)

// A seed004 subscription that resumes inside a long turn — many text
// chunks, a tool with much streamed output, and a worker's tool call under
// a delegation — gets the turn so far replayed and coalesced into a few
// frames (the answer's text in one, each call's output joined), carrying
// the resume point's id; a client that applies them and then the live
// stream ends as one that watched it all.
func TestSeed004ResumeReplaysTheTurnCoalesced(t *testing.T) {
	b, _ := newTestBus(t, ipc.Options{})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	mkSession(t, b, "w", "s")
	commit := func(ds ...ipc.Draft) []ipc.Event {
		t.Helper()
		evs, err := b.Commit(ctx, ds...)
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	d := func(sid, typ string, p any) ipc.Draft {
		return ipc.Draft{Type: typ, SessionID: sid, TurnID: "T", Actor: ipc.ActorAgent, Payload: p}
	}
	live := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Dialect: Seed004})
	commit(d("s", ipc.TypeTurnStarted, ipc.TurnStarted{UserMessageID: "U", Input: "go"}),
		d("s", ipc.TypeMessageStart, ipc.MessageStart{MessageID: "M", Role: "assistant"}))
	var want strings.Builder
	for i := range 2000 {
		chunk := fmt.Sprintf("w%d ", i)
		want.WriteString(chunk)
		commit(delta("s", "M", chunk))
	}
	commit(d("s", ipc.TypeToolUseStart, ipc.ToolUseStart{MessageID: "M", ToolUseID: "t1", ToolName: "bash"}),
		d("s", ipc.TypeToolUseEnd, ipc.ToolUseEnd{MessageID: "M", ToolUseID: "t1", FinalInput: json.RawMessage(`{"command":"yes"}`)}),
		d("s", ipc.TypeToolCalled, ipc.ToolCalled{ToolUseID: "t1", ToolName: "bash", Input: json.RawMessage(`{"command":"yes"}`), StatusText: "Running: yes"}))
	var out strings.Builder
	for range 2000 {
		out.WriteString("y\n")
		commit(d("s", ipc.TypeToolOutputDelta, ipc.ToolOutputDelta{ToolUseID: "t1", Stream: "stdout", Text: "y\n"}))
	}
	commit(d("s", ipc.TypeToolCompleted, ipc.ToolCompleted{ToolUseID: "t1", ToolName: "bash", StatusText: "Ran: yes"}),
		d("s", ipc.TypeToolCalled, ipc.ToolCalled{ToolUseID: "t2", ToolName: "delegate", Input: json.RawMessage(`{"task":"t"}`), StatusText: "Starting"}),
		d("s", ipc.TypeDelegateStarted, ipc.DelegateStarted{ToolUseID: "t2", WorkerSessionID: "w", Task: "t"}),
		d("w", ipc.TypeToolCalled, ipc.ToolCalled{ToolUseID: "wt", ToolName: "read_file", Input: json.RawMessage(`{"path":"a"}`), StatusText: "Reading a"}),
		d("s", ipc.TypeToolOutputDelta, ipc.ToolOutputDelta{ToolUseID: "t2", Stream: "worker", Text: "working"}))
	cursor := commit(d("w", ipc.TypeToolCompleted, ipc.ToolCompleted{ToolUseID: "wt", ToolName: "read_file", StatusText: "Read a"}))[0].ID.String()

	resumed := subscribe(t, b, ipc.SubscribeRequest{SessionID: "s", Since: &cursor, Dialect: Seed004})
	if !resumed.Ack().ResolvedFilter.IncludeWorkerSessions {
		t.Fatal("a seed004 subscription does not include the worker sessions")
	}
	commit(d("s", ipc.TypeToolCompleted, ipc.ToolCompleted{ToolUseID: "t2", ToolName: "delegate", StatusText: "Done"}),
		d("s", ipc.TypeTurnCompleted, ipc.TurnCompleted{Status: ipc.TurnStatusCompleted}))

	// answer is what a client of frames ends with: text, and per call its
	// last event type and joined output.
	answer := func(s *ipc.Subscription, frames *int) string {
		var text strings.Builder
		calls := map[string]string{}
		var order []string
		for {
			f := next(t, s)
			*frames++
			var r chatAgentResponse
			if err := json.Unmarshal(f.Data, &r); err != nil {
				t.Fatalf("%s: %v", f.Data, err)
			}
			text.WriteString(r.Message)
			for _, tc := range r.ToolCalls {
				if _, ok := calls[tc.CallID]; !ok {
					order = append(order, tc.CallID)
				}
				_, stream, _ := strings.Cut(calls[tc.CallID], "|")
				if tc.StreamPart != nil {
					stream += *tc.StreamPart
				}
				calls[tc.CallID] = tc.EventType + "|" + stream
			}
			if r.End != nil {
				var sb strings.Builder
				for _, id := range order {
					fmt.Fprintf(&sb, "%s=%s;", id, calls[id])
				}
				return text.String() + "#" + sb.String()
			}
		}
	}
	var liveFrames, resumedFrames int
	got, wantAnswer := answer(resumed, &resumedFrames), answer(live, &liveFrames)
	if got != wantAnswer || !strings.HasPrefix(got, want.String()+"#t1=result|"+out.String()+";t2=delegation_result|working;wt=result|;") {
		t.Fatalf("resumed answer\n%.300s\nlive\n%.300s", got, wantAnswer)
	}
	if resumedFrames > 10 {
		t.Fatalf("the resume sent %d frames for a turn of %d events (live: %d); want them coalesced", resumedFrames, liveFrames, liveFrames)
	}
}
