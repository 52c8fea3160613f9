package hub

// The sessions' lifecycle: create (top level and internal), list, get,
// rename and delete, and the lookups the rest of the hub goes through.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"agenthub/app/agent"
	"agenthub/app/llm"
	"agenthub/ipc"
	"agenthub/store"
)

// CreateSession creates a top-level session (session.created).
func (h *Hub) CreateSession(ctx context.Context, req ipc.CreateSessionRequest) (store.Session, error) {
	ws := strings.TrimSpace(req.WorkspacePath)
	if ws == "" {
		ws = h.DefaultWorkspace()
	}
	if ws == "" {
		return store.Session{}, fmt.Errorf("choose the session's folder: Agent Hub was started without --workspace and no folder was chosen yet: %w", ipc.ErrInvalidInput)
	}
	abs, err := existingDir(ws)
	if err != nil {
		return store.Session{}, err
	}
	model := strings.TrimSpace(req.Model)
	if model != "" {
		if _, _, err := llm.ParseModel(model); err != nil {
			return store.Session{}, fmt.Errorf("%v: %w", err, ipc.ErrInvalidInput)
		}
	}
	title := strings.TrimSpace(req.Title)
	if len(title) > 200 {
		return store.Session{}, fmt.Errorf("title longer than 200 bytes: %w", ipc.ErrInvalidInput)
	}
	source := TitleByUser
	if title == "" {
		title, source = DefaultTitle, ""
	}
	rec := store.Session{
		ID: agent.NewID(), Title: title, TitleSource: source, WorkspacePath: abs, ActiveModel: model,
		CreatedAt: time.Now().UTC(), ApprovalMode: string(h.defaultApprovalMode()), AGUIThreadID: req.AGUIThreadID,
	}
	created, err := h.createSession(ctx, rec)
	if err == nil && h.cfg.AskWorkspace {
		h.mu.Lock()
		h.defaultWS = abs
		h.mu.Unlock()
		if h.cfg.OnWorkspaceChosen != nil {
			h.cfg.OnWorkspaceChosen(abs)
		}
	}
	return created, err
}

// DefaultWorkspace is the folder of a new session that names none: the
// configured one, or with AskWorkspace the last one chosen ("" before any).
func (h *Hub) DefaultWorkspace() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.defaultWS
}

// createSession registers rec and commits session.created (with ops:
// a fork's copied messages).
func (h *Hub) createSession(ctx context.Context, rec store.Session, ops ...store.Op) (store.Session, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return store.Session{}, errors.New("hub is closed")
	}
	h.sessions[rec.ID] = &session{rec: rec}
	h.mu.Unlock()
	_, err := h.bus.Commit(ctx, ipc.Draft{
		Type: ipc.TypeSessionCreated, SessionID: rec.ID, Actor: ipc.ActorSystem,
		Payload: ipc.SessionChanged{Session: rec}, Ops: append([]store.Op{store.PutSession(rec)}, ops...),
	})
	if err != nil {
		h.mu.Lock()
		delete(h.sessions, rec.ID)
		h.mu.Unlock()
		return store.Session{}, fmt.Errorf("creating session: %w", err)
	}
	return rec, nil
}

// ListSessions returns every session, newest first.
func (h *Hub) ListSessions(ctx context.Context) ([]store.Session, error) {
	h.mu.Lock()
	var live []*session
	for _, s := range h.sessions {
		if !s.deleted {
			live = append(live, s)
		}
	}
	h.mu.Unlock()
	out := make([]store.Session, 0, len(live))
	for _, s := range live {
		out = append(out, s.record())
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// GetSession returns one session.
func (h *Hub) GetSession(ctx context.Context, sessionID string) (store.Session, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	return s.record(), nil
}

// CurrentModel implements ipc.ModelRouter: the session's pinned model, or
// the routing policy's choice now, without pinning it ("" when no model is
// configured).
func (h *Hub) CurrentModel(ctx context.Context, sessionID string) (string, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return "", err
	}
	d, _ := h.route(ctx, s.record())
	return d.Model, nil
}

// record returns a copy of the session record.
func (s *session) record() store.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}

func (h *Hub) lookup(sessionID string) (*session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lookupLocked(sessionID)
}

func (h *Hub) lookupLocked(sessionID string) (*session, error) {
	s := h.sessions[sessionID]
	if s == nil || s.deleted {
		return nil, fmt.Errorf("session %q: %w", sessionID, ipc.ErrSessionNotFound)
	}
	return s, nil
}

// RenameSession sets a session's title (session.updated).
func (h *Hub) RenameSession(ctx context.Context, sessionID, title string) (store.Session, error) {
	title = strings.TrimSpace(title)
	if title == "" || len(title) > 200 {
		return store.Session{}, fmt.Errorf("title must be 1–200 bytes: %w", ipc.ErrInvalidInput)
	}
	s, err := h.lookup(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	s.mu.Lock()
	s.rec.Title, s.rec.TitleSource = title, TitleByUser
	rec := s.rec
	err = h.bus.Emit(h.sessionDraft(rec, ipc.ActorUser))
	s.mu.Unlock()
	if err != nil {
		return store.Session{}, fmt.Errorf("renaming session: %w", err)
	}
	return rec, nil
}

// sessionDraft is a session.updated draft storing rec.
func (h *Hub) sessionDraft(rec store.Session, actor string) ipc.Draft {
	return ipc.Draft{
		Type: ipc.TypeSessionUpdated, SessionID: rec.ID, Actor: actor,
		Payload: ipc.SessionChanged{Session: rec}, Ops: []store.Op{store.PutSession(rec)},
	}
}

// DeleteSession cancels the session's running turn, drops its queue, waits
// for the turn to finish and deletes the session with its messages and turns
// (session.updated with deleted: true). Its events stay until retention.
func (h *Hub) DeleteSession(ctx context.Context, sessionID string) error {
	h.mu.Lock()
	s, err := h.lookupLocked(sessionID)
	if err != nil {
		h.mu.Unlock()
		return err
	}
	s.deleted = true
	s.queue = nil
	r := s.running
	if r != nil && !r.cancelling {
		r.cancelling = true
		r.cancel(errSessionDeleted)
	}
	h.mu.Unlock()
	if r != nil {
		select {
		case <-r.done:
		case <-ctx.Done():
			return fmt.Errorf("deleting session %s: waiting for its turn: %w", sessionID, ctx.Err())
		}
	}
	s.mu.Lock()
	d := ipc.Draft{
		Type: ipc.TypeSessionUpdated, SessionID: sessionID, Actor: ipc.ActorUser,
		Payload: ipc.SessionChanged{Session: s.rec, Deleted: true}, Ops: []store.Op{store.DeleteSession(sessionID)},
	}
	_, err = h.bus.Commit(context.WithoutCancel(ctx), d)
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("deleting session %s: %w", sessionID, err)
	}
	h.mu.Lock()
	delete(h.sessions, sessionID)
	h.mu.Unlock()
	if err := os.RemoveAll(h.outputDir(sessionID)); err != nil {
		h.log.Warn("hub: removing a deleted session's tool output", "session", sessionID, "err", err)
	}
	if err := h.checkpoints.DeleteSession(sessionID); err != nil {
		h.log.Warn("hub: removing a deleted session's file checkpoints", "session", sessionID, "err", err)
	}
	return nil
}
