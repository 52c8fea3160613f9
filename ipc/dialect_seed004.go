package ipc

import (
	"encoding/json"
	"fmt"
	"strings"
)

// seed004 is seed 004's ChatAgentResponse dialect, shaped as the client
// of the project that wrote the document (potpie-ui's ChatService and
// chat runtime) reads it; docs/protocol.md §7 lists where that client and
// the document disagree and which one each field follows.
//
// A turn of the subscribed session is one answer: its assistant text in
// "message" (and in the document's "response"), each message after the
// first starting a new paragraph; its thinking in "thinking"; each tool
// call a card keyed by call_id, in the model's order: "call" (or
// "delegation_call") when the model finished writing it, again with the
// hub's status text once it runs, live output as "result_delta" (a
// delegation's worker text as "delegation_result_delta"), then one final
// "result" / "delegation_result", or "error" when it failed. A worker's
// tool calls are cards of their own (seed004 subscriptions include the
// worker sessions). The turn ends with a frame carrying the additive
// "end"; a failed turn's error is a last paragraph of the answer. Every
// frame carries the additive "eventId".
type seed004 struct {
	session string // the subscribed session: its text is the answer
	shared  *sharedFrames
	calls   map[string]*callInfo // tool calls of the running turn by tool_use_id
	names   map[string]string    // tool_use_id → the tool name tool.use_start gave
	workers map[string]string    // worker session → the delegate call that runs it
	turn    s004Turn
}

func (e *seed004) share(sf *sharedFrames) { e.shared = sf }

// s004Turn is what the running turn has shown so far.
type s004Turn struct {
	text, thinking      bool            // the answer has text / thinking
	textMsgs, thinkMsgs map[string]bool // messages that showed text / thinking
	order               []string        // call ids in the order their cards opened
}

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
}

// chatAgentResponse is one seed004 frame. Message is what potpie-ui reads
// (Potpie's backend sends it); Response is the document's name for the
// same text.
type chatAgentResponse struct {
	Message   string             `json:"message"`
	Response  string             `json:"response"`
	ToolCalls []toolCallResponse `json:"tool_calls"`
	Citations []string           `json:"citations"`
	Thinking  string             `json:"thinking,omitempty"`
	End       *s004End           `json:"end,omitempty"`
	EventID   string             `json:"eventId,omitempty"`
}

// s004End (additive) closes a turn's answer: status "completed", "failed"
// or "cancelled".
type s004End struct {
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
	ErrorClass string `json:"error_class,omitempty"`
}

type toolCallResponse struct {
	CallID          string         `json:"call_id"`
	EventType       string         `json:"event_type"`
	ToolName        string         `json:"tool_name"`
	ToolResponse    string         `json:"tool_response"`
	ToolCallDetails map[string]any `json:"tool_call_details"`
	StreamPart      *string        `json:"stream_part,omitempty"`
	IsComplete      bool           `json:"is_complete"`
}

// seed004 event types of a tool call part: the document's four, plus the
// ones potpie-ui reads — a type containing "delta" is partial output it
// accumulates, "error" is a failed call.
const (
	s004Call            = "call"
	s004Result          = "result"
	s004ResultDelta     = "result_delta"
	s004DelegationCall  = "delegation_call"
	s004DelegationRes   = "delegation_result"
	s004DelegationDelta = "delegation_result_delta"
	s004Error           = "error"
)

// delegateToolName is the built-in delegation tool's name; seed004 shows it
// as s004DelegateName ("Tool names starting with delegate_to_ indicate
// delegation", the agent type after the prefix).
const (
	delegateToolName = "delegate"
	s004DelegateName = "delegate_to_subagent"
	s004Paragraph    = "\n\n"
)

// s004ToolName is the name a seed004 card shows for tool name.
func s004ToolName(name string) string {
	if name == delegateToolName {
		return s004DelegateName
	}
	if name == "" {
		return "tool" // potpie-ui drops a part without a name
	}
	return name
}

func newSeed004(session string) *seed004 {
	e := &seed004{session: session, calls: map[string]*callInfo{}, names: map[string]string{}, workers: map[string]string{}}
	e.resetTurn()
	return e
}

// frame is r ready to marshal: tool_calls and citations are arrays, never
// null (potpie-ui spreads tool_calls), and eventId is id.
func (r chatAgentResponse) frame(id string) chatAgentResponse {
	if r.ToolCalls == nil {
		r.ToolCalls = []toolCallResponse{}
	}
	if r.Citations == nil {
		r.Citations = []string{}
	}
	r.EventID = id
	return r
}

// Resume replays the running turn from its start through the encoder and
// sends what it showed, coalesced, as frames carrying the resume point's
// id: potpie-ui resumes a run into a fresh answer (runtime.ts's resume
// path starts from empty state), so a resuming client replaces the
// answer of the running turn with this one, whatever it held before.
func (e *seed004) Resume(r ResumePoint) ([][]byte, error) {
	if r.TurnEvents == nil {
		return nil, nil
	}
	var rs []chatAgentResponse
	err := r.TurnEvents(func(ev Event) error {
		got, _, err := e.encode(ev)
		rs = append(rs, got...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("ipc: seed004 resume: %w", err)
	}
	var out [][]byte
	for _, c := range coalesce004(rs) {
		fs, err := marshalFrame(c.frame(r.EventID))
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

func (e *seed004) Encode(ev Event) ([][]byte, error) {
	rs, shareable, err := e.encode(ev)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	out := make([][]byte, 0, len(rs))
	for _, r := range rs {
		r = r.frame(ev.ID.String())
		var b []byte
		mk := func() ([]byte, error) {
			fs, err := marshalFrame(r)
			if err != nil {
				return nil, err
			}
			return fs[0], nil
		}
		if shareable {
			b, err = e.shared.frame(DialectSeed004, ev.ID, mk)
		} else {
			b, err = mk()
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// encode maps one event; shareable says its one frame depends on the
// event alone (a text chunk that continues its message).
func (e *seed004) encode(ev Event) (rs []chatAgentResponse, shareable bool, err error) {
	own := ev.SessionID == e.session
	switch ev.Type {
	case TypeTurnStarted:
		if own {
			e.resetTurn()
		}
	case TypeTextDelta:
		if own {
			return e.text(ev)
		}
	case TypeThinkingDelta:
		if own {
			rs, err = e.thinking(ev)
		}
	case TypeMessageStart:
		if !own {
			err = e.workerMessage(ev)
		}
	case TypeToolUseStart:
		var p ToolUseStart
		if p, err = decodeAs[ToolUseStart](ev); err == nil {
			e.names[p.ToolUseID] = p.ToolName
		}
	case TypeToolUseEnd:
		rs, err = e.toolUseEnd(ev)
	case TypeToolCalled:
		rs, err = e.toolCall(ev)
	case TypeToolOutputDelta:
		rs, err = e.streamPart(ev)
	case TypeToolCompleted, TypeToolFailed:
		rs, err = e.toolResult(ev)
	case TypeDelegateStarted:
		rs, err = e.delegationCall(ev)
	case TypeDelegateCompleted, TypeDelegateFailed:
		rs, err = e.delegationResult(ev)
	case TypeTurnCompleted, TypeTurnCancelled:
		if own {
			rs, err = e.endTurn(ev)
		}
	}
	return rs, false, err
}

func (e *seed004) resetTurn() {
	e.turn = s004Turn{textMsgs: map[string]bool{}, thinkMsgs: map[string]bool{}}
	clear(e.calls)
	clear(e.names)
	clear(e.workers)
}

// paragraph is the separator due before the first chunk of message id in
// one of the answer's streams (text or thinking): a paragraph break when
// an earlier message already showed some.
func paragraph(shown *bool, msgs map[string]bool, id string) (sep string, first bool) {
	if msgs[id] {
		return "", false
	}
	msgs[id] = true
	if *shown {
		return s004Paragraph, true
	}
	*shown = true
	return "", true
}

func (e *seed004) text(ev Event) ([]chatAgentResponse, bool, error) {
	p, err := decodeAs[TextDelta](ev)
	if err != nil || p.Text == "" {
		return nil, false, err
	}
	sep, first := paragraph(&e.turn.text, e.turn.textMsgs, p.MessageID)
	t := sep + p.Text
	return []chatAgentResponse{{Message: t, Response: t}}, !first, nil
}

func (e *seed004) thinking(ev Event) ([]chatAgentResponse, error) {
	p, err := decodeAs[ThinkingDelta](ev)
	if err != nil || p.Text == "" {
		return nil, err
	}
	sep, _ := paragraph(&e.turn.thinking, e.turn.thinkMsgs, p.MessageID)
	return []chatAgentResponse{{Thinking: sep + p.Text}}, nil
}

// workerMessage notes that a worker began another message: its text
// continues its delegation's stream after a paragraph break.
func (e *seed004) workerMessage(ev Event) error {
	id, ok := e.workers[ev.SessionID]
	if !ok {
		return nil
	}
	if _, err := decodeAs[MessageStart](ev); err != nil {
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
func (e *seed004) toolUseEnd(ev Event) ([]chatAgentResponse, error) {
	p, err := decodeAs[ToolUseEnd](ev)
	if err != nil {
		return nil, err
	}
	info := e.open(p.ToolUseID, "")
	if info.done {
		return nil, nil
	}
	info.args = p.FinalInput
	return e.callPart(p.ToolUseID, info, "", info.details("")), nil
}

func (e *seed004) toolCall(ev Event) ([]chatAgentResponse, error) {
	p, err := decodeAs[ToolCalled](ev)
	if err != nil {
		return nil, err
	}
	info := e.open(p.ToolUseID, p.ToolName)
	if info.done {
		return nil, nil
	}
	info.args = p.Input
	return e.callPart(p.ToolUseID, info, p.StatusText, info.details(p.Summary)), nil
}

func (e *seed004) delegationCall(ev Event) ([]chatAgentResponse, error) {
	p, err := decodeAs[DelegateStarted](ev)
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
func (e *seed004) streamPart(ev Event) ([]chatAgentResponse, error) {
	p, err := decodeAs[ToolOutputDelta](ev)
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
func (e *seed004) toolResult(ev Event) ([]chatAgentResponse, error) {
	var id, name, status, summary string
	extra := map[string]any{}
	failed := false
	if ev.Type == TypeToolCompleted {
		p, err := decodeAs[ToolCompleted](ev)
		if err != nil {
			return nil, err
		}
		id, name, status, summary, failed = p.ToolUseID, p.ToolName, p.StatusText, p.Summary, p.IsError
	} else {
		p, err := decodeAs[ToolFailed](ev)
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
func (e *seed004) delegationResult(ev Event) ([]chatAgentResponse, error) {
	var id, mode string
	if ev.Type == TypeDelegateCompleted {
		p, err := decodeAs[DelegateCompleted](ev)
		if err != nil {
			return nil, err
		}
		id = p.ToolUseID
	} else {
		p, err := decodeAs[DelegateFailed](ev)
		if err != nil {
			return nil, err
		}
		id, mode = p.ToolUseID, p.FailureMode
	}
	info := e.open(id, delegateToolName)
	info.delegation, info.failureMode = true, mode
	return nil, nil
}

// endTurn closes the cards still open (calls the turn never ran), adds a
// failed turn's error as the answer's last paragraph and ends the answer.
func (e *seed004) endTurn(ev Event) ([]chatAgentResponse, error) {
	end := &s004End{Status: TurnStatusCompleted}
	errText := ""
	if ev.Type == TypeTurnCancelled {
		p, err := decodeAs[TurnCancelled](ev)
		if err != nil {
			return nil, err
		}
		end.Status, end.Reason = "cancelled", p.Reason
	} else {
		p, err := decodeAs[TurnCompleted](ev)
		if err != nil {
			return nil, err
		}
		if p.Status == TurnStatusFailed {
			end.Status, end.ErrorClass = TurnStatusFailed, p.ErrorClass
			errText = s004ErrorText(p.ErrorClass, p.Error)
		}
	}
	var out []chatAgentResponse
	for _, id := range e.turn.order {
		if info := e.calls[id]; !info.done {
			out = append(out, e.final(id, info, s004Error, s004NotRun(end.Status), info.details(""))...)
		}
	}
	last := chatAgentResponse{End: end}
	if errText != "" {
		if e.turn.text {
			errText = s004Paragraph + errText
		}
		last.Message, last.Response = errText, errText
	}
	e.resetTurn()
	return append(out, last), nil
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
func s004NotRun(turnStatus string) string {
	if turnStatus == "cancelled" {
		return "Cancelled"
	}
	return "Not run"
}

// s004ErrorText is a failed turn's error as the answer shows it (as
// Potpie's backend shows a failed model call: an italic paragraph).
func s004ErrorText(class, msg string) string {
	if class == "" {
		class = "error"
	}
	r := strings.NewReplacer("*", `\*`, "_", `\_`)
	return fmt.Sprintf("*The turn failed (%s): %s*", class, r.Replace(strings.TrimSpace(msg)))
}

// s004CoalesceLimit bounds the text and stream parts one coalesced resume
// frame gathers.
const s004CoalesceLimit = 256 << 10

// coalesce004 merges a replayed turn's frames into as few as keep what a
// client shows: text and thinking gather until a tool part follows, tool
// parts gather until text follows (a client applies a frame's text before
// its parts), consecutive stream parts of one call join.
func coalesce004(rs []chatAgentResponse) []chatAgentResponse {
	var out []chatAgentResponse
	var cur *chatAgentResponse
	size := 0
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur, size = nil, 0
		}
	}
	for _, r := range rs {
		if r.End != nil {
			flush()
			out = append(out, r)
			continue
		}
		hasText := r.Message != "" || r.Thinking != ""
		if cur != nil && ((hasText && len(cur.ToolCalls) > 0) || size > s004CoalesceLimit) {
			flush()
		}
		if cur == nil {
			cur = &chatAgentResponse{ToolCalls: []toolCallResponse{}, Citations: []string{}}
		}
		cur.Message += r.Message
		cur.Response += r.Response
		cur.Thinking += r.Thinking
		size += len(r.Message) + len(r.Thinking)
		for _, tc := range r.ToolCalls {
			n := len(cur.ToolCalls)
			if n > 0 && tc.StreamPart != nil && !tc.IsComplete {
				prev := &cur.ToolCalls[n-1]
				if prev.CallID == tc.CallID && prev.EventType == tc.EventType && prev.StreamPart != nil && !prev.IsComplete {
					joined := *prev.StreamPart + *tc.StreamPart
					prev.StreamPart = &joined
					size += len(*tc.StreamPart)
					continue
				}
			}
			cur.ToolCalls = append(cur.ToolCalls, tc)
			if tc.StreamPart != nil {
				size += len(*tc.StreamPart)
			}
		}
	}
	flush()
	return out
}
