package ipc

import (
	"encoding/json"
	"fmt"
	"slices"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// resumeAt finds what was in flight in session sid just after event at
// (zero: after the newest event): the running turn, the assistant message
// being streamed with its content so far, and the tool calls started and
// not finished. It walks the session's log backwards from at to the start
// of the turn running then (at most maxPartialScan events). Events whose
// payload does not decode are skipped.
func resumeAt(tx StoreView, sid string, at ulid.ULID) (ResumePoint, error) {
	rp := ResumePoint{SessionID: sid}
	before := ulid.ULID{}
	if at != (ulid.ULID{}) {
		before = nextULID(at)
		rp.EventID = at.String()
	}
	var (
		msgID     string
		msgRecs   []store.EventRecord // streaming events, newest first
		closedMsg = map[string]bool{}
		closed    = map[string]bool{} // tool calls finished
		delegated = map[string]bool{}
		streamed  = map[string]bool{}
		tools     []OpenTool // newest first
		scanned   int
	)
	err := tx.EventsBefore(sid, before, func(r store.EventRecord) error {
		if scanned++; scanned > maxPartialScan {
			return store.ErrStop
		}
		switch r.Type {
		case TypeTurnCompleted, TypeTurnCancelled:
			return store.ErrStop // nothing of an ended turn is open
		case TypeTurnStarted:
			env, err := decodeEnvelope(r)
			if err == nil && env.TurnID != nil {
				rp.TurnID = *env.TurnID
			}
			rp.turnStart = r.ID
			return store.ErrStop
		case TypeMessageComplete:
			closedMsg[r.Group] = true
		case TypeMessageStart:
			if msgID == "" && !closedMsg[r.Group] {
				msgID = r.Group
				msgRecs = append(msgRecs, r)
			}
		case TypeToolCompleted, TypeToolFailed:
			closed[r.Closes] = true // its tool_use_id, without decoding a possibly large output
		case TypeDelegateCompleted, TypeDelegateFailed:
			if id := toolUseID(r); id != "" {
				closed[id] = true
			}
		case TypeDelegateStarted:
			delegated[toolUseID(r)] = true
		case TypeToolOutputDelta:
			streamed[r.Group] = true
		case TypeLLMCallFailed:
			if rp.FinalFailure == nil {
				env, err := decodeEnvelope(r)
				if err != nil {
					return nil
				}
				if p, err := decodePayload[LLMCallFailed](r.Type, env.Payload); err == nil && !p.WillRetry &&
					p.ErrorClass != ErrClassCancelled && p.Purpose == "" {
					rp.FinalFailure = &p
				}
			}
		case TypeToolCalled:
			env, err := decodeEnvelope(r)
			if err != nil {
				return nil
			}
			p, err := decodePayload[ToolCalled](r.Type, env.Payload)
			if err != nil || closed[p.ToolUseID] {
				return nil
			}
			tools = append(tools, OpenTool{ID: p.ToolUseID, Name: p.ToolName, MessageID: p.MessageID,
				Delegation: delegated[p.ToolUseID], Streamed: streamed[p.ToolUseID]})
		}
		if IsMessageDelta(r.Type) && !closedMsg[r.Group] {
			msgRecs = append(msgRecs, r)
		}
		return nil
	})
	if err != nil {
		return rp, fmt.Errorf("ipc: find what was in flight in %s: %w", sid, err)
	}
	slices.Reverse(tools)
	rp.Tools = tools
	if msgID != "" {
		m := rebuildMessage(sid, msgID, msgRecs)
		rp.Message = &m
		if rp.TurnID == "" {
			rp.TurnID = m.TurnID
		}
	}
	return rp, nil
}

// rebuildMessage rebuilds message id from its streaming records (newest
// first, as a backward walk collects them; records of other messages are
// ignored).
func rebuildMessage(sid, id string, recs []store.EventRecord) store.Message {
	m := store.Message{ID: id, SessionID: sid, Role: store.RoleAssistant, Status: StatusStreaming, Content: []store.ContentBlock{}}
	content := NewContentBuilder(nil)
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Group != id {
			continue
		}
		env, err := decodeEnvelope(r)
		if err != nil {
			continue
		}
		if r.Type == TypeMessageStart {
			if p, err := decodePayload[MessageStart](r.Type, env.Payload); err == nil {
				m.Model = p.Model
			}
			m.CreatedAt = env.TS.Time
			if env.TurnID != nil {
				m.TurnID = *env.TurnID
			}
			continue
		}
		_ = content.Apply(r.Type, env.Payload) // a bad delta is skipped, the rest still shows
	}
	m.Content, m.Retries = content.Content(), content.retries
	return m
}

// IsMessageDelta reports the streaming types that build a message's content
// (message.reset empties it).
func IsMessageDelta(typ string) bool {
	switch typ {
	case TypeMessageReset, TypeTextDelta, TypeThinkingDelta, TypeToolUseStart, TypeToolUseInputDelta, TypeToolUseEnd:
		return true
	}
	return false
}

// recordEnvelope is the part of a stored event the resume walk reads.
type recordEnvelope struct {
	TurnID  *string         `json:"turn_id"`
	TS      Timestamp       `json:"ts"`
	Payload json.RawMessage `json:"payload"`
}

func decodeEnvelope(r store.EventRecord) (recordEnvelope, error) {
	var env recordEnvelope
	if err := json.Unmarshal(r.Data, &env); err != nil {
		return env, fmt.Errorf("decode event %s: %w", r.ID, err)
	}
	return env, nil
}

// toolUseID reads payload.tool_use_id of a stored tool event ("" if none).
func toolUseID(r store.EventRecord) string {
	env, err := decodeEnvelope(r)
	if err != nil {
		return ""
	}
	var p struct {
		ToolUseID string `json:"tool_use_id"`
	}
	_ = json.Unmarshal(env.Payload, &p)
	return p.ToolUseID
}

// prevULID is the greatest ULID smaller than u (u-1 as a 128-bit number;
// u must not be zero).
func prevULID(u ulid.ULID) ulid.ULID {
	for i := len(u) - 1; i >= 0; i-- {
		u[i]--
		if u[i] != 0xff {
			break
		}
	}
	return u
}

// nextULID is the smallest ULID greater than u (u+1 as a 128-bit number).
func nextULID(u ulid.ULID) ulid.ULID {
	for i := len(u) - 1; i >= 0; i-- {
		u[i]++
		if u[i] != 0 {
			break
		}
	}
	return u
}
