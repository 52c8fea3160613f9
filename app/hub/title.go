package hub

import (
	"context"
	"time"

	"agenthub/app/agent"
	"agenthub/app/llm"
	"agenthub/ipc"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// Title sources (store.Session.TitleSource).
const (
	TitleByUser = "user" // named at creation or renamed: never retitled
	TitleByHub  = "auto" // named after its first completed turn
)

// PurposeTitle is the purpose of the LLM call that names a session.
const PurposeTitle = "title"

// TitleSettings is optionally implemented by Settings: whether sessions
// are named automatically (settings.json auto_title); it overrides
// Config.AutoTitle.
type TitleSettings interface {
	AutoTitle() bool
}

func (h *Hub) autoTitle() bool {
	if ts, ok := h.settings.(TitleSettings); ok {
		return ts.AutoTitle()
	}
	return h.cfg.AutoTitle
}

// startTitleLocked names s after a completed turn when it has never been
// named (no title of the user's or the hub's; a session stored before
// TitleSource existed counts as named unless it has the default title),
// is not a worker, and auto
// titles are on. h.mu is held. The call runs in the background, owned by
// h.bg and cancelled by Close.
func (h *Hub) startTitleLocked(s *session) {
	rec := s.record()
	if h.closed || s.titling || s.deleted || rec.TitleSource != "" || rec.Title != DefaultTitle || rec.ParentSessionID != "" || !h.autoTitle() {
		return
	}
	s.titling = true
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		h.nameSession(s, rec)
		h.mu.Lock()
		s.titling = false
		h.mu.Unlock()
	}()
}

// nameSession makes the title call as a visible call of the session's own
// (llm.call_started/completed or failed with purpose "title", turn_id
// null, its cost counted in the session), then sets the title with
// session.updated: the model's answer, or on failure the first line of the
// first message. A title the user set meanwhile wins.
func (h *Hub) nameSession(s *session, rec store.Session) {
	msgs, _, err := h.db.Messages(rec.ID, 0, 40)
	if err != nil {
		h.log.Warn("hub: reading messages for a title", "session", rec.ID, "err", err)
		return
	}
	var user, answer string
	for _, m := range msgs {
		switch {
		case user == "" && m.Role == store.RoleUser:
			user = store.TextOf(m.Content)
		case user != "" && answer == "" && m.Role == store.RoleAssistant:
			answer = store.TextOf(m.Content)
		}
	}
	if user == "" {
		return
	}
	model := rec.ActiveModel
	title, usage := h.titleCall(s, model, user, answer)
	if title == "" {
		title = firstLine(user)
	}
	s.mu.Lock()
	if s.rec.TitleSource != "" || s.deleted {
		s.mu.Unlock()
		return
	}
	s.rec.Title, s.rec.TitleSource = title, TitleByHub
	s.rec.Usage = s.rec.Usage.Add(usage)
	s.rec.CostSoFarUSD += usage.CostUSD
	d := h.sessionDraft(s.rec, ipc.ActorSystem)
	err = h.bus.Emit(d)
	s.mu.Unlock()
	if err != nil {
		h.log.Error("hub: storing a session title", "session", rec.ID, "err", err)
	}
}

// titleCall asks model for a title. It returns the cleaned title ("" when
// the call failed or said nothing usable) and the call's usage with cost.
func (h *Hub) titleCall(s *session, model, user, answer string) (string, store.Usage) {
	rc := &recorder{h: h, s: s}
	callID := agent.NewID()
	draft := func(typ string, payload any) ipc.Draft {
		return ipc.Draft{Type: typ, SessionID: s.record().ID, Actor: ipc.ActorSystem, Payload: payload}
	}
	rc.Emit(draft(ipc.TypeLLMCallStarted, ipc.LLMCallStarted{CallID: callID, Model: model, Attempt: 1, Purpose: PurposeTitle}), nil)
	start := time.Now()
	res, err := h.oneShot(h.ctx, model, llm.TitleRequest("", user, answer))
	if err == nil && llm.CleanTitle(llmText(res)) == "" {
		err = &llm.Error{Class: errclass.InvalidRequest, Message: "the model returned no usable title"}
	}
	if err != nil {
		le, ok := llm.AsError(err)
		if !ok {
			le = &llm.Error{Class: errclass.Network, Message: err.Error()}
		}
		if h.ctx.Err() != nil {
			le = &llm.Error{Class: errclass.Cancelled, Message: "cancelled: Agent Hub shut down"}
		}
		rc.Emit(draft(ipc.TypeLLMCallFailed, ipc.LLMCallFailed{
			CallID: callID, Model: model, ErrorClass: le.Class, Message: le.Message, Attempt: 1, Purpose: PurposeTitle,
		}), nil)
		return "", res.Usage
	}
	rc.Emit(draft(ipc.TypeLLMCallCompleted, ipc.LLMCallCompleted{
		CallID: callID, Model: model, StopReason: res.StopReason, Usage: res.Usage,
		DurationMS: time.Since(start).Milliseconds(), Purpose: PurposeTitle,
	}), nil)
	return llm.CleanTitle(llmText(res)), res.Usage
}

// llmText is the text of a call's result.
func llmText(res llm.Result) string { return store.TextOf(res.Content) }

// oneShot makes one unstreamed call of model ("provider:model") with req
// (its Model is filled in) under ctx; the result's usage carries its cost.
func (h *Hub) oneShot(ctx context.Context, model string, req llm.Request) (llm.Result, error) {
	provName, name, err := llm.ParseModel(model)
	if err != nil {
		return llm.Result{}, err
	}
	h.mu.Lock()
	providers := h.providers
	h.mu.Unlock()
	p, err := providers.Provider(provName)
	if err != nil {
		return llm.Result{}, err
	}
	req.Model = name
	res, err := p.Stream(ctx, req, discardSink{})
	res.Usage.CostUSD = llm.Cost(model, res.Usage)
	return res, err
}
