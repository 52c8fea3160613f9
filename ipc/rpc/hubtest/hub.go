// Package hubtest is a small, real ipc.HubAPI over the real Bus and store
// for the transports' tests (rpc, wailsipc, dashboard): sessions, messages
// and turns are committed with their events exactly as the hub does, and a
// submitted turn is answered by a scripted assistant that streams the
// user's words back as text.delta events. It is not the product hub
// (app/hub); it exists so transport tests exercise real frames end to end.
package hubtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"agenthub/ipc"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// Hub implements ipc.HubAPI for tests.
type Hub struct {
	Bus *ipc.Bus

	mu       sync.Mutex
	settings map[string]json.RawMessage
	cancels  []string          // "session/turn/reason"
	waiting  map[string]string // tool_use_id → session, awaiting approval
	answers  []ipc.ApproveToolRequest
	rules    map[string][]ipc.PermissionRule
	// attachments are uploads by id; attached the refs submitted with turns.
	attachments map[string][]byte
	attached    []ipc.AttachmentRef
	wg          sync.WaitGroup
	ctx         context.Context
	stop        context.CancelFunc
}

// New returns a hub over bus; Close waits for scripted turns.
func New(bus *ipc.Bus) *Hub {
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{Bus: bus, settings: map[string]json.RawMessage{"model": json.RawMessage(`"anthropic:claude-sonnet-4-6"`)}, ctx: ctx, stop: cancel}
}

// Close stops scripted turns and waits for them.
func (h *Hub) Close() {
	h.stop()
	h.wg.Wait()
}

// Cancels returns the cancels received, as "session/turn/reason".
func (h *Hub) Cancels() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.cancels...)
}

func newID() string { return ulid.Make().String() }

func (h *Hub) db() ipc.StoreReader { return h.Bus.Reader() }

// CreateSession implements ipc.HubAPI.
func (h *Hub) CreateSession(ctx context.Context, req ipc.CreateSessionRequest) (store.Session, error) {
	if strings.ContainsRune(req.WorkspacePath, 0) {
		return store.Session{}, fmt.Errorf("workspace path: %w", ipc.ErrInvalidInput)
	}
	s := store.Session{ID: newID(), Title: req.Title, WorkspacePath: req.WorkspacePath, ActiveModel: req.Model, CreatedAt: time.Now().UTC(), AGUIThreadID: req.AGUIThreadID}
	if s.Title == "" {
		s.Title = "New session"
	}
	if s.ActiveModel == "" {
		s.ActiveModel = "anthropic:claude-sonnet-4-6"
	}
	_, err := h.Bus.Commit(ctx, ipc.Draft{Type: ipc.TypeSessionCreated, SessionID: s.ID, Actor: ipc.ActorSystem,
		Payload: ipc.SessionChanged{Session: s}, Ops: []store.Op{store.PutSession(s)}})
	return s, err
}

// ListSessions implements ipc.HubAPI.
func (h *Hub) ListSessions(context.Context) ([]store.Session, error) { return h.db().Sessions() }

// GetSession implements ipc.HubAPI.
func (h *Hub) GetSession(_ context.Context, id string) (store.Session, error) {
	s, err := h.db().Session(id)
	if errors.Is(err, store.ErrNotFound) {
		return s, fmt.Errorf("session %s: %w", id, ipc.ErrSessionNotFound)
	}
	return s, err
}

// RenameSession implements ipc.HubAPI.
func (h *Hub) RenameSession(ctx context.Context, id, title string) (store.Session, error) {
	return h.updateSession(ctx, id, func(s *store.Session) { s.Title = title })
}

// updateSession applies change to session id and commits it as the user's
// session.updated.
func (h *Hub) updateSession(ctx context.Context, id string, change func(*store.Session)) (store.Session, error) {
	s, err := h.GetSession(ctx, id)
	if err != nil {
		return s, err
	}
	change(&s)
	_, err = h.Bus.Commit(ctx, ipc.Draft{Type: ipc.TypeSessionUpdated, SessionID: id, Actor: ipc.ActorUser,
		Payload: ipc.SessionChanged{Session: s}, Ops: []store.Op{store.PutSession(s)}})
	return s, err
}

// DeleteSession implements ipc.HubAPI.
func (h *Hub) DeleteSession(ctx context.Context, id string) error {
	s, err := h.GetSession(ctx, id)
	if err != nil {
		return err
	}
	_, err = h.Bus.Commit(ctx, ipc.Draft{Type: ipc.TypeSessionUpdated, SessionID: id, Actor: ipc.ActorUser,
		Payload: ipc.SessionChanged{Session: s, Deleted: true}, Ops: []store.Op{store.DeleteSession(id)}})
	return err
}

// SubmitTurn implements ipc.HubAPI: it stores the user message and
// turn.started, then a scripted assistant streams each word of content back
// as a text.delta, completes the message and the turn.
func (h *Hub) SubmitTurn(ctx context.Context, sessionID, content string) (ipc.SubmitResult, error) {
	return h.submit(ctx, sessionID, newID(), content)
}

// SubmitTurnWithID implements ipc.IDSubmitter: SubmitTurn whose user
// message has the client's id (validated; one the session has is
// ErrConflict).
func (h *Hub) SubmitTurnWithID(ctx context.Context, sessionID, messageID, content string) (ipc.SubmitResult, error) {
	if err := ipc.ValidClientMessageID(messageID); err != nil {
		return ipc.SubmitResult{}, err
	}
	if _, err := h.db().Message(sessionID, messageID); err == nil {
		return ipc.SubmitResult{}, fmt.Errorf("message %q exists: %w", messageID, ipc.ErrConflict)
	}
	return h.submit(ctx, sessionID, messageID, content)
}

func (h *Hub) submit(ctx context.Context, sessionID, messageID, content string) (ipc.SubmitResult, error) {
	s, err := h.GetSession(ctx, sessionID)
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	if strings.TrimSpace(content) == "" {
		return ipc.SubmitResult{}, fmt.Errorf("empty content: %w", ipc.ErrInvalidInput)
	}
	now := time.Now().UTC()
	turn := store.Turn{ID: newID(), SessionID: sessionID, UserMessageID: messageID, Status: store.TurnRunning, CreatedAt: now, StartedAt: now}
	user := store.Message{ID: turn.UserMessageID, SessionID: sessionID, TurnID: turn.ID, Role: store.RoleUser,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: content}}, Status: store.StatusComplete, CreatedAt: now}
	s.CurrentTurnID = turn.ID
	s.TurnCount++
	if _, err := h.Bus.Commit(ctx, ipc.Draft{Type: ipc.TypeTurnStarted, SessionID: sessionID, TurnID: turn.ID, Actor: ipc.ActorUser,
		Payload: ipc.TurnStarted{UserMessageID: user.ID, Input: content},
		Ops:     []store.Op{store.PutMessage(user), store.PutTurn(turn), store.PutSession(s)}}); err != nil {
		return ipc.SubmitResult{}, err
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.reply(s, turn, content)
	}()
	return ipc.SubmitResult{TurnID: turn.ID}, nil
}

func (h *Hub) reply(s store.Session, turn store.Turn, content string) {
	msgID := newID()
	emit := func(d ipc.Draft) bool {
		d.SessionID, d.TurnID, d.Actor = s.ID, turn.ID, ipc.ActorAgent
		return h.ctx.Err() == nil && h.Bus.Emit(d) == nil
	}
	if !emit(ipc.Draft{Type: ipc.TypeMessageStart, Payload: ipc.MessageStart{MessageID: msgID, Role: store.RoleAssistant, Model: s.ActiveModel}}) {
		return
	}
	for _, w := range strings.Fields(content) {
		if !emit(ipc.Draft{Type: ipc.TypeTextDelta, Payload: ipc.TextDelta{MessageID: msgID, Text: w + " "}}) {
			return
		}
	}
	final := []store.ContentBlock{{Type: store.BlockText, Text: strings.Join(strings.Fields(content), " ") + " "}}
	msg := store.Message{ID: msgID, SessionID: s.ID, TurnID: turn.ID, Role: store.RoleAssistant, Content: final,
		Status: store.StatusComplete, StopReason: "end_turn", Model: s.ActiveModel, CreatedAt: time.Now().UTC()}
	turn.Status, turn.EndedAt = store.TurnCompleted, time.Now().UTC()
	s.CurrentTurnID = ""
	emit(ipc.Draft{Type: ipc.TypeMessageComplete, Payload: ipc.MessageComplete{MessageID: msgID, StopReason: "end_turn", FinalContent: final},
		Ops: []store.Op{store.PutMessage(msg)}})
	emit(ipc.Draft{Type: ipc.TypeTurnCompleted, Payload: ipc.TurnCompleted{Status: ipc.TurnStatusCompleted, StopReason: "end_turn"},
		Ops: []store.Op{store.PutTurn(turn), store.PutSession(s)}})
}

// CancelTurn implements ipc.HubAPI: it records the cancel and emits
// turn.cancelled; an unknown turn id is ErrTurnNotFound.
func (h *Hub) CancelTurn(ctx context.Context, sessionID, turnID, reason string) error {
	if _, err := h.GetSession(ctx, sessionID); err != nil {
		return err
	}
	if turnID != "" {
		ts, err := h.db().Turns(sessionID)
		if err != nil {
			return err
		}
		found := false
		for _, t := range ts {
			found = found || t.ID == turnID
		}
		if !found {
			return fmt.Errorf("turn %s: %w", turnID, ipc.ErrTurnNotFound)
		}
	}
	h.mu.Lock()
	h.cancels = append(h.cancels, sessionID+"/"+turnID+"/"+reason)
	h.mu.Unlock()
	_, err := h.Bus.Commit(ctx, ipc.Draft{Type: ipc.TypeTurnCancelled, SessionID: sessionID, TurnID: turnID, Actor: ipc.ActorUser,
		Payload: ipc.TurnCancelled{Reason: reason}})
	return err
}

// CompactSession implements ipc.HubAPI with a compaction.started/completed pair.
func (h *Hub) CompactSession(ctx context.Context, id string) error {
	if _, err := h.GetSession(ctx, id); err != nil {
		return err
	}
	_, err := h.Bus.Commit(ctx,
		ipc.Draft{Type: ipc.TypeCompactionStarted, SessionID: id, Actor: ipc.ActorSystem, Payload: ipc.CompactionStarted{Trigger: "request"}},
		ipc.Draft{Type: ipc.TypeCompactionComplete, SessionID: id, Actor: ipc.ActorSystem, Payload: ipc.CompactionCompleted{Reason: "summary"}})
	return err
}

// ExportSession implements ipc.HubAPI.
func (h *Hub) ExportSession(ctx context.Context, id, format string) ([]byte, string, error) {
	s, err := h.GetSession(ctx, id)
	if err != nil {
		return nil, "", err
	}
	ms, _, err := h.db().Messages(id, 0, 0)
	if err != nil {
		return nil, "", err
	}
	switch format {
	case "json":
		b, err := json.Marshal(map[string]any{"session": s, "messages": ms})
		return b, "application/json", err
	case "markdown":
		var sb strings.Builder
		fmt.Fprintf(&sb, "# %s\n", s.Title)
		for _, m := range ms {
			for _, c := range m.Content {
				fmt.Fprintf(&sb, "\n**%s**: %s\n", m.Role, c.Text)
			}
		}
		return []byte(sb.String()), "text/markdown", nil
	}
	return nil, "", fmt.Errorf("format %q: %w", format, ipc.ErrInvalidInput)
}

// GetSettings implements ipc.HubAPI.
func (h *Hub) GetSettings(context.Context) (json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return json.Marshal(h.settings)
}

// UpdateSettings implements ipc.HubAPI (a shallow merge).
func (h *Hub) UpdateSettings(_ context.Context, patch json.RawMessage) (json.RawMessage, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, fmt.Errorf("settings patch: %v: %w", err, ipc.ErrInvalidInput)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, v := range p {
		h.settings[k] = v
	}
	return json.Marshal(h.settings)
}

// ListModels implements ipc.HubAPI.
func (h *Hub) ListModels(context.Context) ([]ipc.ModelInfo, error) {
	return []ipc.ModelInfo{{ID: "anthropic:claude-sonnet-4-6", Provider: "anthropic", ContextWindow: 200000, Configured: true}}, nil
}

var _ ipc.HubAPI = (*Hub)(nil)
