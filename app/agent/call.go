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
// It returns the stored assistant message and true when the call succeeded.
func (l *loop) call(ctx context.Context, system string, msgs []store.Message) (store.Message, bool) {
	provName, model, perr := llm.ParseModel(l.Model)
	req := llm.Request{Model: model, System: system, Messages: msgs, Tools: specs(l.tools), MaxTokens: l.MaxTokens,
		ThinkingBudget: l.ThinkingBudget}
	for attempt := 1; ; attempt++ {
		callID, msgID := NewID(), NewID()
		l.emit(l.draft(ipc.TypeLLMCallStarted, ipc.ActorAgent, ipc.LLMCallStarted{
			CallID: callID, Model: l.Model, MessageID: msgID, Attempt: attempt,
		}))
		start := time.Now()
		var (
			res  llm.Result
			err  error
			sink = &streamSink{l: l, msgID: msgID}
		)
		if perr != nil {
			err = perr
		} else if prov, e := l.Providers.Provider(provName); e != nil {
			err = e
		} else {
			sink.stall = startStallWatch(l, callID)
			res, err = prov.Stream(ctx, req, sink)
			sink.stall.stop()
		}
		if err != nil {
			res.Usage = estimateOutput(res)
		}
		res.Usage.CostUSD = llm.Cost(l.Model, res.Usage)
		l.out.Usage = l.out.Usage.Add(res.Usage)
		if err == nil {
			m := sink.complete(res, store.StatusComplete, res.StopReason)
			l.emit(l.draft(ipc.TypeLLMCallCompleted, ipc.ActorAgent, ipc.LLMCallCompleted{
				CallID: callID, Model: l.Model, MessageID: msgID, StopReason: res.StopReason,
				Usage: res.Usage, DurationMS: time.Since(start).Milliseconds(),
			}))
			return m, true
		}
		le := llmError(ctx, err)
		cancelled := le.Class == errclass.Cancelled
		if sink.started {
			if cancelled {
				m := sink.complete(res, store.StatusCancelled, llm.StopCancelled)
				l.out.PartialMessageID = m.ID
			} else {
				sink.complete(res, store.StatusError, llm.StopError)
			}
		}
		retry := !cancelled && le.Retriable && attempt < l.MaxAttempts
		var wait time.Duration
		if retry {
			wait = l.Backoff(attempt, le.RetryAfter)
		}
		failedMsgID := ""
		if sink.started {
			failedMsgID = msgID
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
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
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

// streamSink turns the provider's callbacks into streaming events.
type streamSink struct {
	l       *loop
	msgID   string
	started bool
	stall   *stallWatch // nil outside the provider's Stream
	// open tool uses (started, not ended) by content block index.
	open map[int]string
}

// alive tells the stall watch the stream delivered something.
func (s *streamSink) alive() {
	if s.stall != nil {
		s.stall.touch()
	}
}

func (s *streamSink) MessageStart() {
	s.alive()
	if s.started {
		return
	}
	s.started = true
	s.l.Recorder.Emit(s.l.draft(ipc.TypeMessageStart, ipc.ActorAgent, ipc.MessageStart{
		MessageID: s.msgID, Role: store.RoleAssistant, Model: s.l.Model,
	}), func(sess *store.Session) { sess.StreamingMessageID = s.msgID })
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

func (s *streamSink) ToolUseStart(index int, id, name string) {
	s.MessageStart()
	if s.open == nil {
		s.open = map[int]string{}
	}
	s.open[index] = id
	s.l.emit(s.l.draft(ipc.TypeToolUseStart, ipc.ActorAgent, ipc.ToolUseStart{
		MessageID: s.msgID, ContentBlockIndex: index, ToolUseID: id, ToolName: name,
	}))
}

func (s *streamSink) ToolUseInputDelta(index int, id, fragment string) {
	s.alive()
	s.l.emit(s.l.draft(ipc.TypeToolUseInputDelta, ipc.ActorAgent, ipc.ToolUseInputDelta{
		MessageID: s.msgID, ContentBlockIndex: index, ToolUseID: id, PartialJSON: fragment,
	}))
}

func (s *streamSink) ToolUseEnd(index int, id string, finalInput json.RawMessage) {
	s.alive()
	delete(s.open, index)
	if len(finalInput) == 0 {
		finalInput = json.RawMessage(`{}`)
	}
	s.l.emit(s.l.draft(ipc.TypeToolUseEnd, ipc.ActorAgent, ipc.ToolUseEnd{
		MessageID: s.msgID, ContentBlockIndex: index, ToolUseID: id, FinalInput: finalInput,
	}))
}

// complete closes any tool use left open (with the input the Result holds,
// else {}), then commits message.complete carrying the stored message. A
// cancelled message's tool calls get synthetic results in the same commit.
func (s *streamSink) complete(res llm.Result, status, stopReason string) store.Message {
	s.MessageStart()
	for idx, id := range s.open {
		input := json.RawMessage(`{}`)
		if idx < len(res.Content) && res.Content[idx].ID == id && json.Valid(res.Content[idx].Arguments) {
			input = res.Content[idx].Arguments
		}
		s.ToolUseEnd(idx, id, input)
	}
	content := res.Content
	if content == nil {
		content = []store.ContentBlock{}
	}
	for i := range content {
		if content[i].Type == store.BlockToolCall && !json.Valid(content[i].Arguments) {
			content[i].Arguments = json.RawMessage(`{}`)
		}
	}
	usage := res.Usage
	m := store.Message{
		ID: s.msgID, SessionID: s.l.SessionID, TurnID: s.l.TurnID, Role: store.RoleAssistant,
		Content: content, Status: status, StopReason: stopReason, Usage: &usage,
		Model: s.l.Model, CreatedAt: time.Now().UTC(),
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
		MessageID: s.msgID, StopReason: stopReason, FinalContent: content, Usage: usage,
	}, ops...)
	s.l.Recorder.Commit(d, func(sess *store.Session) { sess.StreamingMessageID = "" })
	return m
}
