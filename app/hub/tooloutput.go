package hub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

var _ ipc.ToolOutputs = (*Hub)(nil)

// Output implements ipc.ToolOutputs: the call's output file when it has
// one (bash), else the text of its toolResult message. A bash call whose
// file retention removed is ErrToolOutputExpired.
func (h *Hub) Output(ctx context.Context, sessionID, toolUseID string) (ipc.ToolOutput, error) {
	if _, err := h.lookup(sessionID); err != nil {
		return ipc.ToolOutput{}, err
	}
	if toolUseID == "" || len(toolUseID) > 256 {
		return ipc.ToolOutput{}, fmt.Errorf("tool call %q: %w", toolUseID, ipc.ErrToolCallNotFound)
	}
	result, found, err := h.toolResult(sessionID, toolUseID)
	if err != nil {
		return ipc.ToolOutput{}, err
	}
	path := tool.OutputLogPath(h.outputDir(sessionID), toolUseID)
	if f, err := os.Open(path); err == nil {
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			f.Close()
			return ipc.ToolOutput{}, fmt.Errorf("tool output %s: not a regular file: %w", toolUseID, ipc.ErrToolCallNotFound)
		}
		return ipc.ToolOutput{Content: f, ModTime: fi.ModTime()}, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return ipc.ToolOutput{}, fmt.Errorf("opening tool output %s: %w", toolUseID, err)
	}
	switch {
	case !found:
		return ipc.ToolOutput{}, fmt.Errorf("session %s has no tool call %q: %w", sessionID, toolUseID, ipc.ErrToolCallNotFound)
	case result.ToolName == "bash" && result.Status == store.StatusComplete:
		return ipc.ToolOutput{}, fmt.Errorf("the full output of %s was removed after the retention period (--event-retention); "+
			"the capped output is in its toolResult message: %w", toolUseID, ipc.ErrToolOutputExpired)
	}
	return ipc.ToolOutput{Content: nopCloser{strings.NewReader(store.TextOf(result.Content))}, ModTime: result.CreatedAt}, nil
}

// toolResult finds the toolResult message of call toolUseID, newest first.
func (h *Hub) toolResult(sessionID, toolUseID string) (store.Message, bool, error) {
	before := ""
	for {
		msgs, more, err := h.db.MessagesBefore(sessionID, before, 500)
		if err != nil {
			return store.Message{}, false, fmt.Errorf("reading messages of %s: %w", sessionID, err)
		}
		for i := len(msgs) - 1; i >= 0; i-- {
			if m := msgs[i]; m.Role == store.RoleToolResult && m.ToolCallID == toolUseID {
				return m, true, nil
			}
		}
		if !more || len(msgs) == 0 {
			return store.Message{}, false, nil
		}
		before = msgs[0].ID
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }
