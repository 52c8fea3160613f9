package hub

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"agenthub/app/agent"
	"agenthub/app/mention"
	"agenthub/app/permission"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

// Cancel causes; their text is turn.cancelled's reason.
var (
	errUserCancel     = errors.New("user_cancel")
	errTimeout        = errors.New("timeout")
	errShutdown       = errors.New("shutdown")
	errSessionDeleted = errors.New("session_deleted")
)

// MaxInputBytes bounds a user submission.
const MaxInputBytes = 1 << 20

// SubmitTurn stores a submission and returns the turn id. When no turn of
// the session runs or waits, the user message and the Turn record are
// committed together and the turn starts now. Otherwise (Queued true) the
// Turn record is committed as queued with the message content in it, and the
// session record lists it in QueuedTurns; its user message is stored only
// when the turn starts, so its offset follows the earlier turns' messages.
func (h *Hub) SubmitTurn(ctx context.Context, sessionID, content string) (ipc.SubmitResult, error) {
	return h.SubmitTurnWithAttachments(ctx, sessionID, content, nil)
}

// SubmitTurnWithAttachments is SubmitTurn for a message that also carries
// uploaded attachments (images as image blocks, text files as file blocks;
// attachments.go). With attachments the text may be empty.
func (h *Hub) SubmitTurnWithAttachments(ctx context.Context, sessionID, content string, refs []ipc.AttachmentRef) (ipc.SubmitResult, error) {
	return h.submit(ctx, sessionID, "", content, refs, nil)
}

// SubmitTurnWithID is SubmitTurn whose user message takes the id the client
// chose (ipc.IDSubmitter): an id that is not ipc.ValidClientMessageID is
// ErrInvalidInput, one the session's messages or queued submissions
// already have is ErrConflict (nothing is stored or overwritten).
func (h *Hub) SubmitTurnWithID(ctx context.Context, sessionID, messageID, content string) (ipc.SubmitResult, error) {
	if err := ipc.ValidClientMessageID(messageID); err != nil {
		return ipc.SubmitResult{}, err
	}
	return h.submit(ctx, sessionID, messageID, content, nil, nil)
}

// submit is the submissions' common path; messageID "" gets a fresh id;
// opts shape the turn (a custom command's; nil for a plain message, which
// addressing a named sub-agent may give some: addressedAgent).
func (h *Hub) submit(ctx context.Context, sessionID, messageID, content string, refs []ipc.AttachmentRef, opts *store.TurnOptions) (ipc.SubmitResult, error) {
	if strings.TrimSpace(content) == "" && len(refs) == 0 {
		return ipc.SubmitResult{}, fmt.Errorf("empty message: %w", ipc.ErrInvalidInput)
	}
	if len(content) > MaxInputBytes {
		return ipc.SubmitResult{}, fmt.Errorf("message larger than %d bytes: %w", MaxInputBytes, ipc.ErrInvalidInput)
	}
	uploads, err := h.attachmentBlocks(refs)
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	// @path mentions attach the files' current content (read before the lock).
	var files []store.ContentBlock
	if strings.Contains(content, "@") {
		if s, err := h.lookup(sessionID); err == nil {
			files = mention.Expand(s.record().WorkspacePath, content, h.protected()...)
			if opts == nil {
				opts = h.addressedAgent(s.record(), content)
			}
		}
	}
	files = append(files, uploads...)
	var blocks []store.ContentBlock
	if content != "" || len(files) == 0 {
		blocks = append(blocks, store.ContentBlock{Type: store.BlockText, Text: content})
	}
	blocks = append(blocks, files...)
	s, err := h.lookup(sessionID)
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	return h.submitBlocks(ctx, s, messageID, content, blocks, opts)
}

// submitBlocks stores a submission whose user message is blocks (content
// is its typed text, what a queued turn lists; messageID the id the client
// chose for it, "" for a fresh one; opts what shapes the turn) and starts
// it when nothing runs or waits.
func (h *Hub) submitBlocks(ctx context.Context, s *session, messageID, content string, blocks []store.ContentBlock, opts *store.TurnOptions) (ipc.SubmitResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ipc.SubmitResult{}, errors.New("hub is closed")
	}
	if _, err := h.lookupLocked(s.record().ID); err != nil {
		return ipc.SubmitResult{}, err
	}
	if len(s.queue) >= h.cfg.QueueLimit {
		return ipc.SubmitResult{}, fmt.Errorf("session %s has %d queued turns: %w", s.record().ID, len(s.queue), ipc.ErrQueueFull)
	}
	t, queued, err := h.enqueueLocked(ctx, s, messageID, content, blocks, opts)
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	h.startNextLocked(s)
	return ipc.SubmitResult{TurnID: t.ID, Queued: queued}, nil
}

// messageIDTakenLocked reports whether a message of s or a queued
// submission already has id (s.mu held).
func (h *Hub) messageIDTakenLocked(s *session, id string) (bool, error) {
	for _, t := range s.queue {
		if t.UserMessageID == id {
			return true, nil
		}
	}
	_, err := h.db.Message(s.rec.ID, id)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	}
	return false, fmt.Errorf("looking up message %s: %w", id, err)
}

// enqueueLocked commits a submission (riding on a session.updated event) and
// appends its turn to the session's queue. It reports whether the turn waits
// behind another one: then only the Turn record (holding the content, and
// the message id the client chose, if any) is stored and the session record
// lists it; otherwise the user message is stored with it. A messageID the
// session already has is ErrConflict. opts are kept with the turn.
func (h *Hub) enqueueLocked(ctx context.Context, s *session, messageID, content string, blocks []store.ContentBlock, opts *store.TurnOptions) (store.Turn, bool, error) {
	now := time.Now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	if messageID != "" {
		taken, err := h.messageIDTakenLocked(s, messageID)
		if err != nil {
			return store.Turn{}, false, err
		}
		if taken {
			return store.Turn{}, false, fmt.Errorf("session %s already has a message %q; send a new message with a new id: %w", s.rec.ID, messageID, ipc.ErrConflict)
		}
	}
	queued := s.running != nil || len(s.queue) > 0
	t := store.Turn{ID: agent.NewID(), SessionID: s.rec.ID, Status: store.TurnQueued, CreatedAt: now, UserMessageID: messageID, Options: opts}
	var ops []store.Op
	prevQueued := s.rec.QueuedTurns
	if queued {
		t.Content = blocks
		s.rec.QueuedTurns = append(slices.Clip(s.rec.QueuedTurns), store.QueuedTurn{TurnID: t.ID, Content: content})
	} else {
		m := userMessage(t, blocks)
		t.UserMessageID = m.ID
		ops = append(ops, store.PutMessage(m))
	}
	prevHead := s.rec.HeadID
	hangOnHead(&s.rec, ops)
	d := h.sessionDraft(s.rec, ipc.ActorUser)
	d.TurnID = t.ID
	d.Ops = append(d.Ops, ops...)
	d.Ops = append(d.Ops, store.PutTurn(t))
	if _, err := h.bus.Commit(context.WithoutCancel(ctx), d); err != nil {
		s.rec.QueuedTurns, s.rec.HeadID = prevQueued, prevHead
		return store.Turn{}, false, fmt.Errorf("storing the submission: %w", err)
	}
	s.queue = append(s.queue, t)
	return t, queued, nil
}

// userMessage is the user message of turn t with content blocks; its id
// is the one the client chose for it (t.UserMessageID), else a fresh one.
func userMessage(t store.Turn, blocks []store.ContentBlock) store.Message {
	return store.Message{
		ID: cmp.Or(t.UserMessageID, agent.NewID()), SessionID: t.SessionID, TurnID: t.ID, Role: store.RoleUser,
		Content: blocks, Status: store.StatusComplete, CreatedAt: t.CreatedAt,
	}
}

// withoutQueued returns qs without the entry of turnID (a new slice).
func withoutQueued(qs []store.QueuedTurn, turnID string) []store.QueuedTurn {
	var out []store.QueuedTurn
	for _, q := range qs {
		if q.TurnID != turnID {
			out = append(out, q)
		}
	}
	return out
}

// startNextLocked starts the session's oldest queued turn when none runs.
func (h *Hub) startNextLocked(s *session) {
	if s.running != nil || len(s.queue) == 0 || s.deleted || h.closed {
		return
	}
	t := s.queue[0]
	s.queue = s.queue[1:]
	r := h.newRunLocked(s, t, h.ctx)
	h.wg.Add(1)
	h.active.Add(1)
	go func() {
		defer h.wg.Done()
		h.runTurn(r, s, nil)
		if h.active.Add(-1) == 0 {
			h.releaseMemory()
		}
	}()
}

// newRunLocked registers t as the session's running turn with a context
// derived from parent and bounded by the turn timeout.
func (h *Hub) newRunLocked(s *session, t store.Turn, parent context.Context) *run {
	ctx, cancel := context.WithCancelCause(parent)
	r := &run{turn: t, cancel: cancel, done: make(chan struct{})}
	r.ctx = ctx
	if h.cfg.TurnTimeout > 0 {
		r.deadline = time.Now().Add(h.cfg.TurnTimeout)
		r.timer = time.AfterFunc(h.cfg.TurnTimeout, func() { h.cancelRun(s, r, errTimeout) })
	}
	s.running = r
	return r
}

// cancelRun cancels r with cause unless it is already cancelling.
func (h *Hub) cancelRun(s *session, r *run, cause error) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.running != r || r.cancelling {
		return false
	}
	r.cancelling = true
	r.cancel(cause)
	return true
}

// CancelTurn cancels turnID (or the running turn when turnID is ""). A
// queued turn leaves the queue (turn.cancelled). A turn already cancelling
// or finished is not touched: the call emits bus.handler_warning
// (redundant_cancel) and returns nil (seed 001 §6.5).
func (h *Hub) CancelTurn(ctx context.Context, sessionID, turnID, reason string) error {
	h.mu.Lock()
	s, err := h.lookupLocked(sessionID)
	if err != nil {
		h.mu.Unlock()
		return err
	}
	cause := errUserCancel
	if reason = strings.TrimSpace(reason); reason != "" && reason != errUserCancel.Error() {
		cause = errors.New(reason)
	}
	r := s.running
	if r != nil && (turnID == "" || turnID == r.turn.ID) {
		if !r.cancelling {
			r.cancelling = true
			r.cancel(cause)
			h.mu.Unlock()
			return nil
		}
		h.mu.Unlock()
		h.redundantCancel(sessionID, r.turn.ID, "turn is already cancelling")
		return nil
	}
	for i, t := range s.queue {
		if t.ID != turnID {
			continue
		}
		s.queue = append(s.queue[:i:i], s.queue[i+1:]...)
		t.Status, t.Reason, t.EndedAt = store.TurnCancelled, cause.Error(), time.Now().UTC()
		s.mu.Lock()
		s.rec.QueuedTurns = withoutQueued(s.rec.QueuedTurns, t.ID)
		err := h.bus.Emit(ipc.Draft{
			Type: ipc.TypeTurnCancelled, SessionID: sessionID, TurnID: t.ID, Actor: ipc.ActorUser,
			Payload: ipc.TurnCancelled{Reason: cause.Error()}, Ops: []store.Op{store.PutTurn(t), store.PutSession(s.rec)},
		})
		s.mu.Unlock()
		h.mu.Unlock()
		if err != nil {
			return fmt.Errorf("cancelling queued turn %s: %w", turnID, err)
		}
		return nil
	}
	h.mu.Unlock()
	if turnID == "" {
		h.redundantCancel(sessionID, "", "no turn is running")
		return nil
	}
	turns, err := h.db.Turns(sessionID)
	if err != nil {
		return fmt.Errorf("cancel: reading turns: %w", err)
	}
	for _, t := range turns {
		if t.ID == turnID {
			h.redundantCancel(sessionID, turnID, "turn already ended ("+t.Status+")")
			return nil
		}
	}
	return fmt.Errorf("turn %q of session %s: %w", turnID, sessionID, ipc.ErrTurnNotFound)
}

func (h *Hub) redundantCancel(sessionID, turnID, why string) {
	err := h.bus.Emit(ipc.Draft{
		Type: ipc.TypeBusHandlerWarning, SessionID: sessionID, TurnID: turnID, Actor: ipc.ActorSystem,
		Payload: ipc.HandlerWarning{SubscriptionName: "cancel", Code: "redundant_cancel", Message: "redundant cancel ignored: " + why},
	})
	if err != nil {
		h.log.Warn("hub: emitting redundant_cancel warning", "session", sessionID, "err", err)
	}
}

// runTurn runs r to its end and starts the session's next queued turn.
// output, when set, is the delegate call's Output: it receives the turn's
// assistant text as the "worker" stream, and tool.StreamWorkerReset when a
// retried model call voids what was streamed (delegation).
func (h *Hub) runTurn(r *run, s *session, output func(stream, text string)) agent.Outcome {
	var onText func(string)
	var onReset func()
	if output != nil {
		onText = func(text string) { output("worker", text) }
		onReset = func() { output(tool.StreamWorkerReset, "") }
	}
	defer close(r.done)
	sess := s.record()
	sessionID := sess.ID
	rec := &recorder{h: h, s: s}
	h.mu.Lock()
	providers := h.providers
	h.mu.Unlock()

	// A queued submission's user message is stored now, with turn.started,
	// so its offset follows the messages of the turns before it.
	var ops []store.Op
	var user store.Message
	if len(r.turn.Content) > 0 {
		user = userMessage(r.turn, r.turn.Content)
		r.turn.UserMessageID, r.turn.Content = user.ID, nil
		ops = append(ops, store.PutMessage(user))
	} else {
		var err error
		if user, err = h.db.Message(sessionID, r.turn.UserMessageID); err != nil {
			h.log.Error("hub: turn's user message missing", "session", sessionID, "turn", r.turn.ID, "err", err)
		}
	}
	r.turn.Status, r.turn.StartedAt = store.TurnRunning, time.Now().UTC()
	turn := r.turn
	// Committed, not just enqueued: the context loader reads the user message.
	rec.Commit(ipc.Draft{
		Type: ipc.TypeTurnStarted, SessionID: sessionID, TurnID: turn.ID, Actor: ipc.ActorAgent,
		Payload: turnStarted(turn.UserMessageID, user.Content),
		Ops:     append(ops, store.PutTurn(turn)),
	}, func(s *store.Session) {
		s.CurrentTurnID = turn.ID
		s.QueuedTurns = withoutQueued(s.QueuedTurns, turn.ID)
	})

	route, failure := h.route(r.ctx, sess)
	sessionModel := route.Model // a command's model is its turn's, never pinned to the session
	if o := r.turn.Options; o != nil && o.Model != "" && failure == "" {
		if ok, why := h.modelConfigured(o.Model); ok {
			route.Model, route.Reason = o.Model, "model of the command "+o.Command
		} else {
			route.Reason += "; the model " + o.Model + " of " + o.Command + " is not used: " + why
		}
	}
	var pin func(*store.Session)
	if sessionModel != "" && sess.ActiveModel == "" {
		// A session created without a model keeps the one routing resolved.
		pin = func(s *store.Session) {
			if s.ActiveModel == "" {
				s.ActiveModel = sessionModel
			}
		}
	}
	rec.Emit(ipc.Draft{Type: ipc.TypeRouteDecided, SessionID: sessionID, TurnID: turn.ID, Actor: ipc.ActorAgent, Payload: route}, pin)

	var out agent.Outcome
	if route.Model == "" {
		out = agent.Outcome{Status: agent.StatusFailed, ErrorClass: ipc.ErrClassNotConfigured, Error: failure}
	} else {
		outDir := h.outputDir(sessionID)
		d := &delegator{h: h, sessionID: sessionID, turnID: turn.ID, r: r}
		h.startWorkflow(r, sess)
		tools := h.turnTools(r, s, d)
		offered := h.offered(r, s)
		var startCalls []store.StartCall
		if turn.Options != nil {
			startCalls = turn.Options.Calls
		}
		r.files = h.checkpoints.Begin(sessionID, turn.ID, sess.WorkspacePath, h.log)
		var beforeTools func(context.Context)
		if h.cfg.BeforeTools != nil {
			beforeTools = func(ctx context.Context) { h.cfg.BeforeTools(ctx, sessionID, turn.ID) }
		}
		out = agent.Run(r.ctx, agent.Config{
			SessionID: sessionID, TurnID: turn.ID, Model: route.Model, Providers: providers,
			Tools: tools, ExtraTools: h.extraTools(sess.WorkspacePath), Offered: offered, StartCalls: startCalls,
			Env: tool.Env{Workspace: sess.WorkspacePath, OutputDir: outDir, Protected: h.protected(),
				ReadWorkspaceOnly: sess.SandboxReadWorkspaceOnly, NoNetwork: sess.SandboxNoNetwork, Files: r.files,
				GitWrites: h.gitWritesFunc(sessionID, sess.WorkspacePath),
				ReadOnly:  func() bool { return h.mode(s.record()) == permission.ModePlan }},
			Context:        h.contextFunc(s, r, route.Model, tools, offered),
			Recorder:       rec,
			MaxTokens:      h.cfg.MaxTokens,
			ThinkingBudget: h.thinkingBudget(route.Model),
			MaxAttempts:    h.cfg.MaxAttempts,
			Backoff:        h.cfg.Backoff,
			StallNotice:    h.cfg.StallNotice,
			OnText:         onText,
			OnReset:        onReset,
			BeforeTools:    beforeTools,
			Approver:       approver{h: h, s: s, r: r},
			CallIDs:        h.callIDs(s),
			CancelText:     cancelText,
			Logger:         h.log,
		})
	}
	h.finishTurn(r, rec, out)
	return out
}

// cancelText is the synthetic tool result of a call cancelled under ctx.
func cancelText(ctx context.Context) string {
	switch context.Cause(ctx) {
	case errTimeout:
		return "cancelled: the turn timed out"
	case errShutdown:
		return "cancelled: Agent Hub shut down"
	}
	return "cancelled by user"
}

// finishTurn emits turn.completed or turn.cancelled with the final Turn
// record and the session's totals, then starts the next queued turn.
func (h *Hub) finishTurn(r *run, rec *recorder, out agent.Outcome) {
	if r.timer != nil {
		r.timer.Stop()
	}
	t := r.turn
	t.EndedAt = time.Now().UTC()
	h.mu.Lock()
	r.ended = true
	h.mu.Unlock()
	if r.files != nil {
		t.FilesChanged = len(r.files.Finish().Changes)
	}
	var d ipc.Draft
	switch out.Status {
	case agent.StatusCancelled:
		reason := errUserCancel.Error()
		if c := context.Cause(r.ctx); c != nil && !errors.Is(c, context.Canceled) {
			reason = c.Error()
		}
		t.Status, t.Reason = store.TurnCancelled, reason
		d = ipc.Draft{Type: ipc.TypeTurnCancelled, Actor: ipc.ActorAgent, Payload: ipc.TurnCancelled{
			Reason: reason, PartialMessageID: out.PartialMessageID, CancelledTools: out.CancelledTools, FilesChanged: t.FilesChanged,
		}}
	case agent.StatusFailed:
		t.Status, t.Reason = store.TurnFailed, out.ErrorClass
		t.Error = &store.TurnError{Class: out.ErrorClass, Message: out.Error, Attempts: out.Attempts}
		d = ipc.Draft{Type: ipc.TypeTurnCompleted, Actor: ipc.ActorAgent, Payload: ipc.TurnCompleted{
			Status: ipc.TurnStatusFailed, StopReason: out.StopReason, Usage: out.Usage,
			Error: out.Error, ErrorClass: out.ErrorClass, FilesChanged: t.FilesChanged,
		}}
	default:
		t.Status = store.TurnCompleted
		d = ipc.Draft{Type: ipc.TypeTurnCompleted, Actor: ipc.ActorAgent, Payload: ipc.TurnCompleted{
			Status: ipc.TurnStatusCompleted, StopReason: out.StopReason, Usage: out.Usage, FilesChanged: t.FilesChanged,
		}}
	}
	d.SessionID, d.TurnID, d.Ops = rec.s.rec.ID, t.ID, []store.Op{store.PutTurn(t)}
	// The turn stops running in the same critical section that commits its
	// end: a submission made once a client has seen turn.completed starts at
	// once instead of flashing through the queue (hub.mu before session.mu,
	// as in submitBlocks).
	h.mu.Lock()
	defer h.mu.Unlock()
	rec.Commit(d, func(s *store.Session) {
		s.CurrentTurnID, s.StreamingMessageID = "", ""
		s.TurnCount++
		s.Usage = s.Usage.Add(out.Usage)
		s.CostSoFarUSD += out.Usage.CostUSD
	})
	rec.emitSessionTotals(t.ID)
	if out.Status == agent.StatusCompleted {
		h.startTitleLocked(rec.s)
	}
	if s := rec.s; s.running == r {
		s.running = nil
		h.startNextLocked(s)
	}
}

var _ agent.Recorder = (*recorder)(nil)

// recorder implements agent.Recorder for one session.
type recorder struct {
	h *Hub
	s *session
}

// emitSessionTotals emits session.updated with the session's current
// record, so session lists learn new totals (turn count, cost, context
// marker, idle) as soon as a turn or a compaction ends.
func (r *recorder) emitSessionTotals(turnID string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	d := r.h.sessionDraft(r.s.rec, ipc.ActorAgent)
	d.TurnID = turnID
	if err := r.h.bus.Emit(d); err != nil {
		r.h.log.Error("hub: emitting session totals", "session", d.SessionID, "err", err)
	}
}

// Emit implements agent.Recorder.
func (r *recorder) Emit(d ipc.Draft, mutate func(*store.Session)) {
	r.record(d, mutate, "emitting", func(d ipc.Draft) error { return r.h.bus.Emit(d) })
}

// Commit implements agent.Recorder. It holds the session's lock until the
// draft is durable, so the session's events keep their order.
func (r *recorder) Commit(d ipc.Draft, mutate func(*store.Session)) {
	r.record(d, mutate, "committing", func(d ipc.Draft) error {
		_, err := r.h.bus.Commit(context.Background(), d)
		return err
	})
}

// record hands d to the bus with send under the session's lock, with the
// session record mutate leaves (and the head it hangs on) as a PutSession
// op; a failure is logged (the loop cannot do better).
func (r *recorder) record(d ipc.Draft, mutate func(*store.Session), verb string, send func(ipc.Draft) error) {
	r.s.mu.Lock()
	if hangOnHead(&r.s.rec, d.Ops) && mutate == nil {
		mutate = func(*store.Session) {}
	}
	if mutate != nil {
		mutate(&r.s.rec)
		d.Ops = append(d.Ops, store.PutSession(r.s.rec))
	}
	err := send(d)
	r.s.mu.Unlock()
	if err != nil {
		r.h.log.Error("hub: "+verb+" event", "type", d.Type, "session", d.SessionID, "err", err)
	}
}

// turnStarted is the turn.started payload of a user message: its text,
// and the files it attached listed apart (their content is not the user's
// text).
func turnStarted(userMessageID string, content []store.ContentBlock) ipc.TurnStarted {
	p := ipc.TurnStarted{UserMessageID: userMessageID}
	var typed []store.ContentBlock
	for _, b := range content {
		switch {
		case b.Type == store.BlockText:
			if f, ok := mention.Describe(b.Text); ok {
				a := ipc.AttachedFile{Path: f.Path, Bytes: f.Bytes, Cut: f.Cut}
				if f.Uploaded {
					a.Kind = ipc.AttachedUpload
				}
				p.Attachments = append(p.Attachments, a)
				continue
			}
		case b.Type == store.BlockImage && b.Source != nil && b.Source.Type == store.ImageAttachment:
			src := b.Source
			p.Attachments = append(p.Attachments, ipc.AttachedFile{Path: src.Name, Bytes: src.Bytes, Kind: ipc.AttachedImage,
				ID: src.Attachment, MediaType: src.MediaType, Width: src.Width, Height: src.Height})
			continue
		}
		typed = append(typed, b)
	}
	p.Input = store.TextOf(typed)
	return p
}
