package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"agenthub/app/llm"
	"agenthub/ipc"
	"agenthub/store"
)

var _ ipc.SessionUpdater = (*Hub)(nil)

// UpdateSession implements ipc.SessionUpdater: it validates the new model
// and workspace like CreateSession and stores them with session.updated.
// A session whose turn runs (or is queued) keeps its options; so does a
// worker, whose model and workspace its parent chose.
func (h *Hub) UpdateSession(ctx context.Context, sessionID string, u ipc.SessionUpdate) (store.Session, error) {
	var model, ws string
	if u.Model != nil {
		model = strings.TrimSpace(*u.Model)
		if model != "" {
			if _, _, err := llm.ParseModel(model); err != nil {
				return store.Session{}, fmt.Errorf("%v: %w", err, ipc.ErrInvalidInput)
			}
		}
	}
	if u.WorkspacePath != nil {
		var err error
		if ws, err = existingDir(*u.WorkspacePath); err != nil {
			return store.Session{}, err
		}
	}
	s, err := h.lookup(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	s.mu.Lock()
	busy, worker := s.running != nil || len(s.queue) > 0, s.rec.ParentSessionID != ""
	s.mu.Unlock()
	switch {
	case busy:
		return store.Session{}, fmt.Errorf("session %s is running a turn; change its model or folder when it ends: %w", sessionID, ipc.ErrInvalidInput)
	case worker:
		return store.Session{}, fmt.Errorf("session %s is a worker; its parent chose its model and folder: %w", sessionID, ipc.ErrInvalidInput)
	}
	return h.updateRecord(ctx, sessionID, func(r *store.Session) {
		if u.Model != nil {
			r.ActiveModel = model
		}
		if u.WorkspacePath != nil {
			r.WorkspacePath = ws
		}
	})
}

// existingDir is path made absolute, or ErrInvalidInput when it is not an
// existing directory.
func existingDir(path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", fmt.Errorf("the folder is empty: %w", ipc.ErrInvalidInput)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("folder %q: %v: %w", p, err, ipc.ErrInvalidInput)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("folder %q is not an existing directory: %w", p, ipc.ErrInvalidInput)
	}
	return abs, nil
}
