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
	id     string
	blocks map[int]*store.ContentBlock
	bufs   map[int]*strings.Builder // text, thinking or raw tool input of each block
	ended  map[int]bool
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

func (h *Hub) recoverTurn(ctx context.Context, s *session, t store.Turn) error {
	partials := map[string]*partialMessage{}
	var order []string
	var after ulid.ULID
	start := t.CreatedAt
	if start.IsZero() {
		start = time.Unix(0, 0)
	}
	if err := after.SetTime(ulid.Timestamp(start.Add(-time.Millisecond))); err != nil {
		after = ulid.ULID{}
	}
	llmCalls := &openCalls{}
	err := h.db.SessionEvents(t.SessionID, after, func(r store.EventRecord) error {
		var e envelope
		if err := json.Unmarshal(r.Data, &e); err != nil || e.TurnID == nil || *e.TurnID != t.ID {
			return nil
		}
		llmCalls.apply(r.Type, e.Payload)
		return applyStreamEvent(r.Type, e.Payload, partials, &order)
	})
	if err != nil {
		return fmt.Errorf("reading the event log: %w", err)
	}
	rc := &recorder{h: h, s: s}
	sessionID := t.SessionID
	draft := func(typ, actor string, payload any, ops ...store.Op) ipc.Draft {
		return ipc.Draft{Type: typ, SessionID: sessionID, TurnID: t.ID, Actor: actor, Payload: payload, Ops: ops}
	}
	var partialID string
	for _, id := range order {
		p := partials[id]
		if p == nil {
			continue
		}
		content := p.content()
		m := store.Message{
			ID: id, SessionID: sessionID, TurnID: t.ID, Role: store.RoleAssistant, Content: content,
			Status: store.StatusInterrupted, StopReason: llm.StopCancelled, CreatedAt: time.Now().UTC(),
		}
		rc.Commit(draft(ipc.TypeMessageComplete, ipc.ActorSystem, ipc.MessageComplete{
			MessageID: id, StopReason: llm.StopCancelled, FinalContent: content,
		}, store.PutMessage(m)), func(r *store.Session) { r.StreamingMessageID = "" })
		partialID = id
	}
	// An LLM call the crash left open failed (seed 001 §9.1: every
	// llm.call_started ends with llm.call_completed or llm.call_failed).
	rebuilt := map[string]bool{}
	for _, id := range order {
		rebuilt[id] = partials[id] != nil
	}
	for _, c := range llmCalls.open {
		msgID := ""
		if rebuilt[c.MessageID] {
			msgID = c.MessageID
		}
		rc.Commit(draft(ipc.TypeLLMCallFailed, ipc.ActorSystem, ipc.LLMCallFailed{
			CallID: c.CallID, Model: c.Model, MessageID: msgID, ErrorClass: ipc.ErrClassCancelled,
			Message: "interrupted by restart", Attempt: c.Attempt,
		}), nil)
	}
	// Every tool call of the turn needs a result.
	msgs, _, err := h.db.Messages(sessionID, 0, 0)
	if err != nil {
		return fmt.Errorf("reading messages: %w", err)
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
	var cancelled []string
	for _, c := range calls {
		if answered[c.ID] {
			continue
		}
		cancelled = append(cancelled, c.ID)
		failed := ipc.ToolFailed{
			ToolUseID: c.ID, ToolName: c.Name, ErrorClass: ipc.ToolErrCancelled, Message: interruptedText,
			StatusText: "Interrupted: " + c.Name, Summary: "**Interrupted** — Agent Hub stopped before this call finished.\n",
		}
		result := agent.SyntheticResult(sessionID, t.ID, c, interruptedText, store.StatusInterrupted)
		result.StatusText, result.Summary = failed.StatusText, failed.Summary
		rc.Commit(draft(ipc.TypeToolFailed, ipc.ActorSystem, failed, store.PutMessage(result)), nil)
	}
	t.Status, t.Reason, t.EndedAt = store.TurnCancelled, "interrupted", time.Now().UTC()
	rc.Commit(draft(ipc.TypeTurnCancelled, ipc.ActorSystem, ipc.TurnCancelled{
		Reason: "interrupted", PartialMessageID: partialID, CancelledTools: cancelled,
	}, store.PutTurn(t)), func(r *store.Session) {
		r.CurrentTurnID, r.StreamingMessageID = "", ""
		r.TurnCount++
	})
	return nil
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
		Index       int             `json:"content_block_index"`
		Text        string          `json:"text"`
		Signature   *string         `json:"signature"`
		ToolUseID   string          `json:"tool_use_id"`
		ToolName    string          `json:"tool_name"`
		PartialJSON string          `json:"partial_json"`
		FinalInput  json.RawMessage `json:"final_input"`
	}
	switch typ {
	case ipc.TypeMessageStart, ipc.TypeTextDelta, ipc.TypeThinkingDelta, ipc.TypeToolUseStart,
		ipc.TypeToolUseInputDelta, ipc.TypeToolUseEnd, ipc.TypeMessageComplete:
	default:
		return nil
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil // a malformed event cannot be folded; skip it
	}
	if typ == ipc.TypeMessageStart {
		partials[p.MessageID] = &partialMessage{id: p.MessageID, blocks: map[int]*store.ContentBlock{},
			bufs: map[int]*strings.Builder{}, ended: map[int]bool{}}
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
