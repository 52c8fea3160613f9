package agent

import (
	"context"
	"encoding/json"
	"time"

	"agenthub/app/llm"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// call makes one LLM call with retries: llm.call_started, the streaming
// events, message.complete (carrying the stored message), llm.call_completed;
// or llm.call_failed (will_retry and a new attempt, or the end of the turn).
// The call is one assistant message whatever its attempts (docs/protocol.md
// §5 "One message per model call"): every attempt streams under the same
// message id, an attempt that streams after an earlier one did first sends
// message.reset (clients drop the partial), and the message is completed
// once — by the attempt that succeeds, or with the content last shown when
// the call fails for good or is cancelled. It returns the stored assistant
// message and true when the call succeeded.
func (l *loop) call(ctx context.Context, system string, msgs []store.Message) (store.Message, bool) {
	provName, model, perr := llm.ParseModel(l.Model)
	req := llm.Request{Model: model, System: system, Messages: msgs, Tools: specs(l.tools), MaxTokens: l.MaxTokens,
		ThinkingBudget: l.ThinkingBudget}
	sink := &streamSink{l: l, msgID: NewID()}
	for attempt := 1; ; attempt++ {
		callID := NewID()
		l.emit(l.draft(ipc.TypeLLMCallStarted, ipc.ActorAgent, ipc.LLMCallStarted{
			CallID: callID, Model: l.Model, MessageID: sink.msgID, Attempt: attempt,
		}))
		start := time.Now()
		sink.attempt, sink.attemptStarted = attempt, false
		var (
			res llm.Result
			err error
		)
		if perr != nil {
			err = perr
		} else if prov, e := l.Providers.Provider(provName); e != nil {
			err = e
		} else {
			sink.stall = startStallWatch(l, callID)
			res, err = prov.Stream(ctx, req, sink)
			sink.stall.stop()
			sink.stall = nil
		}
		if err != nil {
			res.Usage = estimateOutput(res)
		}
		res.Usage.CostUSD = llm.Cost(l.Model, res.Usage)
		l.out.Usage = l.out.Usage.Add(res.Usage)
		if err == nil {
			sink.MessageStart() // an attempt that answered without streaming still replaces the partial
			m := sink.complete(res.Content, res.Usage, store.StatusComplete, res.StopReason)
			l.emit(l.draft(ipc.TypeLLMCallCompleted, ipc.ActorAgent, ipc.LLMCallCompleted{
				CallID: callID, Model: l.Model, MessageID: sink.msgID, StopReason: res.StopReason,
				Usage: res.Usage, DurationMS: time.Since(start).Milliseconds(),
			}))
			return m, true
		}
		if sink.attemptStarted {
			sink.shown, sink.shownUsage = res.Content, res.Usage // what clients now show of the message
		}
		le := llmError(ctx, err)
		cancelled := le.Class == errclass.Cancelled
		retry := !cancelled && le.Retriable && attempt < l.MaxAttempts
		if !retry && sink.started {
			status, stop := store.StatusError, llm.StopError
			if cancelled {
				status, stop = store.StatusCancelled, llm.StopCancelled
			}
			m := sink.complete(sink.shown, sink.shownUsage, status, stop)
			if cancelled {
				l.out.PartialMessageID = m.ID
			}
		}
		var wait time.Duration
		if retry {
			wait = l.Backoff(attempt, le.RetryAfter)
		}
		failedMsgID := ""
		if sink.started {
			failedMsgID = sink.msgID
		}
		l.emit(l.draft(ipc.TypeLLMCallFailed, ipc.ActorAgent, ipc.LLMCallFailed{
			CallID: callID, Model: l.Model, MessageID: failedMsgID, ErrorClass: le.Class,
			Message: le.Message, Attempt: attempt, WillRetry: retry, RetryInMS: wait.Milliseconds(),
			MaxAttempts: l.MaxAttempts,
		}))
		if cancelled {
			l.out.Status = StatusCancelled
			return store.Message{}, false
		}
		if !retry {
			l.fail(le.Class, le.Message)
			l.out.Attempts = attempt
			return store.Message{}, false
		}
		sink.retries = &store.Retries{Count: attempt, ErrorClass: le.Class, Error: le.Message}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			if sink.started { // the partial of the failed attempt is still open
				l.out.PartialMessageID = sink.complete(sink.shown, sink.shownUsage, store.StatusCancelled, llm.StopCancelled).ID
			}
			l.out.Status = StatusCancelled
			return store.Message{}, false
		case <-t.C:
		}
	}
}

// estimateOutput is the usage of a reply cut short: the provider sends the
// output count with the end of the stream, so a cancelled or failed reply
// has little or none of it; the streamed content's size (about four
// characters a token) stands in for it, marked as an estimate.
func estimateOutput(res llm.Result) store.Usage {
	u := res.Usage
	chars := 0
	for _, c := range res.Content {
		chars += len(c.Text) + len(c.Thinking) + len(c.Arguments)
	}
	if est := int64((chars + 3) / 4); est > u.OutputTokens {
		u.OutputTokens, u.OutputEstimated = est, true
	}
	return u
}

// specs describes tools for the provider.
func specs(tools []tool.Tool) []llm.ToolSpec {
	out := make([]llm.ToolSpec, 0, len(tools))
	for _, t := range tools {
		out = append(out, llm.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()})
	}
	return out
}

// The loop hands the provider a Sink, and it is this one.
var _ llm.Sink = (*streamSink)(nil)

// streamSink turns the provider's callbacks into streaming events. One
// sink serves every attempt of a call: the message it streams is one.
type streamSink struct {
	l     *loop
	msgID string
	// started: message.start was sent (by this or an earlier attempt).
	started bool
	// attempt is the attempt streaming now; attemptStarted that it has
	// delivered something (a message.reset was sent first if needed).
	attempt        int
	attemptStarted bool
	// shown is the content clients show of the message after a failed
	// attempt (the partial of the last attempt that streamed), with that
	// attempt's usage; retries is the record of the failed attempts.
	shown      []store.ContentBlock
	shownUsage store.Usage
	retries    *store.Retries
	stall      *stallWatch // nil outside the provider's Stream
	// open tool uses (started, not ended) by content block index: the app's id.
	open map[int]string
	// calls are the named tool uses by content block index.
	calls map[int]namedCall
}

// namedCall is a tool use's id in the app and the provider's id for it.
type namedCall struct{ id, provider string }

// alive tells the stall watch the stream delivered something.
func (s *streamSink) alive() {
	if s.stall != nil {
		s.stall.touch()
	}
}

// MessageStart opens the message on the call's first delivery; on the
// first delivery of a later attempt after the message was opened, it
// sends message.reset instead (the partial so far is void).
func (s *streamSink) MessageStart() {
	s.alive()
	if s.attemptStarted {
		return
	}
	s.attemptStarted = true
	if !s.started {
		s.started = true
		s.l.Recorder.Emit(s.l.draft(ipc.TypeMessageStart, ipc.ActorAgent, ipc.MessageStart{
			MessageID: s.msgID, Role: store.RoleAssistant, Model: s.l.Model,
		}), func(sess *store.Session) { sess.StreamingMessageID = s.msgID })
		return
	}
	s.open, s.calls, s.shown, s.shownUsage = nil, nil, nil, store.Usage{}
	r := ipc.MessageReset{MessageID: s.msgID, Attempt: s.attempt}
	if s.retries != nil {
		r.ErrorClass, r.Error = s.retries.ErrorClass, s.retries.Error
	}
	s.l.emit(s.l.draft(ipc.TypeMessageReset, ipc.ActorAgent, r))
	if s.l.OnReset != nil {
		s.l.OnReset()
	}
}

func (s *streamSink) TextDelta(index int, text string) {
	s.MessageStart()
	s.l.emit(s.l.draft(ipc.TypeTextDelta, ipc.ActorAgent, ipc.TextDelta{
		MessageID: s.msgID, ContentBlockIndex: index, Text: text,
	}))
	if s.l.OnText != nil && text != "" {
		s.l.OnText(text)
	}
}

func (s *streamSink) ThinkingDelta(index int, text string, signature *string) {
	s.MessageStart()
	s.l.emit(s.l.draft(ipc.TypeThinkingDelta, ipc.ActorAgent, ipc.ThinkingDelta{
		MessageID: s.msgID, ContentBlockIndex: index, Text: text, Signature: signature,
	}))
}

// ToolUseStart names the call (CallIDs) before anything about it is
// emitted: from here on the app's id replaces the provider's.
func (s *streamSink) ToolUseStart(index int, providerID, name string) {
	s.MessageStart()
	if s.open == nil {
		s.open, s.calls = map[int]string{}, map[int]namedCall{}
	}
	id := s.l.CallIDs.Assign(providerID)
	s.calls[index] = namedCall{id: id, provider: providerID}
	s.open[index] = id
	s.l.emit(s.l.draft(ipc.TypeToolUseStart, ipc.ActorAgent, ipc.ToolUseStart{
		MessageID: s.msgID, ContentBlockIndex: index, ToolUseID: id, ToolName: name,
	}))
}

// callID is the app's id of the call at index (the provider's id when the
// adapter never opened it, which no adapter does).
func (s *streamSink) callID(index int, providerID string) string {
	if c, ok := s.calls[index]; ok {
		return c.id
	}
	return providerID
}

func (s *streamSink) ToolUseInputDelta(index int, providerID, fragment string) {
	s.alive()
	s.l.emit(s.l.draft(ipc.TypeToolUseInputDelta, ipc.ActorAgent, ipc.ToolUseInputDelta{
		MessageID: s.msgID, ContentBlockIndex: index, ToolUseID: s.callID(index, providerID), PartialJSON: fragment,
	}))
}

func (s *streamSink) ToolUseEnd(index int, providerID string, finalInput json.RawMessage) {
	s.alive()
	delete(s.open, index)
	if len(finalInput) == 0 {
		finalInput = json.RawMessage(`{}`)
	}
	s.l.emit(s.l.draft(ipc.TypeToolUseEnd, ipc.ActorAgent, ipc.ToolUseEnd{
		MessageID: s.msgID, ContentBlockIndex: index, ToolUseID: s.callID(index, providerID), FinalInput: finalInput,
	}))
}

// rename gives the tool calls of content the ids their streams were named
// with (keeping the provider's id in ProviderID when it differs); a call
// that never streamed is named here.
func (s *streamSink) rename(content []store.ContentBlock) {
	for i := range content {
		b := &content[i]
		if b.Type != store.BlockToolCall {
			continue
		}
		c, ok := s.calls[i]
		if !ok || c.provider != b.ID {
			c = namedCall{id: s.l.CallIDs.Assign(b.ID), provider: b.ID}
		}
		if c.id != c.provider {
			b.ProviderID = c.provider
		}
		b.ID = c.id
	}
}

// complete closes any tool use left open (with the input content holds,
// else {}), then commits message.complete carrying the stored message. A
// cancelled message's tool calls get synthetic results in the same commit.
func (s *streamSink) complete(content []store.ContentBlock, usage store.Usage, status, stopReason string) store.Message {
	for idx, id := range s.open {
		input := json.RawMessage(`{}`)
		if idx < len(content) && content[idx].ID == s.calls[idx].provider && json.Valid(content[idx].Arguments) {
			input = content[idx].Arguments
		}
		s.ToolUseEnd(idx, id, input)
	}
	if content == nil {
		content = []store.ContentBlock{}
	}
	s.rename(content)
	for i := range content {
		if content[i].Type == store.BlockToolCall && !json.Valid(content[i].Arguments) {
			content[i].Arguments = json.RawMessage(`{}`)
		}
	}
	m := store.Message{
		ID: s.msgID, SessionID: s.l.SessionID, TurnID: s.l.TurnID, Role: store.RoleAssistant,
		Content: content, Status: status, StopReason: stopReason, Usage: &usage,
		Model: s.l.Model, CreatedAt: time.Now().UTC(), Retries: s.retries,
	}
	ops := []store.Op{store.PutMessage(m)}
	if status == store.StatusCancelled {
		for _, c := range toolCalls(content) {
			r := SyntheticResult(s.l.SessionID, s.l.TurnID, c, s.l.cancelText(), store.StatusCancelled)
			r.StatusText = "Cancelled before it ran: " + c.Name
			ops = append(ops, store.PutMessage(r))
			s.l.out.CancelledTools = append(s.l.out.CancelledTools, c.ID)
		}
	}
	d := s.l.draft(ipc.TypeMessageComplete, ipc.ActorAgent, ipc.MessageComplete{
		MessageID: s.msgID, StopReason: stopReason, FinalContent: content, Usage: usage, Retries: s.retries,
	}, ops...)
	s.l.Recorder.Commit(d, func(sess *store.Session) { sess.StreamingMessageID = "" })
	return m
}
