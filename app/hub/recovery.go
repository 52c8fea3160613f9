package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"agenthub/app/agent"
	"agenthub/app/llm"
	"agenthub/ipc"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// interruptedText is the synthetic result of a tool call cut by a crash.
const interruptedText = "interrupted: Agent Hub stopped before this tool call finished"

// recover closes every turn left running by a crash: the assistant message
// that was streaming is rebuilt from the log and stored (status interrupted,
// message.complete), every tool call of the turn without a result gets
// tool.failed and a synthetic error result, and the turn ends with
// turn.cancelled (reason "interrupted").
func (h *Hub) recover(ctx context.Context) error {
	running, err := h.db.TurnsWithStatus(store.TurnRunning)
	if err != nil {
		return fmt.Errorf("reading running turns: %w", err)
	}
	for _, t := range running {
		h.mu.Lock()
		s := h.sessions[t.SessionID]
		h.mu.Unlock()
		if s == nil {
			continue
		}
		if err := h.recoverTurn(ctx, s, t); err != nil {
			return fmt.Errorf("turn %s of session %s: %w", t.ID, t.SessionID, err)
		}
	}
	return nil
}

// partialMessage is an assistant message rebuilt from streaming events.
type partialMessage struct {
	id      string
	blocks  map[int]*store.ContentBlock
	bufs    map[int]*strings.Builder // text, thinking or raw tool input of each block
	ended   map[int]bool
	retries *store.Retries // from the newest message.reset
}

func newPartialMessage(id string) *partialMessage {
	return &partialMessage{id: id, blocks: map[int]*store.ContentBlock{}, bufs: map[int]*strings.Builder{}, ended: map[int]bool{}}
}

func (p *partialMessage) buf(i int) *strings.Builder {
	b := p.bufs[i]
	if b == nil {
		b = &strings.Builder{}
		p.bufs[i] = b
	}
	return b
}

func (p *partialMessage) block(i int, typ string) *store.ContentBlock {
	b := p.blocks[i]
	if b == nil {
		b = &store.ContentBlock{Type: typ}
		p.blocks[i] = b
	}
	return b
}

// content returns the blocks in index order; unfinished tool inputs become
// what parses, else {}.
func (p *partialMessage) content() []store.ContentBlock {
	idx := make([]int, 0, len(p.blocks))
	for i := range p.blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]store.ContentBlock, 0, len(idx))
	for _, i := range idx {
		b := *p.blocks[i]
		buf := ""
		if p.bufs[i] != nil {
			buf = p.bufs[i].String()
		}
		switch b.Type {
		case store.BlockText:
			b.Text = buf
		case store.BlockThinking:
			b.Thinking = buf
		case store.BlockToolCall:
			if !p.ended[i] {
				b.Arguments = json.RawMessage(`{}`)
				if json.Valid([]byte(buf)) {
					b.Arguments = json.RawMessage(buf)
				}
			}
		}
		out = append(out, b)
	}
	return out
}

// envelope is the part of a logged event recovery reads.
type envelope struct {
	TurnID  *string         `json:"turn_id"`
	Payload json.RawMessage `json:"payload"`
}

// recoverTurn closes turn t of s (see recover).
func (h *Hub) recoverTurn(_ context.Context, s *session, t store.Turn) error {
	log, err := h.replayTurn(t)
	if err != nil {
		return err
	}
	r := &turnRecovery{rc: &recorder{h: h, s: s}, turn: t}
	partialID, rebuilt := r.completePartials(log)
	r.failOpenCalls(log.calls.open, rebuilt)
	r.cancelApprovals(log.approvals)
	calls, err := h.unansweredToolCalls(t)
	if err != nil {
		return err
	}
	cancelled := r.failToolCalls(calls)
	r.cancelTurn(partialID, cancelled)
	return nil
}

// turnLog is what the event log says of a turn: the assistant messages it
// streamed, in start order (partials[id] is nil once the message
// completed), and its LLM calls without an end.
type turnLog struct {
	partials map[string]*partialMessage
	order    []string
	calls    openCalls
	// approvals are the turn's approval requests without an answer, in order.
	approvals []ipc.ToolApprovalRequested
}

// applyApproval tracks the turn's unanswered approval requests.
func (l *turnLog) applyApproval(typ string, payload json.RawMessage) {
	switch typ {
	case ipc.TypeToolApprovalRequested:
		var p ipc.ToolApprovalRequested
		if json.Unmarshal(payload, &p) == nil {
			l.approvals = append(l.approvals, p)
		}
	case ipc.TypeToolApprovalResolved:
		var p ipc.ToolApprovalResolved
		if json.Unmarshal(payload, &p) == nil {
			l.approvals = slices.DeleteFunc(l.approvals, func(a ipc.ToolApprovalRequested) bool { return a.ToolUseID == p.ToolUseID })
		}
	}
}

// replayTurn reads turn t's events from the log, from just before the
// turn was created.
func (h *Hub) replayTurn(t store.Turn) (*turnLog, error) {
	var after ulid.ULID
	start := t.CreatedAt
	if start.IsZero() {
		start = time.Unix(0, 0)
	}
	if err := after.SetTime(ulid.Timestamp(start.Add(-time.Millisecond))); err != nil {
		after = ulid.ULID{}
	}
	l := &turnLog{partials: map[string]*partialMessage{}}
	err := h.db.SessionEvents(t.SessionID, after, func(r store.EventRecord) error {
		var e envelope
		if err := json.Unmarshal(r.Data, &e); err != nil || e.TurnID == nil || *e.TurnID != t.ID {
			return nil
		}
		l.calls.apply(r.Type, e.Payload)
		l.applyApproval(r.Type, e.Payload)
		return applyStreamEvent(r.Type, e.Payload, l.partials, &l.order)
	})
	if err != nil {
		return nil, fmt.Errorf("reading the event log: %w", err)
	}
	return l, nil
}

// unansweredToolCalls returns the tool calls of turn t's stored assistant
// messages that have no result message, in order.
func (h *Hub) unansweredToolCalls(t store.Turn) ([]store.ContentBlock, error) {
	msgs, _, err := h.db.Messages(t.SessionID, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("reading messages: %w", err)
	}
	answered := map[string]bool{}
	var calls []store.ContentBlock
	for _, m := range msgs {
		if m.TurnID != t.ID {
			continue
		}
		switch m.Role {
		case store.RoleToolResult:
			answered[m.ToolCallID] = true
		case store.RoleAssistant:
			for _, c := range m.Content {
				if c.Type == store.BlockToolCall {
					calls = append(calls, c)
				}
			}
		}
	}
	return slices.DeleteFunc(calls, func(c store.ContentBlock) bool { return answered[c.ID] }), nil
}

// turnRecovery commits the events that close one interrupted turn.
type turnRecovery struct {
	rc   *recorder
	turn store.Turn
}

func (r *turnRecovery) draft(typ string, payload any, ops ...store.Op) ipc.Draft {
	return ipc.Draft{Type: typ, SessionID: r.turn.SessionID, TurnID: r.turn.ID, Actor: ipc.ActorSystem, Payload: payload, Ops: ops}
}

// completePartials stores each message the crash left streaming as
// interrupted, with message.complete. It returns the last one's id and
// which of the turn's messages were rebuilt.
func (r *turnRecovery) completePartials(l *turnLog) (partialID string, rebuilt map[string]bool) {
	rebuilt = map[string]bool{}
	for _, id := range l.order {
		p := l.partials[id]
		rebuilt[id] = p != nil
		if p == nil {
			continue
		}
		content := p.content()
		m := store.Message{
			ID: id, SessionID: r.turn.SessionID, TurnID: r.turn.ID, Role: store.RoleAssistant, Content: content,
			Status: store.StatusInterrupted, StopReason: llm.StopCancelled, CreatedAt: time.Now().UTC(), Retries: p.retries,
		}
		r.rc.Commit(r.draft(ipc.TypeMessageComplete, ipc.MessageComplete{
			MessageID: id, StopReason: llm.StopCancelled, FinalContent: content, Retries: p.retries,
		}, store.PutMessage(m)), func(s *store.Session) { s.StreamingMessageID = "" })
		partialID = id
	}
	return partialID, rebuilt
}

// failOpenCalls ends every LLM call the crash left open with
// llm.call_failed (seed 001 §9.1: every llm.call_started ends with
// llm.call_completed or llm.call_failed), naming its message only when
// that was rebuilt.
func (r *turnRecovery) failOpenCalls(open []ipc.LLMCallStarted, rebuilt map[string]bool) {
	for _, c := range open {
		msgID := ""
		if rebuilt[c.MessageID] {
			msgID = c.MessageID
		}
		r.rc.Commit(r.draft(ipc.TypeLLMCallFailed, ipc.LLMCallFailed{
			CallID: c.CallID, Model: c.Model, MessageID: msgID, ErrorClass: ipc.ErrClassCancelled,
			Message: "interrupted by restart", Attempt: c.Attempt,
		}), nil)
	}
}

// cancelApprovals answers every approval request the crash left waiting
// with decision cancelled, by restart (the prompt then shows
// "cancelled (restart)"); the session waits for nothing any more.
func (r *turnRecovery) cancelApprovals(pending []ipc.ToolApprovalRequested) {
	for _, p := range pending {
		r.rc.Commit(r.draft(ipc.TypeToolApprovalResolved, ipc.ToolApprovalResolved{
			ToolUseID: p.ToolUseID, Decision: ipc.DecisionCancelled, By: ipc.ResolvedByRestart, WorkerSessionID: p.WorkerSessionID,
		}), func(s *store.Session) { s.PendingApprovals = 0 })
	}
}

// failToolCalls gives every unanswered tool call tool.failed and a
// synthetic interrupted result, and returns their ids.
func (r *turnRecovery) failToolCalls(calls []store.ContentBlock) (cancelled []string) {
	for _, c := range calls {
		cancelled = append(cancelled, c.ID)
		failed := ipc.ToolFailed{
			ToolUseID: c.ID, ToolName: c.Name, ErrorClass: ipc.ToolErrCancelled, Message: interruptedText,
			StatusText: "Interrupted: " + c.Name, Summary: "**Interrupted** — Agent Hub stopped before this call finished.\n",
		}
		result := agent.SyntheticResult(r.turn.SessionID, r.turn.ID, c, interruptedText, store.StatusInterrupted)
		result.StatusText, result.Summary = failed.StatusText, failed.Summary
		r.rc.Commit(r.draft(ipc.TypeToolFailed, failed, store.PutMessage(result)), nil)
	}
	return cancelled
}

// cancelTurn ends the turn with turn.cancelled (reason "interrupted").
func (r *turnRecovery) cancelTurn(partialID string, cancelled []string) {
	t := r.turn
	t.Status, t.Reason, t.EndedAt = store.TurnCancelled, store.ReasonInterrupted, time.Now().UTC()
	r.rc.Commit(r.draft(ipc.TypeTurnCancelled, ipc.TurnCancelled{
		Reason: store.ReasonInterrupted, PartialMessageID: partialID, CancelledTools: cancelled,
	}, store.PutTurn(t)), func(s *store.Session) {
		s.CurrentTurnID, s.StreamingMessageID = "", ""
		s.TurnCount++
	})
}

// openCalls tracks the turn's llm.call_started events without an end.
type openCalls struct {
	open []ipc.LLMCallStarted
}

// apply folds one event of the turn.
func (o *openCalls) apply(typ string, payload json.RawMessage) {
	switch typ {
	case ipc.TypeLLMCallStarted:
		var p ipc.LLMCallStarted
		if json.Unmarshal(payload, &p) == nil && p.CallID != "" {
			o.open = append(o.open, p)
		}
	case ipc.TypeLLMCallCompleted, ipc.TypeLLMCallFailed:
		var p struct {
			CallID string `json:"call_id"`
		}
		if json.Unmarshal(payload, &p) == nil {
			o.open = slices.DeleteFunc(o.open, func(c ipc.LLMCallStarted) bool { return c.CallID == p.CallID })
		}
	}
}

// applyStreamEvent folds one streaming event of the turn into partials.
func applyStreamEvent(typ string, payload json.RawMessage, partials map[string]*partialMessage, order *[]string) error {
	var p struct {
		MessageID   string          `json:"message_id"`
		Attempt     int             `json:"attempt"`
		ErrorClass  string          `json:"error_class"`
		Error       string          `json:"error"`
		Index       int             `json:"content_block_index"`
		Text        string          `json:"text"`
		Signature   *string         `json:"signature"`
		ToolUseID   string          `json:"tool_use_id"`
		ToolName    string          `json:"tool_name"`
		PartialJSON string          `json:"partial_json"`
		FinalInput  json.RawMessage `json:"final_input"`
	}
	switch typ {
	case ipc.TypeMessageStart, ipc.TypeMessageReset, ipc.TypeTextDelta, ipc.TypeThinkingDelta, ipc.TypeToolUseStart,
		ipc.TypeToolUseInputDelta, ipc.TypeToolUseEnd, ipc.TypeMessageComplete:
	default:
		return nil
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil // a malformed event cannot be folded; skip it
	}
	if typ == ipc.TypeMessageStart {
		partials[p.MessageID] = newPartialMessage(p.MessageID)
		*order = append(*order, p.MessageID)
		return nil
	}
	m := partials[p.MessageID]
	if m == nil {
		return nil
	}
	switch typ {
	case ipc.TypeMessageComplete:
		delete(partials, p.MessageID)
	case ipc.TypeMessageReset: // a retry streams the message again: the partial so far is void
		m = newPartialMessage(p.MessageID)
		m.retries = &store.Retries{Count: p.Attempt - 1, ErrorClass: p.ErrorClass, Error: p.Error}
		partials[p.MessageID] = m
	case ipc.TypeTextDelta:
		m.block(p.Index, store.BlockText)
		m.buf(p.Index).WriteString(p.Text)
	case ipc.TypeThinkingDelta:
		b := m.block(p.Index, store.BlockThinking)
		m.buf(p.Index).WriteString(p.Text)
		if p.Signature != nil {
			b.Signature = *p.Signature
		}
	case ipc.TypeToolUseStart:
		b := m.block(p.Index, store.BlockToolCall)
		b.ID, b.Name = p.ToolUseID, p.ToolName
	case ipc.TypeToolUseInputDelta:
		m.buf(p.Index).WriteString(p.PartialJSON)
	case ipc.TypeToolUseEnd:
		b := m.block(p.Index, store.BlockToolCall)
		b.ID = p.ToolUseID
		b.Arguments = p.FinalInput
		m.ended[p.Index] = true
	}
	return nil
}
