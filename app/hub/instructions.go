package hub

import (
	"context"

	"agenthub/app/instructions"
	"agenthub/ipc"
	"agenthub/store"
)

var _ ipc.InstructionsReader = (*Hub)(nil)

// instructionsPrompt is the system prompt section of rec's instruction
// files ("" when there are none or they cannot be read, which is logged).
func (h *Hub) instructionsPrompt(rec store.Session) string {
	files, err := instructions.Find(rec.WorkspacePath, h.cfg.DataDir)
	if err != nil {
		h.log.Warn("hub: reading the project's instructions", "session", rec.ID, "err", err)
		return ""
	}
	return instructions.Prompt(files)
}

// Instructions implements ipc.InstructionsReader: the instruction files the
// session's next turn will read, as they are on disk now.
func (h *Hub) Instructions(_ context.Context, sessionID string) ([]ipc.InstructionFile, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return nil, err
	}
	files, err := instructions.Find(s.record().WorkspacePath, h.cfg.DataDir)
	if err != nil {
		return nil, err
	}
	out := make([]ipc.InstructionFile, 0, len(files))
	for _, f := range files {
		out = append(out, ipc.InstructionFile{Path: f.Path, Size: f.Size, Kept: f.Kept, Scope: f.Scope})
	}
	return out, nil
}
