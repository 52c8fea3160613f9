package dialect

import (
	"encoding/json"
	"strings"

	"agenthub/ipc"
	"agenthub/store"
)

// The tool-call cards of the seed004 dialect (dialect_seed004.go): a card
// per call_id, opened when the model finished writing the call, its live
// output as *_delta parts, one final part.

// callInfo is what the encoder knows of a tool call whose card is open.
type callInfo struct {
	name        string
	delegation  bool            // a delegate call
	args        json.RawMessage // its arguments, once known
	streamed    bool            // a *_delta part was sent
	blank       string          // whitespace-only output withheld (the client drops blank parts)
	done        bool            // its final part was sent
	workerMsgs  int             // delegation: worker messages begun
	sep         bool            // delegation: a paragraph break is due before the next worker text
	workerText  bool            // delegation: worker text was streamed
	failureMode string          // delegation: delegate.failed's failure_mode
	msg         string          // the message that asked for it (tool.use_end)
	called      bool            // tool.called was seen: it runs
}

// workerMessage notes that a worker began another message: its text
// continues its delegation's stream after a paragraph break.
func (e *seed004) workerMessage(ev ipc.Event) error {
	id, ok := e.workers[ev.SessionID]
	if !ok {
		return nil
	}
	if _, err := ipc.PayloadAs[ipc.MessageStart](ev); err != nil {
		return err
	}
	if info := e.calls[id]; info != nil {
		info.workerMsgs++
		info.sep = info.sep || info.workerMsgs > 1
	}
	return nil
}

// open returns call id's card state, opening it (in card order).
func (e *seed004) open(id, name string) *callInfo {
	info := e.calls[id]
	if info == nil {
		if name == "" {
			name = e.names[id]
		}
		info = &callInfo{name: name, delegation: name == delegateToolName}
		e.calls[id] = info
		e.turn.order = append(e.turn.order, id)
	}
	if info.name == "" && name != "" {
		info.name, info.delegation = name, name == delegateToolName
	}
	return info
}

// details are a part's tool_call_details: the summary, and the call's
// arguments (and a bash call's command) where potpie-ui reads them.
func (info *callInfo) details(summary string) map[string]any {
	d := map[string]any{"summary": summary}
	if info.args != nil {
		d["arguments"], d["command"] = s004Args(info.name, info.args)
		if d["command"] == "" {
			delete(d, "command")
		}
	}
	return d
}

// s004Args is a call's arguments as an object and, for bash, its command.
func s004Args(name string, raw json.RawMessage) (args map[string]any, command string) {
	if json.Unmarshal(raw, &args) != nil || args == nil {
		args = map[string]any{}
	}
	if name == "bash" {
		command, _ = args["command"].(string)
	}
	return args, command
}

func (e *seed004) callPart(id string, info *callInfo, status string, d map[string]any) []chatAgentResponse {
	typ := s004Call
	if info.delegation {
		typ = s004DelegationCall
	}
	return []chatAgentResponse{{ToolCalls: []toolCallResponse{{CallID: id, EventType: typ, ToolName: s004ToolName(info.name),
		ToolResponse: status, ToolCallDetails: d, IsComplete: true}}}}
}

// toolUseEnd opens the card as soon as the model finished writing the
// call: the cards keep the model's order.
func (e *seed004) toolUseEnd(ev ipc.Event) ([]chatAgentResponse, error) {
	p, err := ipc.PayloadAs[ipc.ToolUseEnd](ev)
	if err != nil {
		return nil, err
	}
	info := e.open(p.ToolUseID, "")
	if info.done {
		return nil, nil
	}
	info.args, info.msg = p.FinalInput, p.MessageID
	return e.callPart(p.ToolUseID, info, "", info.details("")), nil
}

func (e *seed004) toolCall(ev ipc.Event) ([]chatAgentResponse, error) {
	p, err := ipc.PayloadAs[ipc.ToolCalled](ev)
	if err != nil {
		return nil, err
	}
	info := e.open(p.ToolUseID, p.ToolName)
	if info.done {
		return nil, nil
	}
	info.args, info.called = p.Input, true
	return e.callPart(p.ToolUseID, info, p.StatusText, info.details(p.Summary)), nil
}

func (e *seed004) delegationCall(ev ipc.Event) ([]chatAgentResponse, error) {
	p, err := ipc.PayloadAs[ipc.DelegateStarted](ev)
	if err != nil {
		return nil, err
	}
	info := e.open(p.ToolUseID, delegateToolName)
	info.delegation = true
	e.workers[p.WorkerSessionID] = p.ToolUseID
	d := info.details(p.Summary)
	d["worker_session_id"], d["task"], d["depth"] = p.WorkerSessionID, p.Task, p.Depth
	return e.callPart(p.ToolUseID, info, p.StatusText, d), nil
}

// streamPart is tool.output_delta as a *_delta part of its call: live
// output, or a delegation's worker text. Whitespace-only output is held
// back and sent with the next output (potpie-ui drops a blank part).
func (e *seed004) streamPart(ev ipc.Event) ([]chatAgentResponse, error) {
	p, err := ipc.PayloadAs[ipc.ToolOutputDelta](ev)
	if err != nil {
		return nil, err
	}
	name := ""
	if p.Stream == "worker" {
		name = delegateToolName
	}
	info := e.open(p.ToolUseID, name)
	if info.done || p.Text == "" {
		return nil, nil
	}
	text := p.Text
	typ := s004ResultDelta
	if info.delegation {
		typ = s004DelegationDelta
		if info.sep && info.workerText {
			text = s004Paragraph + text
		}
		info.sep = false
	}
	if strings.TrimSpace(text) == "" {
		info.blank += text
		return nil, nil
	}
	text, info.blank = info.blank+text, ""
	info.streamed, info.workerText = true, info.workerText || info.delegation
	return []chatAgentResponse{{ToolCalls: []toolCallResponse{{CallID: p.ToolUseID, EventType: typ,
		ToolName: s004ToolName(info.name), ToolCallDetails: map[string]any{"summary": ""}, StreamPart: &text}}}}, nil
}

// final is call id's last part: typ with the status and the details.
func (e *seed004) final(id string, info *callInfo, typ, status string, d map[string]any) []chatAgentResponse {
	tc := toolCallResponse{CallID: id, EventType: typ, ToolName: s004ToolName(info.name), ToolResponse: status,
		ToolCallDetails: d, IsComplete: true}
	if info.streamed {
		empty := "" // the document's final chunk: an accumulating client keeps what it has
		tc.StreamPart = &empty
	}
	info.done = true
	return []chatAgentResponse{{ToolCalls: []toolCallResponse{tc}}}
}

// toolResult is tool.completed or tool.failed as the call's final part: a
// "result" ("delegation_result" for a delegation), or an "error" for a
// failed call.
func (e *seed004) toolResult(ev ipc.Event) ([]chatAgentResponse, error) {
	var id, name, status, summary string
	extra := map[string]any{}
	failed := false
	if ev.Type == ipc.TypeToolCompleted {
		p, err := ipc.PayloadAs[ipc.ToolCompleted](ev)
		if err != nil {
			return nil, err
		}
		id, name, status, summary, failed = p.ToolUseID, p.ToolName, p.StatusText, p.Summary, p.IsError
	} else {
		p, err := ipc.PayloadAs[ipc.ToolFailed](ev)
		if err != nil {
			return nil, err
		}
		id, name, status, summary, failed = p.ToolUseID, p.ToolName, p.StatusText, p.Summary, true
		extra["error_class"] = p.ErrorClass
	}
	info := e.open(id, name)
	if info.done {
		return nil, nil
	}
	d := info.details(summary)
	d["is_error"] = failed
	for k, v := range extra {
		d[k] = v
	}
	if info.delegation {
		d["success"] = !failed
		if info.failureMode != "" {
			d["failure_mode"] = info.failureMode
		}
	}
	return e.final(id, info, s004FinalType(info.delegation, failed), status, d), nil
}

// delegationResult notes how a delegation ended (delegate.completed or
// delegate.failed); the delegate call's own tool.completed / tool.failed,
// which follows and is what the history keeps, is its final part.
func (e *seed004) delegationResult(ev ipc.Event) ([]chatAgentResponse, error) {
	var id, mode string
	if ev.Type == ipc.TypeDelegateCompleted {
		p, err := ipc.PayloadAs[ipc.DelegateCompleted](ev)
		if err != nil {
			return nil, err
		}
		id = p.ToolUseID
	} else {
		p, err := ipc.PayloadAs[ipc.DelegateFailed](ev)
		if err != nil {
			return nil, err
		}
		id, mode = p.ToolUseID, p.FailureMode
	}
	info := e.open(id, delegateToolName)
	info.delegation, info.failureMode = true, mode
	return nil, nil
}

// s004FinalType is the event type of a call's final part.
func s004FinalType(delegation, failed bool) string {
	switch {
	case failed:
		return s004Error
	case delegation:
		return s004DelegationRes
	}
	return s004Result
}

// s004NotRun is the status of a call its turn ended without running.
// A crashed turn ends turn.cancelled "interrupted" live and reads back as
// "interrupted" from the history: both are "Cancelled".
func s004NotRun(turnStatus string) string {
	if turnStatus == store.TurnCancelled || turnStatus == store.TurnInterrupted {
		return "Cancelled"
	}
	return "Not run"
}
