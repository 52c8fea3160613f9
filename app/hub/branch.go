package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"agenthub/app/agent"
	"agenthub/ipc"
	"agenthub/store"
)

// Branching (docs/branching.md): history is never deleted. Regenerate
// answers a user message again and edit-and-resend sends a changed copy of
// it; either way the new messages are siblings of the old ones, the
// session's current path runs through the new ones, and the model only ever
// sees the current path. SwitchBranch moves the path to another sibling;
// ForkSession copies the path up to a message into a new session.

var _ ipc.Brancher = (*Hub)(nil)

// hangOnHead gives the first message put by ops the session's head as its
// parent and moves the head back to the newest message (the one being
// stored): the next turn after a branch switch, regenerate or edit
// continues from the right message. It reports whether rec changed.
func hangOnHead(rec *store.Session, ops []store.Op) bool {
	if rec.HeadID == "" {
		return false
	}
	for i := range ops {
		if ops[i].Kind == store.OpPutMessage && ops[i].Message.SessionID == rec.ID {
			if ops[i].Message.ParentID == "" {
				ops[i].Message.ParentID = rec.HeadID
			}
			rec.HeadID = ""
			return true
		}
	}
	return false
}

// branchable returns the session when a branch operation may run: it
// exists, is not a worker, and runs or queues no turn.
func (h *Hub) branchable(sessionID string) (*session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.lookupLocked(sessionID)
	if err != nil {
		return nil, err
	}
	if s.busyLocked() {
		return nil, fmt.Errorf("a turn is running in this session: wait for it to end (or stop it) first: %w", ipc.ErrInvalidInput)
	}
	if s.record().ParentSessionID != "" {
		return nil, fmt.Errorf("a worker session's history cannot be branched: %w", ipc.ErrInvalidInput)
	}
	return s, nil
}

// at finds messageID on the current path of a session that may branch now
// (branchable): the session, the tree, the path and the position.
func (h *Hub) at(sessionID, messageID string) (*session, *ipc.Tree, []int, int, error) {
	s, err := h.branchable(sessionID)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	t, path, pos, err := h.onPath(s, messageID)
	return s, t, path, pos, err
}

// onPath finds messageID on the session's current path: the tree, the
// path (storage indexes) and the message's position on it.
func (h *Hub) onPath(s *session, messageID string) (*ipc.Tree, []int, int, error) {
	rec := s.record()
	t, err := h.db.Tree(rec.ID)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("reading the session's messages: %w", err)
	}
	path := t.PathTo(t.Head(rec))
	for pos, i := range path {
		if t.Messages[i].ID == messageID {
			return t, path, pos, nil
		}
	}
	return nil, nil, 0, fmt.Errorf("message %q is not on the session's current path: %w", messageID, ipc.ErrInvalidInput)
}

// setHead commits the session's new head (session.branched, with the
// session record), marking it branched; a compaction that summarised
// messages past the branch point (keep: the positions still shared) is
// dropped, so the model sees the new path whole until it compacts again.
//
// The turns of the abandoned messages (old path positions from keep on)
// that changed files not undone yet are listed in the event, so the client
// can offer to undo them.
func (h *Hub) setHead(ctx context.Context, s *session, headID string, keep int, reason, messageID string, abandoned []store.Message) (store.Session, error) {
	left := h.changedTurns(s.record().ID, abandoned)
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.rec
	s.rec.Branched, s.rec.HeadID = true, headID
	if s.rec.ContextStartOffset > int64(keep) {
		s.rec.ContextStartOffset, s.rec.ContextSummary = 0, ""
	}
	_, err := h.bus.Commit(context.WithoutCancel(ctx), ipc.Draft{
		Type: ipc.TypeSessionBranched, SessionID: s.rec.ID, Actor: ipc.ActorUser,
		Payload: ipc.SessionBranched{Reason: reason, MessageID: messageID, HeadID: headID, Session: s.rec, AbandonedTurns: left},
		Ops:     []store.Op{store.PutSession(s.rec)},
	})
	if err != nil {
		s.rec = prev
		return store.Session{}, fmt.Errorf("storing the branch: %w", err)
	}
	return s.rec, nil
}

// Regenerate implements ipc.Brancher: a new turn answers the user message
// messageID (or the one whose turn produced messageID) again; the new
// answer is a sibling of the old one.
func (h *Hub) Regenerate(ctx context.Context, sessionID, messageID string) (ipc.SubmitResult, error) {
	s, t, path, pos, err := h.at(sessionID, messageID)
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	// The user message that started the answer's turn: the nearest user
	// message at or before it on the path.
	for pos >= 0 && t.Messages[path[pos]].Role != store.RoleUser {
		pos--
	}
	if pos < 0 {
		return ipc.SubmitResult{}, fmt.Errorf("no user message before %q to answer again: %w", messageID, ipc.ErrInvalidInput)
	}
	user := t.Messages[path[pos]]
	if _, err := h.setHead(ctx, s, user.ID, pos+1, ipc.BranchRegenerate, user.ID, messagesAt(t, path[pos+1:])); err != nil {
		return ipc.SubmitResult{}, err
	}
	turn := store.Turn{ID: agent.NewID(), SessionID: sessionID, UserMessageID: user.ID, Status: store.TurnQueued, CreatedAt: time.Now().UTC()}
	return h.enqueueTurn(ctx, s, turn)
}

// EditAndResend implements ipc.Brancher: content, as a changed copy of the
// user message messageID, starts a new turn; the copy is a sibling of the
// original.
func (h *Hub) EditAndResend(ctx context.Context, sessionID, messageID, content string) (ipc.SubmitResult, error) {
	if strings.TrimSpace(content) == "" {
		return ipc.SubmitResult{}, fmt.Errorf("empty message: %w", ipc.ErrInvalidInput)
	}
	if _, _, err := h.branchBeforeUser(ctx, sessionID, messageID, ipc.BranchEdit); err != nil {
		return ipc.SubmitResult{}, err
	}
	return h.SubmitTurn(ctx, sessionID, content)
}

// RetryTurn implements ipc.Brancher: the turn the user message messageID
// started (a failed or interrupted one, typically) runs again as a new
// version of it: an exact copy of the message — every block, attachments
// included — becomes its sibling and starts a new turn, so the old version
// and its outcome stay one click away (‹ n/m ›) instead of a second copy of
// the question following it.
func (h *Hub) RetryTurn(ctx context.Context, sessionID, messageID string) (ipc.SubmitResult, error) {
	s, user, err := h.branchBeforeUser(ctx, sessionID, messageID, ipc.BranchRetry)
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	return h.submitBlocks(ctx, s, "", userText(user.Content), slices.Clone(user.Content), h.turnOptionsOf(sessionID, user.ID))
}

// branchBeforeUser takes the user message messageID and all after it off
// the session's path, so that the message before it (or none) is the head
// and the next user message becomes its sibling; reason is the
// session.branched reason. It returns the session and the user message.
func (h *Hub) branchBeforeUser(ctx context.Context, sessionID, messageID, reason string) (*session, store.Message, error) {
	s, t, path, pos, err := h.at(sessionID, messageID)
	if err != nil {
		return nil, store.Message{}, err
	}
	user := t.Messages[path[pos]]
	if user.Role != store.RoleUser {
		return nil, store.Message{}, fmt.Errorf("message %q is not a user message: %w", messageID, ipc.ErrInvalidInput)
	}
	parent := store.RootParent
	if pos > 0 {
		parent = t.Messages[path[pos-1]].ID
	}
	if _, err := h.setHead(ctx, s, parent, pos, reason, messageID, messagesAt(t, path[pos:])); err != nil {
		return nil, store.Message{}, err
	}
	return s, user, nil
}

// userText is the text a user message was typed with (its first text block).
func userText(blocks []store.ContentBlock) string {
	for _, b := range blocks {
		if b.Type == store.BlockText {
			return b.Text
		}
	}
	return ""
}

// SwitchBranch implements ipc.Brancher: the current path moves to the
// branch through messageID (any stored message of the session), to its
// newest leaf. Nothing is deleted.
func (h *Hub) SwitchBranch(ctx context.Context, sessionID, messageID string) (store.Session, error) {
	s, err := h.branchable(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	t, err := h.db.Tree(sessionID)
	if err != nil {
		return store.Session{}, fmt.Errorf("reading the session's messages: %w", err)
	}
	i, ok := t.Index(messageID)
	if !ok {
		return store.Session{}, fmt.Errorf("message %q is not in session %s: %w", messageID, sessionID, ipc.ErrInvalidInput)
	}
	leaf := t.Leaf(i)
	head := t.Messages[leaf].ID
	if leaf == len(t.Messages)-1 {
		head = ""
	}
	// The positions the old and the new path share keep their compaction.
	old := t.PathTo(t.Head(s.record()))
	shared := 0
	for _, j := range t.PathTo(leaf) {
		if shared < len(old) && old[shared] == j {
			shared++
		} else {
			break
		}
	}
	return h.setHead(ctx, s, head, shared, ipc.BranchSwitch, messageID, messagesAt(t, old[shared:]))
}

// messagesAt is the messages at storage indexes idx.
func messagesAt(t *ipc.Tree, idx []int) []store.Message {
	out := make([]store.Message, len(idx))
	for k, i := range idx {
		out[k] = t.Messages[i]
	}
	return out
}

// changedTurns lists the turns of msgs, newest first, whose file changes
// are still in place (changed files, not undone).
func (h *Hub) changedTurns(sessionID string, msgs []store.Message) []ipc.AbandonedTurn {
	if len(msgs) == 0 {
		return nil
	}
	turns, err := h.db.Turns(sessionID)
	if err != nil {
		h.log.Warn("hub: reading turns for a branch", "session", sessionID, "err", err)
		return nil
	}
	byID := map[string]store.Turn{}
	for _, t := range turns {
		byID[t.ID] = t
	}
	seen := map[string]bool{}
	var out []ipc.AbandonedTurn
	for i := len(msgs) - 1; i >= 0; i-- {
		id := msgs[i].TurnID
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if t, ok := byID[id]; ok && t.FilesChanged > 0 && !t.FilesUndone {
			out = append(out, ipc.AbandonedTurn{TurnID: id, FilesChanged: t.FilesChanged})
		}
	}
	return out
}

// ForkSession implements ipc.Brancher: a new session (same folder, model
// and modes) whose history is a copy of this session's current path up to
// and including messageID. The source session gets session.forked.
func (h *Hub) ForkSession(ctx context.Context, sessionID, messageID string) (store.Session, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	t, path, pos, err := h.onPath(s, messageID)
	if err != nil {
		return store.Session{}, err
	}
	src := s.record()
	if src.ParentSessionID != "" {
		return store.Session{}, fmt.Errorf("a worker session cannot be forked: %w", ipc.ErrInvalidInput)
	}
	title := "Fork of " + src.Title
	if len(title) > 200 {
		title = title[:200]
	}
	rec := store.Session{
		ID: agent.NewID(), Title: strings.ToValidUTF8(title, ""), TitleSource: TitleByUser, WorkspacePath: src.WorkspacePath,
		ActiveModel: src.ActiveModel, CreatedAt: time.Now().UTC(), ApprovalMode: src.ApprovalMode,
		SandboxReadWorkspaceOnly: src.SandboxReadWorkspaceOnly, SandboxNoNetwork: src.SandboxNoNetwork,
	}
	if src.ContextStartOffset <= int64(pos+1) {
		rec.ContextStartOffset, rec.ContextSummary = src.ContextStartOffset, src.ContextSummary
	}
	var ops []store.Op
	for _, i := range path[:pos+1] {
		m := t.Messages[i]
		m.SessionID, m.ParentID, m.Siblings, m.Turn = rec.ID, "", nil, nil
		if m.Status == ipc.StatusStreaming {
			m.Status = store.StatusInterrupted
		}
		ops = append(ops, store.PutMessage(m))
	}
	forked, err := h.createSession(ctx, rec, ops...)
	if err != nil {
		return store.Session{}, err
	}
	if err := h.bus.Emit(ipc.Draft{
		Type: ipc.TypeSessionForked, SessionID: sessionID, Actor: ipc.ActorUser,
		Payload: ipc.SessionForked{NewSessionID: forked.ID, MessageID: messageID},
	}); err != nil {
		h.log.Warn("hub: emitting session.forked", "session", sessionID, "err", err)
	}
	return forked, nil
}

// enqueueTurn queues a turn whose user message is already stored (a
// regenerate) and starts it; it never waits behind another, since
// branchable refused a busy session.
func (h *Hub) enqueueTurn(ctx context.Context, s *session, t store.Turn) (ipc.SubmitResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ipc.SubmitResult{}, errors.New("hub is closed")
	}
	s.mu.Lock()
	_, err := h.bus.Commit(context.WithoutCancel(ctx), ipc.Draft{
		Type: ipc.TypeSessionUpdated, SessionID: s.rec.ID, TurnID: t.ID, Actor: ipc.ActorUser,
		Payload: ipc.SessionChanged{Session: s.rec}, Ops: []store.Op{store.PutTurn(t)},
	})
	s.mu.Unlock()
	if err != nil {
		return ipc.SubmitResult{}, fmt.Errorf("storing the turn: %w", err)
	}
	s.queue = append(s.queue, t)
	h.startNextLocked(s)
	return ipc.SubmitResult{TurnID: t.ID}, nil
}
