package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"agenthub/app/agent"
	"agenthub/app/llm"
	"agenthub/ipc"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// Compaction reasons (compaction.completed reason, seed 000).
const (
	CompactSummary = "summary" // the removed span was summarised by the model
	CompactTokens  = "tokens"  // the summary call failed: plain truncation
)

// summaryPrompt instructs the summariser.
const summaryPrompt = "You compress conversations between a user and a coding agent. Summarise the transcript you are given " +
	"so the agent can continue the work without it: the user's goals and constraints, decisions taken, files read or " +
	"changed (with paths), commands run and their outcomes, open problems and next steps. Be factual and concise; " +
	"use short bullet points; do not invent anything."

// CompactSession compacts the session's context now (compaction.started,
// compaction.completed). A session already compacting is left alone.
func (h *Hub) CompactSession(ctx context.Context, sessionID string) error {
	s, err := h.lookup(sessionID)
	if err != nil {
		return err
	}
	route, _ := h.route(ctx, s.record())
	model := route.Model
	_, err = h.compact(ctx, s, "", model, compactOnRequest, -1)
	return err
}

// compactOnRequest is the trigger of a compaction the user asked for: it
// summarises everything but the last exchange, however much context is
// left (an automatic one keeps what fits CompactKeep of the window).
const compactOnRequest = "request"

// lastExchange is the index of the last exchange's user message in msgs
// (0 when there is none: nothing before it to compact).
func lastExchange(msgs []store.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == store.RoleUser {
			return i
		}
	}
	return 0
}

// errBusy reports a compaction already in progress.
var errBusy = errors.New("compaction already in progress")

// compact moves the session's ContextStartOffset forward past the oldest
// messages, keeping the newest ones that fit CompactKeep of the window, and
// summarises the removed span with one LLM call (falling back to plain
// truncation if it fails). No message is deleted or renumbered. The kept span
// starts at a user or assistant message, so a tool call is never separated
// from its result. est < 0 means "estimate it".
func (h *Hub) compact(ctx context.Context, s *session, turnID, model, trigger string, est int64) (ipc.CompactionCompleted, error) {
	h.mu.Lock()
	if s.compacting {
		h.mu.Unlock()
		return ipc.CompactionCompleted{}, errBusy
	}
	s.compacting = true
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		s.compacting = false
		h.mu.Unlock()
	}()

	rec := s.record()
	msgs, _, err := h.db.Messages(rec.ID, int(rec.ContextStartOffset), 0)
	if err != nil {
		return ipc.CompactionCompleted{}, fmt.Errorf("compaction: reading messages: %w", err)
	}
	window := h.contextWindow(model)
	if est < 0 {
		est = estimateTokens(systemPrompt(rec, nil), msgs)
	}
	rc := &recorder{h: h, s: s}
	rc.Emit(ipc.Draft{Type: ipc.TypeCompactionStarted, SessionID: rec.ID, TurnID: turnID, Actor: ipc.ActorSystem,
		Payload: ipc.CompactionStarted{Trigger: trigger, EstimatedTokens: est, ContextWindow: window}}, nil)

	b := compactionBoundary(msgs, int64(h.cfg.CompactKeep*float64(window)))
	if trigger == compactOnRequest {
		b = lastExchange(msgs)
	}
	removed, kept := msgs[:b], msgs[b:]
	res := ipc.CompactionCompleted{
		Removed: len(removed), Kept: len(kept),
		TokensRemoved: estimateTokens("", removed), TokensKept: estimateTokens("", kept),
		Reason: CompactTokens, ContextStartOffset: rec.ContextStartOffset,
	}
	summary, usage := rec.ContextSummary, store.Usage{}
	if len(removed) > 0 {
		res.ContextStartOffset = kept0Offset(msgs, b)
		text, u, err := h.summaryCall(ctx, rc, turnID, model, rec.ContextSummary, removed)
		usage = u
		if err != nil {
			h.log.Warn("hub: compaction summary failed; truncating", "session", rec.ID, "err", err)
			res.Error = err.Error()
		} else {
			summary, res.Reason = text, CompactSummary
		}
	}
	rc.Commit(ipc.Draft{Type: ipc.TypeCompactionComplete, SessionID: rec.ID, TurnID: turnID, Actor: ipc.ActorSystem, Payload: res},
		func(r *store.Session) {
			r.ContextStartOffset, r.ContextSummary = res.ContextStartOffset, summary
			r.Usage = r.Usage.Add(usage)
			r.CostSoFarUSD += usage.CostUSD
		})
	rc.emitSessionTotals(turnID)
	return res, nil
}

// kept0Offset is the offset of the first kept message (msgs[b]), or one past
// the last message when everything is removed.
func kept0Offset(msgs []store.Message, b int) int64 {
	if b < len(msgs) {
		return msgs[b].Offset
	}
	return msgs[len(msgs)-1].Offset + 1
}

// compactionBoundary returns the index of the first kept message: the newest
// messages whose estimated tokens fit keep (at least the newest message),
// moved back so the kept span starts at a user or assistant message.
func compactionBoundary(msgs []store.Message, keep int64) int {
	b := len(msgs)
	var kept int64
	for i := len(msgs) - 1; i >= 0; i-- {
		t := (messageChars(msgs[i]) + 3) / 4
		if b < len(msgs) && kept+t > keep {
			break
		}
		kept += t
		b = i
	}
	for b > 0 && b < len(msgs) && msgs[b].Role == store.RoleToolResult {
		b--
	}
	return b
}

// summaryCall makes the summary LLM call as one visible call of its own:
// llm.call_started (its own call_id, no message_id: the summary is not a
// stored message), then llm.call_completed with its usage, or llm.call_failed
// (will_retry false) when the call fails. It returns the summary, the call's
// usage (with cost) and an error when there is no usable summary.
func (h *Hub) summaryCall(ctx context.Context, rc *recorder, turnID, model, previous string, removed []store.Message) (string, store.Usage, error) {
	sessionID := rc.s.record().ID
	callID := agent.NewID()
	draft := func(typ string, payload any) ipc.Draft {
		return ipc.Draft{Type: typ, SessionID: sessionID, TurnID: turnID, Actor: ipc.ActorSystem, Payload: payload}
	}
	rc.Emit(draft(ipc.TypeLLMCallStarted, ipc.LLMCallStarted{CallID: callID, Model: model, Attempt: 1}), nil)
	start := time.Now()
	res, err := h.summarise(ctx, model, previous, removed)
	if err != nil {
		le, ok := llm.AsError(err)
		if !ok {
			le = &llm.Error{Class: errclass.Network, Message: err.Error()}
		}
		if ctx.Err() != nil {
			le = &llm.Error{Class: errclass.Cancelled, Message: "cancelled"}
		}
		rc.Emit(draft(ipc.TypeLLMCallFailed, ipc.LLMCallFailed{
			CallID: callID, Model: model, ErrorClass: le.Class, Message: le.Message, Attempt: 1,
		}), nil)
		return "", res.Usage, err
	}
	rc.Emit(draft(ipc.TypeLLMCallCompleted, ipc.LLMCallCompleted{
		CallID: callID, Model: model, StopReason: res.StopReason, Usage: res.Usage,
		DurationMS: time.Since(start).Milliseconds(),
	}), nil)
	text := strings.TrimSpace(store.TextOf(res.Content))
	if text == "" {
		return "", res.Usage, errors.New("the model returned an empty summary")
	}
	return text, res.Usage, nil
}

// summarise asks the model for a summary of removed (and of the previous
// summary, which covers what came before). The Result's usage has its cost.
func (h *Hub) summarise(ctx context.Context, model, previous string, removed []store.Message) (llm.Result, error) {
	var in strings.Builder
	if previous != "" {
		in.WriteString("Summary of what came before this transcript:\n")
		in.WriteString(previous)
		in.WriteString("\n\n")
	}
	in.WriteString("Transcript to summarise:\n\n")
	in.WriteString(transcript(removed))
	return h.oneShot(ctx, model, llm.Request{
		System: summaryPrompt, MaxTokens: 2048,
		Messages: []store.Message{{Role: store.RoleUser, Content: []store.ContentBlock{{Type: store.BlockText, Text: in.String()}}}},
	})
}

// discardSink ignores streaming callbacks (the summary call is not streamed
// to clients; its result lands in compaction.completed's session record).
type discardSink struct{}

func (discardSink) MessageStart()                           {}
func (discardSink) TextDelta(int, string)                   {}
func (discardSink) ThinkingDelta(int, string, *string)      {}
func (discardSink) ToolUseStart(int, string, string)        {}
func (discardSink) ToolUseInputDelta(int, string, string)   {}
func (discardSink) ToolUseEnd(int, string, json.RawMessage) {}
