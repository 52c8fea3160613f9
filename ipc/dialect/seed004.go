package dialect

import (
	"fmt"
	"strings"

	"agenthub/ipc"
	"agenthub/store"
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

// IncludesWorkerSessions implements WorkerSessionsEncoder: a seed004
// answer shows a worker's tool calls as cards of their own (as Potpie's
// stream carries a subagent's), so its subscription includes the worker
// sessions.
func (e *seed004) IncludesWorkerSessions() bool { return true }

// s004Turn is what the running turn has shown so far.
type s004Turn struct {
	text, thinking bool                // the answer has text / thinking
	msgs           map[string]*s004Msg // the turn's messages
	order          []string            // call ids in the order their cards opened
}

// s004Msg is what one message of the answer showed: its text and its
// thinking.
type s004Msg struct{ text, thinking s004Stream }

// s004Stream is one of a message's appended streams. Potpie's client only
// appends, so after a message.reset the retry's chunks are held back
// while they repeat what the stream already shows (replay), then only
// what goes beyond it is sent; a retry that says something else is sent
// whole, as a new paragraph. Appends are amortised O(1) and a replay
// compares each chunk once, so a long message costs linear time.
type s004Stream struct {
	started bool            // the message showed some of this stream
	shown   strings.Builder // the stream's text the client ends with
	replay  bool            // after a reset: the retry has not caught up with shown
	match   int             // during a replay: the retry's text so far is shown[:match]
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
	e := &seed004{session: session, calls: map[string]*callInfo{}, names: map[string]string{},
		workers: map[string]string{}}
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

func (e *seed004) Encode(ev ipc.Event) ([][]byte, error) {
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
			b, err = e.shared.frame(Seed004, ev.ID, mk)
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
func (e *seed004) encode(ev ipc.Event) (rs []chatAgentResponse, shareable bool, err error) {
	own := ev.SessionID == e.session
	switch ev.Type {
	case ipc.TypeTurnStarted:
		if own {
			e.resetTurn()
		}
	case ipc.TypeTextDelta:
		if own {
			return e.text(ev)
		}
	case ipc.TypeThinkingDelta:
		if own {
			rs, err = e.thinking(ev)
		}
	case ipc.TypeMessageStart:
		if !own {
			err = e.workerMessage(ev)
		}
	case ipc.TypeMessageReset:
		if own {
			rs, err = e.reset(ev)
		}
	case ipc.TypeMessageComplete:
		if own {
			rs, err = e.complete(ev)
		}
	case ipc.TypeToolUseStart:
		var p ipc.ToolUseStart
		if p, err = ipc.PayloadAs[ipc.ToolUseStart](ev); err == nil {
			e.names[p.ToolUseID] = p.ToolName
		}
	case ipc.TypeToolUseEnd:
		rs, err = e.toolUseEnd(ev)
	case ipc.TypeToolCalled:
		rs, err = e.toolCall(ev)
	case ipc.TypeToolOutputDelta:
		rs, err = e.streamPart(ev)
	case ipc.TypeToolCompleted, ipc.TypeToolFailed:
		rs, err = e.toolResult(ev)
	case ipc.TypeDelegateStarted:
		rs, err = e.delegationCall(ev)
	case ipc.TypeDelegateCompleted, ipc.TypeDelegateFailed:
		rs, err = e.delegationResult(ev)
	case ipc.TypeTurnCompleted, ipc.TypeTurnCancelled:
		if own {
			rs, err = e.endTurn(ev)
		}
	}
	return rs, false, err
}

func (e *seed004) resetTurn() {
	e.turn = s004Turn{msgs: map[string]*s004Msg{}}
	clear(e.calls)
	clear(e.names)
	clear(e.workers)
}

// msg is message id's state in the running turn.
func (e *seed004) msg(id string) *s004Msg {
	m := e.turn.msgs[id]
	if m == nil {
		m = &s004Msg{}
		e.turn.msgs[id] = m
	}
	return m
}

// chunk is what the client gets of a chunk of a message's stream st (the
// answer's stream has shown something when *turnShown): the first chunk
// of a message after an earlier one's is a new paragraph; during a replay
// see s004Stream. shareable reports the result depends on the event alone.
func (st *s004Stream) chunk(text string, turnShown *bool) (out string, shareable bool) {
	if st.replay {
		return st.replayChunk(text), false
	}
	st.shown.WriteString(text)
	if st.started {
		return text, true
	}
	st.started = true
	if *turnShown {
		return s004Paragraph + text, false
	}
	*turnShown = true
	return text, false
}

// replayChunk is a chunk of the retry during a replay.
func (st *s004Stream) replayChunk(text string) string {
	shown := st.shown.String()
	rest := shown[st.match:]
	switch {
	case strings.HasPrefix(rest, text): // the retry repeats what shows: nothing new yet
		st.match += len(text)
		return ""
	case strings.HasPrefix(text, rest): // it goes beyond what shows: send the excess
		out := text[len(rest):]
		st.shown.WriteString(out)
		st.replay = false
		return out
	}
	// It says something else: what shows cannot be replaced, the retry
	// follows it whole as a new paragraph (and is what the stream ends with).
	attempt := shown[:st.match] + text
	st.shown.Reset()
	st.shown.WriteString(attempt)
	st.replay = false
	return s004Paragraph + attempt
}

// reset starts a replay of stream st (message.reset): the retry rebuilds
// it from its start.
func (st *s004Stream) reset() {
	st.match = 0
	st.replay = st.shown.Len() > 0
}

func (e *seed004) text(ev ipc.Event) ([]chatAgentResponse, bool, error) {
	p, err := ipc.PayloadAs[ipc.TextDelta](ev)
	if err != nil || p.Text == "" {
		return nil, false, err
	}
	t, shareable := e.msg(p.MessageID).text.chunk(p.Text, &e.turn.text)
	if t == "" {
		return nil, false, nil
	}
	return []chatAgentResponse{{Message: t, Response: t}}, shareable, nil
}

func (e *seed004) thinking(ev ipc.Event) ([]chatAgentResponse, error) {
	p, err := ipc.PayloadAs[ipc.ThinkingDelta](ev)
	if err != nil || p.Text == "" {
		return nil, err
	}
	if t, _ := e.msg(p.MessageID).thinking.chunk(p.Text, &e.turn.thinking); t != "" {
		return []chatAgentResponse{{Thinking: t}}, nil
	}
	return nil, nil
}

// reset is message.reset: the message's text and thinking replay (see
// s004Stream); the cards of calls the dropped attempt wrote and that never
// ran are closed.
func (e *seed004) reset(ev ipc.Event) ([]chatAgentResponse, error) {
	p, err := ipc.PayloadAs[ipc.MessageReset](ev)
	if err != nil {
		return nil, err
	}
	m := e.msg(p.MessageID)
	m.text.reset()
	m.thinking.reset()
	var out []chatAgentResponse
	for _, id := range e.turn.order {
		if info := e.calls[id]; info.msg == p.MessageID && !info.called && !info.done {
			out = append(out, e.final(id, info, s004Error, s004Dropped, info.details(""))...)
		}
	}
	return out, nil
}

// s004Dropped is the status of a call whose message's attempt broke.
const s004Dropped = "Not run: the model's stream broke and was retried"

// complete is message.complete: a retried call's message ends with a note
// saying so (s004RetriedNote), as its history does.
func (e *seed004) complete(ev ipc.Event) ([]chatAgentResponse, error) {
	p, err := ipc.PayloadAs[ipc.MessageComplete](ev)
	if err != nil || p.Retries == nil {
		return nil, err
	}
	st := &e.msg(p.MessageID).text
	st.replay = false
	note := s004RetriedNote(p.Retries)
	if st.started {
		note = s004Paragraph + note
		st.shown.WriteString(note)
	} else {
		note, _ = st.chunk(note, &e.turn.text)
	}
	return []chatAgentResponse{{Message: note, Response: note}}, nil
}

// s004RetriedNote is the last paragraph of a retried call's message.
func s004RetriedNote(r *store.Retries) string {
	return fmt.Sprintf("*(retried %d× after %s)*", r.Count, r.ErrorClass)
}

// s004MessageText is a stored assistant message's text as seed004 shows
// it: its text, and the note of a retried call.
func s004MessageText(m store.Message) string {
	t := store.TextOf(m.Content)
	if m.Retries == nil {
		return t
	}
	if t != "" {
		t += s004Paragraph
	}
	return t + s004RetriedNote(m.Retries)
}

// endTurn closes the cards still open (calls the turn never ran), adds a
// failed turn's error as the answer's last paragraph and ends the answer.
func (e *seed004) endTurn(ev ipc.Event) ([]chatAgentResponse, error) {
	end := &s004End{Status: ipc.TurnStatusCompleted}
	errText := ""
	if ev.Type == ipc.TypeTurnCancelled {
		p, err := ipc.PayloadAs[ipc.TurnCancelled](ev)
		if err != nil {
			return nil, err
		}
		end.Status, end.Reason = "cancelled", p.Reason
	} else {
		p, err := ipc.PayloadAs[ipc.TurnCompleted](ev)
		if err != nil {
			return nil, err
		}
		if p.Status == ipc.TurnStatusFailed {
			end.Status, end.ErrorClass = ipc.TurnStatusFailed, p.ErrorClass
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

// s004ErrorText is a failed turn's error as the answer shows it (as
// Potpie's backend shows a failed model call: an italic paragraph).
func s004ErrorText(class, msg string) string {
	if class == "" {
		class = "error"
	}
	r := strings.NewReplacer("*", `\*`, "_", `\_`)
	return fmt.Sprintf("*The turn failed (%s): %s*", class, r.Replace(strings.TrimSpace(msg)))
}
