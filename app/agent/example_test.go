package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"agenthub/app/agent"
	"agenthub/app/llm/llmtest"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

// printRecorder is a Recorder that prints the events of the turn and
// keeps its messages (the hub commits both to the bus instead).
type printRecorder struct{ msgs []store.Message }

func (r *printRecorder) Emit(d ipc.Draft, _ func(*store.Session)) { r.Commit(d, nil) }

func (r *printRecorder) Commit(d ipc.Draft, _ func(*store.Session)) {
	switch d.Type {
	case ipc.TypeTextDelta, ipc.TypeToolUseInputDelta, ipc.TypeLLMCallStarted, ipc.TypeLLMCallCompleted,
		ipc.TypeRouteDecided, ipc.TypeToolOutputDelta:
		return // the stream's detail
	}
	fmt.Println(d.Type)
	for _, op := range d.Ops {
		if op.Kind == store.OpPutMessage {
			r.msgs = append(r.msgs, op.Message)
		}
	}
}

// One turn: the model calls read_file, the loop runs it in the
// workspace, sends the result back and the model answers. The provider
// here is the in-memory twin; the hub passes its *llm.Registry.
func ExampleRun() {
	ws, _ := os.MkdirTemp("", "agent-example")
	defer os.RemoveAll(ws)
	_ = os.WriteFile(filepath.Join(ws, "note.txt"), []byte("the answer is 42\n"), 0o600)

	rec := &printRecorder{msgs: []store.Message{{ID: "u1", Role: store.RoleUser,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: "What does note.txt say?"}}}}}
	out := agent.Run(context.Background(), agent.Config{
		SessionID: "s1", TurnID: "t1", Model: "anthropic:claude-sonnet-4-6",
		Providers: llmtest.NewScripted(
			llmtest.ToolReply("call_1", "read_file", `{"path":"note.txt"}`),
			llmtest.TextReply("It says the answer is 42."),
		),
		Tools:    tool.Builtins(nil),
		Env:      tool.Env{Workspace: ws},
		Recorder: rec,
		Context: func(context.Context) (string, []store.Message, error) {
			return "You are terse.", rec.msgs, nil
		},
	})
	fmt.Println(out.Status, out.FinalText)
	// Output:
	// message.start
	// tool.use_start
	// tool.use_end
	// message.complete
	// tool.called
	// tool.completed
	// message.start
	// message.complete
	// completed It says the answer is 42.
}
