package agui

import (
	"encoding/json"
	"fmt"
	"slices"

	"agenthub/ipc"
	"agenthub/store"
)

// Encoder turns the canonical events of one turn (one AG-UI run) into
// AG-UI events, keeping every stream balanced as the stock client's
// verifier demands: a text message, reasoning message, tool call or step
// that is open when the run ends is closed first. After RUN_FINISHED or
// RUN_ERROR it produces nothing. Not safe for concurrent use.
//
// Mapping: message.start opens nothing by itself; thinking.delta →
// REASONING_START + REASONING_MESSAGE_START (id "<message>:reasoning")
// then REASONING_MESSAGE_CONTENT; text.delta → TEXT_MESSAGE_START (role
// assistant) then TEXT_MESSAGE_CONTENT; tool.use_start/input_delta/end →
// TOOL_CALL_START (parentMessageId = the message)/ARGS/END; message.complete
// closes what its message left open; tool.completed/failed →
// TOOL_CALL_RESULT (messageId ResultMessageID); delegate.started/
// completed/failed → STEP_STARTED/STEP_FINISHED "delegate:<tool_use_id>";
// tool.output_delta and tool.approval_requested/resolved → CUSTOM events
// of those names carrying the canonical payload; turn.completed →
// RUN_FINISHED (outcome success) or RUN_ERROR (status failed);
// turn.cancelled → RUN_FINISHED (outcome cancelled); message.reset (a
// retried model call streams its message again) → the message's open
// streams closed, a TOOL_CALL_RESULT for each of its void tool calls (so no
// client counts them pending), then MESSAGES_SNAPSHOT of the thread with
// the message (and its reasoning message) empty, so the stock client
// replaces what it showed in place and the retry's deltas rebuild it.
type Encoder struct {
	threadID, runID string
	open            []opened // open streams, oldest first
	done            bool
	// history, when set, reads the thread's stored messages (oldest first)
	// for message.reset's snapshot.
	history func() []store.Message
	shown   map[string]bool     // message and reasoning ids this run's stream created on the client
	calls   map[string][]string // tool calls started, by the message that asked (until it completes)
}

// VoidCallResult is the content of the TOOL_CALL_RESULT that closes a tool
// call of a stream that broke and was retried.
const VoidCallResult = "Not run: the model's stream broke and was retried."

// opened is one open AG-UI stream.
type opened struct {
	kind string // "text" | "reasoning" | "tool" | "step"
	id   string
}

// NewEncoder returns the encoder of run runID (the turn id) of thread
// threadID; history (nil: none) reads the thread's stored messages for the
// snapshot that follows a retried stream's reset.
func NewEncoder(threadID, runID string, history func() []store.Message) *Encoder {
	return &Encoder{threadID: threadID, runID: runID, history: history, shown: map[string]bool{}, calls: map[string][]string{}}
}

// Started is the RUN_STARTED event.
func (e *Encoder) Started() Event {
	return Event{Type: RunStarted, ThreadID: e.threadID, RunID: e.runID}
}

// Done reports that the run's last event (RUN_FINISHED or RUN_ERROR) was
// produced.
func (e *Encoder) Done() bool { return e.done }

func (e *Encoder) isOpen(kind, id string) bool {
	return slices.Contains(e.open, opened{kind, id})
}

func (e *Encoder) closeOne(kind, id string, ts int64) []Event {
	i := slices.Index(e.open, opened{kind, id})
	if i < 0 {
		return nil
	}
	e.open = slices.Delete(e.open, i, i+1)
	switch kind {
	case "text":
		return []Event{{Type: TextMessageEnd, MessageID: id, Timestamp: ts}}
	case "reasoning":
		return []Event{{Type: ReasoningMessageEnd, MessageID: id, Timestamp: ts}, {Type: ReasoningEnd, MessageID: id, Timestamp: ts}}
	case "tool":
		return []Event{{Type: ToolCallEnd, ToolCallID: id, Timestamp: ts}}
	}
	return []Event{{Type: StepFinished, StepName: id, Timestamp: ts}}
}

// closeAll closes every open stream, newest first.
func (e *Encoder) closeAll(ts int64) []Event {
	var out []Event
	for len(e.open) > 0 {
		last := e.open[len(e.open)-1]
		out = append(out, e.closeOne(last.kind, last.id, ts)...)
	}
	return out
}

// closeMessage closes what message id left open (its text, reasoning and
// tool calls).
func (e *Encoder) closeMessage(id string, calls []string, ts int64) []Event {
	out := e.closeOne("reasoning", ReasoningMessageID(id), ts)
	out = append(out, e.closeOne("text", id, ts)...)
	for _, c := range calls {
		out = append(out, e.closeOne("tool", c, ts)...)
	}
	return out
}

// reset drops what the client shows of message id (a retried call streams
// it again): its streams closed, its void tool calls given a result, then
// the thread's snapshot with id and its reasoning message empty in place.
func (e *Encoder) reset(id string, ts int64) []Event {
	void := e.calls[id]
	delete(e.calls, id)
	out := e.closeMessage(id, void, ts)
	for _, c := range void {
		text := VoidCallResult
		out = append(out, Event{Type: ToolCallResult, MessageID: ResultMessageID(c), ToolCallID: c, Role: "tool", Content: &text, Timestamp: ts})
	}
	rid := ReasoningMessageID(id)
	if e.history == nil || (!e.shown[id] && !e.shown[rid]) {
		return out
	}
	msgs := Messages(e.history())
	empty := ""
	if e.shown[rid] {
		msgs = append(msgs, Message{ID: rid, Role: "reasoning", Content: &empty})
	}
	if e.shown[id] {
		msgs = append(msgs, Message{ID: id, Role: "assistant", Content: &empty})
	}
	return append(out, Event{Type: MessagesSnapshot, Messages: msgs, Timestamp: ts})
}

func decode[T any](ev ipc.Event) (T, error) {
	var p T
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		return p, fmt.Errorf("agui: %s event %s: decode payload: %w", ev.Type, ev.ID, err)
	}
	return p, nil
}

// Encode returns the AG-UI events for one canonical event of the run.
func (e *Encoder) Encode(ev ipc.Event) ([]Event, error) {
	if e.done {
		return nil, nil
	}
	ts := ev.TS.UnixMilli()
	switch ev.Type {
	case ipc.TypeThinkingDelta, ipc.TypeTextDelta:
		return e.messageDelta(ev, ts)
	case ipc.TypeToolUseStart, ipc.TypeToolUseInputDelta, ipc.TypeToolUseEnd:
		return e.toolCall(ev, ts)
	case ipc.TypeMessageComplete, ipc.TypeMessageReset:
		return e.messageEnd(ev, ts)
	case ipc.TypeToolCompleted, ipc.TypeToolFailed:
		return e.toolResult(ev, ts)
	case ipc.TypeDelegateStarted, ipc.TypeDelegateCompleted, ipc.TypeDelegateFailed:
		return e.step(ev, ts)
	case ipc.TypeToolOutputDelta, ipc.TypeToolApprovalRequested, ipc.TypeToolApprovalResolved:
		return []Event{{Type: Custom, Name: ev.Type, Value: ev.Payload, Timestamp: ts}}, nil
	case ipc.TypeTurnCompleted, ipc.TypeTurnCancelled:
		return e.runEnd(ev, ts)
	}
	return nil, nil
}

// messageDelta opens the reasoning or text message a delta belongs to (closing the other kind) and streams the delta.
func (e *Encoder) messageDelta(ev ipc.Event, ts int64) ([]Event, error) {
	switch ev.Type {
	case ipc.TypeThinkingDelta:
		p, err := decode[ipc.ThinkingDelta](ev)
		if err != nil || p.Text == "" {
			return nil, err
		}
		id := ReasoningMessageID(p.MessageID)
		var out []Event
		if !e.isOpen("reasoning", id) {
			out = append(out, e.closeOne("text", p.MessageID, ts)...)
			e.open = append(e.open, opened{"reasoning", id})
			e.shown[id] = true
			out = append(out, Event{Type: ReasoningStart, MessageID: id, Timestamp: ts},
				Event{Type: ReasoningMessageStart, MessageID: id, Role: "reasoning", Timestamp: ts})
		}
		return append(out, Event{Type: ReasoningMessageContent, MessageID: id, Delta: p.Text, Timestamp: ts}), nil
	case ipc.TypeTextDelta:
		p, err := decode[ipc.TextDelta](ev)
		if err != nil || p.Text == "" {
			return nil, err
		}
		var out []Event
		if !e.isOpen("text", p.MessageID) {
			out = append(out, e.closeOne("reasoning", ReasoningMessageID(p.MessageID), ts)...)
			e.open = append(e.open, opened{"text", p.MessageID})
			e.shown[p.MessageID] = true
			out = append(out, Event{Type: TextMessageStart, MessageID: p.MessageID, Role: "assistant", Timestamp: ts})
		}
		return append(out, Event{Type: TextMessageContent, MessageID: p.MessageID, Delta: p.Text, Timestamp: ts}), nil
	}
	return nil, nil
}

// toolCall opens, streams the arguments of and closes a tool call of the assistant message.
func (e *Encoder) toolCall(ev ipc.Event, ts int64) ([]Event, error) {
	switch ev.Type {
	case ipc.TypeToolUseStart:
		p, err := decode[ipc.ToolUseStart](ev)
		if err != nil || e.isOpen("tool", p.ToolUseID) {
			return nil, err
		}
		out := e.closeMessage(p.MessageID, nil, ts)
		e.open = append(e.open, opened{"tool", p.ToolUseID})
		e.shown[p.MessageID] = true
		e.calls[p.MessageID] = append(e.calls[p.MessageID], p.ToolUseID)
		return append(out, Event{Type: ToolCallStart, ToolCallID: p.ToolUseID, ToolCallName: p.ToolName, ParentMessageID: p.MessageID, Timestamp: ts}), nil
	case ipc.TypeToolUseInputDelta:
		p, err := decode[ipc.ToolUseInputDelta](ev)
		if err != nil || p.PartialJSON == "" || !e.isOpen("tool", p.ToolUseID) {
			return nil, err
		}
		return []Event{{Type: ToolCallArgs, ToolCallID: p.ToolUseID, Delta: p.PartialJSON, Timestamp: ts}}, nil
	case ipc.TypeToolUseEnd:
		p, err := decode[ipc.ToolUseEnd](ev)
		if err != nil {
			return nil, err
		}
		return e.closeOne("tool", p.ToolUseID, ts), nil
	}
	return nil, nil
}

// messageEnd closes an assistant message (its tool calls too) when it completes, or drops what it streamed when the call is retried.
func (e *Encoder) messageEnd(ev ipc.Event, ts int64) ([]Event, error) {
	switch ev.Type {
	case ipc.TypeMessageComplete:
		p, err := decode[ipc.MessageComplete](ev)
		if err != nil {
			return nil, err
		}
		var calls []string
		for _, b := range p.FinalContent {
			if b.ID != "" {
				calls = append(calls, b.ID)
			}
		}
		delete(e.calls, p.MessageID)
		return e.closeMessage(p.MessageID, calls, ts), nil
	case ipc.TypeMessageReset:
		p, err := decode[ipc.MessageReset](ev)
		if err != nil {
			return nil, err
		}
		return e.reset(p.MessageID, ts), nil
	}
	return nil, nil
}

// toolResult closes a tool call and gives its result (the output, or the failure's message) as a tool message.
func (e *Encoder) toolResult(ev ipc.Event, ts int64) ([]Event, error) {
	switch ev.Type {
	case ipc.TypeToolCompleted:
		p, err := decode[ipc.ToolCompleted](ev)
		if err != nil {
			return nil, err
		}
		out := e.closeOne("tool", p.ToolUseID, ts)
		return append(out, Event{Type: ToolCallResult, MessageID: ResultMessageID(p.ToolUseID), ToolCallID: p.ToolUseID,
			Role: "tool", Content: &p.Output, Timestamp: ts}), nil
	case ipc.TypeToolFailed:
		p, err := decode[ipc.ToolFailed](ev)
		if err != nil {
			return nil, err
		}
		out := e.closeOne("tool", p.ToolUseID, ts)
		return append(out, Event{Type: ToolCallResult, MessageID: ResultMessageID(p.ToolUseID), ToolCallID: p.ToolUseID,
			Role: "tool", Content: &p.Message, Timestamp: ts}), nil
	}
	return nil, nil
}

// step opens a delegation as a step and closes it when the worker ends.
func (e *Encoder) step(ev ipc.Event, ts int64) ([]Event, error) {
	switch ev.Type {
	case ipc.TypeDelegateStarted:
		p, err := decode[ipc.DelegateStarted](ev)
		if err != nil {
			return nil, err
		}
		name := "delegate:" + p.ToolUseID
		if e.isOpen("step", name) {
			return nil, nil
		}
		e.open = append(e.open, opened{"step", name})
		return []Event{{Type: StepStarted, StepName: name, Timestamp: ts}}, nil
	case ipc.TypeDelegateCompleted, ipc.TypeDelegateFailed:
		var p struct {
			ToolUseID string `json:"tool_use_id"`
		}
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			return nil, fmt.Errorf("agui: %s event %s: decode payload: %w", ev.Type, ev.ID, err)
		}
		return e.closeOne("step", "delegate:"+p.ToolUseID, ts), nil
	}
	return nil, nil
}

// runEnd closes everything open and ends the run: finished (success or cancelled) or an error.
func (e *Encoder) runEnd(ev ipc.Event, ts int64) ([]Event, error) {
	switch ev.Type {
	case ipc.TypeTurnCompleted:
		p, err := decode[ipc.TurnCompleted](ev)
		if err != nil {
			return nil, err
		}
		out := e.closeAll(ts)
		e.done = true
		if p.Status == ipc.TurnStatusFailed {
			msg := p.Error
			if msg == "" {
				msg = "the turn failed"
			}
			return append(out, Event{Type: RunError, Message: msg, Code: p.ErrorClass, Timestamp: ts}), nil
		}
		return append(out, Event{Type: RunFinished, ThreadID: e.threadID, RunID: e.runID, Outcome: &Outcome{"success"}, Timestamp: ts}), nil
	case ipc.TypeTurnCancelled:
		out := e.closeAll(ts)
		e.done = true
		return append(out, Event{Type: RunFinished, ThreadID: e.threadID, RunID: e.runID, Outcome: &Outcome{"cancelled"}, Timestamp: ts}), nil
	}
	return nil, nil
}

// Encoded is ev as one SSE "data:" payload.
func Encoded(ev Event) []byte { return marshal(ev) }
