package rpc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/rpc"
	"agenthub/ipc/rpc/hubtest"
	"agenthub/store"
)

// outputHub is the test hub with one stored tool output.
type outputHub struct {
	*hubtest.Hub
	text string
}

type readSeekCloser struct{ *strings.Reader }

func (readSeekCloser) Close() error { return nil }

func (h outputHub) Output(_ context.Context, sessionID, toolUseID string) (ipc.ToolOutput, error) {
	if toolUseID != "tu_1" {
		return ipc.ToolOutput{}, fmt.Errorf("no %s: %w", toolUseID, ipc.ErrToolCallNotFound)
	}
	return ipc.ToolOutput{Content: readSeekCloser{strings.NewReader(h.text)}, ModTime: time.Now()}, nil
}

func (h outputHub) Instructions(_ context.Context, id string) ([]ipc.InstructionFile, error) {
	return []ipc.InstructionFile{{Path: "/p/AGENTS.md", Size: 10, Kept: 10, Scope: "project"}}, nil
}

func (h outputHub) UpdateSession(_ context.Context, id string, u ipc.SessionUpdate) (store.Session, error) {
	return store.Session{ID: id, ActiveModel: *u.Model}, nil
}

// TestReadToolOutputChunks: chunks end on whole characters and chain by
// next to the whole output; bad ranges and unknown calls are errors.
func TestReadToolOutputChunks(t *testing.T) {
	h, _ := newHub(t)
	text := strings.Repeat("héllo wörld ✓\n", 50)
	d := rpc.NewDispatcher(nil)
	rpc.RegisterHub(d, outputHub{Hub: h, text: text}, h.Bus.Reader())
	var got strings.Builder
	offset := int64(0)
	for i := 0; ; i++ {
		c := ok[rpc.ToolOutputChunk](t, call(t, d, rpc.MethodReadToolOutput, map[string]any{"session_id": "s1", "tool_use_id": "tu_1", "offset": offset, "length": 7}))
		if c.Offset != offset || c.Size != int64(len(text)) || !strings.HasPrefix(text[offset:], c.Text) {
			t.Fatalf("chunk %d at %d: %+v", i, offset, c)
		}
		got.WriteString(c.Text)
		if c.EOF {
			break
		}
		if c.Next <= offset {
			t.Fatalf("chunk %d made no progress: %+v", i, c)
		}
		offset = c.Next
	}
	if got.String() != text {
		t.Fatal("the chunks do not add up to the output")
	}
	if r := call(t, d, rpc.MethodReadToolOutput, map[string]any{"session_id": "s1", "tool_use_id": "tu_1", "length": 2 << 20}); r.OK || r.Error.Code != rpc.CodeInvalidParams {
		t.Fatalf("2 MiB chunk: %+v", r)
	}
	if r := call(t, d, rpc.MethodReadToolOutput, map[string]any{"session_id": "s1", "tool_use_id": "tu_x"}); r.OK || !strings.Contains(r.Error.Message, "tool call not found") {
		t.Fatalf("unknown call: %+v", r)
	}
	if r := call(t, d, rpc.MethodUpdateSession, map[string]any{"session_id": "s1"}); r.OK || r.Error.Code != rpc.CodeInvalidParams {
		t.Fatalf("empty update: %+v", r)
	}
	if r := ok[rpc.InstructionsResult](t, call(t, d, rpc.MethodGetInstructions, map[string]any{"session_id": "s1"})); len(r.Files) != 1 || r.Files[0].Path != "/p/AGENTS.md" {
		t.Fatalf("getInstructions: %+v", r)
	}
	if s := ok[store.Session](t, call(t, d, rpc.MethodUpdateSession, map[string]any{"session_id": "s1", "model": "openai:gpt-4.1"})); s.ActiveModel != "openai:gpt-4.1" {
		t.Fatalf("update: %+v", s)
	}
}
