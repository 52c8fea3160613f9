package hub

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"agenthub/app/checkpoint"
	"agenthub/ipc"
	"agenthub/store"
)

// Bounds of the contents TurnChanges shows.
const (
	maxDiffText  = 256 << 10
	maxDiffTotal = 768 << 10
)

var _ ipc.TurnUndoer = (*Hub)(nil)

// TurnChanges implements ipc.TurnUndoer.
func (h *Hub) TurnChanges(_ context.Context, sessionID, turnID string) (ipc.TurnChanges, error) {
	if _, err := h.lookup(sessionID); err != nil {
		return ipc.TurnChanges{}, err
	}
	out := ipc.TurnChanges{TurnID: turnID, Changes: []ipc.FileChange{}}
	m, err := h.checkpoints.Manifest(sessionID, turnID)
	if errors.Is(err, checkpoint.ErrNoChanges) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	out.Workspace = m.Workspace
	budget := maxDiffTotal
	text := func(blob string) *string {
		t, ok := h.checkpoints.Text(blob)
		if !ok || len(t) > maxDiffText || len(t) > budget || !utf8.ValidString(t) {
			return nil
		}
		budget -= len(t)
		return &t
	}
	for _, c := range m.Changes {
		fc := ipc.FileChange{Path: c.Path, Tool: c.Tool, Status: "modified", Unrestorable: c.Unrestorable}
		switch {
		case c.Created:
			fc.Status = "created"
		case c.Deleted:
			fc.Status = "deleted"
		}
		if !c.Created {
			fc.Before = text(c.Before)
		}
		if !c.Deleted {
			fc.After = text(c.After)
		}
		out.Changes = append(out.Changes, fc)
	}
	if m.Undone != nil {
		u := undone(*m.Undone)
		out.Undone = &u
	}
	return out, nil
}

// UndoTurn implements ipc.TurnUndoer: it restores the turn's files
// (checkpoint.Store.Undo) and tells every client with turn.undone.
func (h *Hub) UndoTurn(ctx context.Context, sessionID, turnID string) (ipc.TurnUndone, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return ipc.TurnUndone{}, err
	}
	h.mu.Lock()
	busy := s.busyLocked()
	h.mu.Unlock()
	if busy {
		return ipc.TurnUndone{}, fmt.Errorf("a turn is running in this session: undo once it has ended (or stop it): %w", ipc.ErrInvalidInput)
	}
	turns, err := h.db.Turns(sessionID)
	if err != nil {
		return ipc.TurnUndone{}, fmt.Errorf("reading turns: %w", err)
	}
	var t *store.Turn
	for i := range turns {
		if turns[i].ID == turnID {
			t = &turns[i]
		}
	}
	if t == nil {
		return ipc.TurnUndone{}, fmt.Errorf("turn %q: %w", turnID, ipc.ErrTurnNotFound)
	}
	res, err := h.checkpoints.Undo(sessionID, turnID)
	switch {
	case errors.Is(err, checkpoint.ErrNoChanges):
		return ipc.TurnUndone{}, fmt.Errorf("the turn changed no files: %w", ipc.ErrInvalidInput)
	case errors.Is(err, checkpoint.ErrAlreadyUndone):
		return undone(res), fmt.Errorf("the turn's changes were already undone: %w", ipc.ErrInvalidInput)
	case err != nil:
		return ipc.TurnUndone{}, err
	}
	p := undone(res)
	t.FilesUndone = true
	s.mu.Lock()
	_, err = h.bus.Commit(context.WithoutCancel(ctx), ipc.Draft{
		Type: ipc.TypeTurnUndone, SessionID: sessionID, TurnID: turnID, Actor: ipc.ActorUser,
		Payload: p, Ops: []store.Op{store.PutTurn(*t)},
	})
	s.mu.Unlock()
	if err != nil {
		return p, fmt.Errorf("recording the undo: %w", err)
	}
	h.log.Info("hub: turn undone", "session", sessionID, "turn", turnID, "restored", len(p.Restored), "skipped", len(p.Skipped))
	return p, nil
}

func undone(r checkpoint.UndoResult) ipc.TurnUndone {
	p := ipc.TurnUndone{Restored: append([]string{}, r.Restored...), Skipped: []ipc.SkippedFile{}}
	for _, s := range r.Skipped {
		p.Skipped = append(p.Skipped, ipc.SkippedFile{Path: s.Path, Reason: s.Reason})
	}
	return p
}
