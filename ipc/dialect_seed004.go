package ipc

// seed004 is seed 004's ChatAgentResponse dialect. A delegation has one
// lifecycle, delegation_call → streamed delegation_result parts → a final
// delegation_result (the delegate tool's own tool.called/tool.completed
// are folded into it); any other tool call is call → streamed result
// parts → a final result. A final part after streamed parts carries
// stream_part "" so a seed client appends nothing and keeps what it
// accumulated (the seed's final chunk); one without streamed parts has
// none. Text of the subscribed session is "response"; a worker's text
// reaches the client as its delegation's streamed parts. Every frame
// carries the additive "eventId".
type seed004 struct {
	session string // the subscribed session: its text is the response
	calls   map[string]*callInfo
	shared  *sharedFrames // response frames of text deltas, encoded once for every subscriber
}

func (e *seed004) share(sf *sharedFrames) { e.shared = sf }

// callInfo is what the encoder knows of a call it has seen start.
type callInfo struct {
	name       string
	delegation bool // a delegate call (its result is delegation_result)
	started    bool // delegation_call sent
	streamed   bool // a stream part was sent
	done       bool // its final part was sent
}

type chatAgentResponse struct {
	Response  string             `json:"response"`
	ToolCalls []toolCallResponse `json:"tool_calls"`
	Citations []string           `json:"citations"`
	EventID   string             `json:"eventId,omitempty"`
}

type toolCallResponse struct {
	CallID          string         `json:"call_id"`
	EventType       string         `json:"event_type"` // call | result | delegation_call | delegation_result
	ToolName        string         `json:"tool_name"`
	ToolResponse    string         `json:"tool_response"`
	ToolCallDetails map[string]any `json:"tool_call_details"`
	StreamPart      *string        `json:"stream_part,omitempty"`
	IsComplete      bool           `json:"is_complete"`
}

// delegateToolName is the built-in delegation tool's name, which seed004
// frames also show.
const delegateToolName = "delegate"

func (e *seed004) Resume(r ResumePoint) ([][]byte, error) {
	for _, t := range r.Tools {
		e.calls[t.ID] = &callInfo{name: t.Name, delegation: t.Delegation || t.Name == delegateToolName,
			started: t.Delegation, streamed: t.Streamed}
	}
	return nil, nil
}

// Snapshot gives seed004 the history shape of seeds 000 and 003 (seed 004
// defines none).
func (e *seed004) Snapshot(frame []byte) ([]byte, error) {
	return dialectSnapshot(frame, ToAgentMessages)
}

func (e *seed004) Encode(ev Event) ([][]byte, error) {
	switch ev.Type {
	case TypeTextDelta:
		if ev.SessionID != e.session {
			return nil, nil
		}
		p, err := decodeAs[TextDelta](ev)
		if err != nil || p.Text == "" {
			return nil, err
		}
		b, err := e.shared.frame(DialectSeed004, ev.ID, func() ([]byte, error) {
			fs, err := marshalFrame(chatAgentResponse{Response: p.Text, ToolCalls: []toolCallResponse{}, Citations: []string{}, EventID: ev.ID.String()})
			if err != nil {
				return nil, err
			}
			return fs[0], nil
		})
		if err != nil {
			return nil, err
		}
		return [][]byte{b}, nil
	case TypeToolCalled:
		return e.toolCall(ev)
	case TypeToolCompleted, TypeToolFailed:
		return e.toolResult(ev)
	case TypeDelegateStarted:
		return e.delegationCall(ev)
	case TypeDelegateCompleted, TypeDelegateFailed:
		return e.delegationResult(ev)
	case TypeToolOutputDelta:
		return e.streamPart(ev)
	}
	return nil, nil
}

// part is a ChatAgentResponse of ev carrying the one tool call part tc.
func (e *seed004) part(ev Event, tc toolCallResponse) ([][]byte, error) {
	return marshalFrame(chatAgentResponse{ToolCalls: []toolCallResponse{tc}, Citations: []string{}, EventID: ev.ID.String()})
}

// final completes tc as the call's last part.
func (e *seed004) final(ev Event, info *callInfo, tc toolCallResponse) ([][]byte, error) {
	tc.IsComplete = true
	if info.streamed {
		empty := ""
		tc.StreamPart = &empty
	}
	info.done = true
	delete(e.calls, tc.CallID)
	return e.part(ev, tc)
}

// s004Details are a part's tool_call_details: the Markdown summary, plus
// what the caller adds.
func s004Details(summary string) map[string]any { return map[string]any{"summary": summary} }

func (e *seed004) call(id, name string) *callInfo {
	info := e.calls[id]
	if info == nil {
		info = &callInfo{name: name, delegation: name == delegateToolName}
		e.calls[id] = info
	}
	return info
}

func (e *seed004) toolCall(ev Event) ([][]byte, error) {
	p, err := decodeAs[ToolCalled](ev)
	if err != nil {
		return nil, err
	}
	if info := e.call(p.ToolUseID, p.ToolName); info.delegation {
		return nil, nil // delegate.started gives the delegation_call
	}
	return e.part(ev, toolCallResponse{CallID: p.ToolUseID, EventType: "call", ToolName: p.ToolName,
		ToolResponse: p.StatusText, ToolCallDetails: s004Details(p.Summary), IsComplete: true})
}

// toolResult is tool.completed or tool.failed as the final "result" part.
// A delegation's is dropped (its delegate.* event gave the final
// delegation_result) unless the delegation never started (refused before
// it ran), which then ends as a failed delegation_result.
func (e *seed004) toolResult(ev Event) ([][]byte, error) {
	var tc toolCallResponse
	if ev.Type == TypeToolCompleted {
		p, err := decodeAs[ToolCompleted](ev)
		if err != nil {
			return nil, err
		}
		tc = toolCallResponse{CallID: p.ToolUseID, ToolName: p.ToolName, ToolResponse: p.StatusText, ToolCallDetails: s004Details(p.Summary)}
		tc.ToolCallDetails["is_error"] = p.IsError
	} else {
		p, err := decodeAs[ToolFailed](ev)
		if err != nil {
			return nil, err
		}
		tc = toolCallResponse{CallID: p.ToolUseID, ToolName: p.ToolName, ToolResponse: p.StatusText, ToolCallDetails: s004Details(p.Summary)}
		tc.ToolCallDetails["is_error"], tc.ToolCallDetails["error_class"] = true, p.ErrorClass
	}
	info, known := e.calls[tc.CallID]
	if !known {
		if tc.ToolName == delegateToolName {
			return nil, nil // its delegation_result was already sent
		}
		info = e.call(tc.CallID, tc.ToolName)
	}
	if info.delegation {
		if info.started {
			delete(e.calls, tc.CallID)
			return nil, nil
		}
		tc.EventType, tc.ToolName = "delegation_result", delegateToolName
		tc.ToolCallDetails["success"] = false
		return e.final(ev, info, tc)
	}
	tc.EventType = "result"
	return e.final(ev, info, tc)
}

func (e *seed004) delegationCall(ev Event) ([][]byte, error) {
	p, err := decodeAs[DelegateStarted](ev)
	if err != nil {
		return nil, err
	}
	info := e.call(p.ToolUseID, delegateToolName)
	info.delegation, info.started = true, true
	d := s004Details(p.Summary)
	d["worker_session_id"], d["task"], d["depth"] = p.WorkerSessionID, p.Task, p.Depth
	return e.part(ev, toolCallResponse{CallID: p.ToolUseID, EventType: "delegation_call", ToolName: delegateToolName,
		ToolResponse: p.StatusText, ToolCallDetails: d, IsComplete: true})
}

// delegationResult is delegate.completed or delegate.failed as the final
// "delegation_result" part.
func (e *seed004) delegationResult(ev Event) ([][]byte, error) {
	tc := toolCallResponse{EventType: "delegation_result", ToolName: delegateToolName}
	if ev.Type == TypeDelegateCompleted {
		p, err := decodeAs[DelegateCompleted](ev)
		if err != nil {
			return nil, err
		}
		tc.CallID, tc.ToolResponse, tc.ToolCallDetails = p.ToolUseID, p.StatusText, s004Details(p.Summary)
		tc.ToolCallDetails["success"] = p.Success
	} else {
		p, err := decodeAs[DelegateFailed](ev)
		if err != nil {
			return nil, err
		}
		tc.CallID, tc.ToolResponse, tc.ToolCallDetails = p.ToolUseID, p.StatusText, s004Details(p.Summary)
		tc.ToolCallDetails["success"], tc.ToolCallDetails["failure_mode"] = false, p.FailureMode
	}
	info := e.call(tc.CallID, delegateToolName)
	info.delegation, info.started = true, true
	out, err := e.final(ev, info, tc)
	// Keep a done marker so the delegate tool's own tool.completed is dropped.
	e.calls[tc.CallID] = &callInfo{name: delegateToolName, delegation: true, started: true, done: true}
	return out, err
}

// streamPart is tool.output_delta as an incomplete part of its call (a
// delegation's when the call is one or the text is a worker's).
func (e *seed004) streamPart(ev Event) ([][]byte, error) {
	p, err := decodeAs[ToolOutputDelta](ev)
	if err != nil {
		return nil, err
	}
	name := ""
	if p.Stream == "worker" {
		name = delegateToolName
	}
	info := e.call(p.ToolUseID, name)
	if info.done {
		return nil, nil
	}
	info.streamed = true
	typ := "result"
	if info.delegation || p.Stream == "worker" {
		typ = "delegation_result"
	}
	part := p.Text
	return e.part(ev, toolCallResponse{CallID: p.ToolUseID, EventType: typ, ToolName: info.name,
		ToolCallDetails: s004Details(""), StreamPart: &part, IsComplete: false})
}
