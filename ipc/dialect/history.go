package dialect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"agenthub/ipc"
	"agenthub/store"
)

// History converts a page of session sessionID's current path
// (oldest first; more says older messages exist) to the history shape of
// dialect, as the seed client that dialect follows loads it
// (GET /sessions/{id}/messages?dialect=…, docs/protocol.md §7): seed002
// rows, seed004 Potpie messages (a delegation's worker tool calls read
// from the worker's session). Canonical and seed000 keep the canonical
// shape and are not converted here: an error names the dialect.
func History(r ipc.StoreReader, dialect, sessionID string, msgs []store.Message, more bool) (any, error) {
	switch dialect {
	case Seed002:
		return seed002Rows(msgs), nil
	case Seed004:
		var out []s004Message
		err := r.Store.View(func(tx ipc.StoreView) error {
			var err error
			out, err = seed004History(tx, sessionID, msgs, more)
			return err
		})
		return out, err
	}
	return nil, fmt.Errorf("ipc: dialect %.64q has no history shape of its own (want %s or %s)", dialect, Seed002, Seed004)
}

// s004Message is a message of seed004's history: the shape potpie-ui's
// loadMessages reads — content a string, type HUMAN or AI_GENERATED, the
// answer's tool calls and thinking. A turn's answer is one message, as
// its stream is one answer.
type s004Message struct {
	ID             string             `json:"id"`
	ConversationID string             `json:"conversation_id"`
	Content        string             `json:"content"`
	Type           string             `json:"type"`
	CreatedAt      string             `json:"created_at"`
	Citations      []string           `json:"citations"`
	HasAttachments bool               `json:"has_attachments"`
	Attachments    []any              `json:"attachments"`
	ToolCalls      []toolCallResponse `json:"tool_calls"` // null on a HUMAN message
	Thinking       *string            `json:"thinking"`
}

// s004Answer gathers one turn's answer from its stored messages.
type s004Answer struct {
	id, first     string // the turn's id, its first assistant message's
	turnStatus    string
	turnErr       *store.TurnError
	at            string
	texts, thinks []string
	calls         []store.ContentBlock
	results       map[string]store.Message
}

// seed004History converts msgs (see History). The answer of a
// running turn is left out: a client resumes it (seed004's Resume replays
// it). A page that starts inside a turn whose user message is older drops
// that turn's remains.
func seed004History(tx ipc.StoreView, sid string, msgs []store.Message, more bool) ([]s004Message, error) {
	if more {
		for len(msgs) > 0 && msgs[0].Role != store.RoleUser {
			msgs = msgs[1:]
		}
	}
	w := &s004Workers{tx: tx, used: map[string]bool{}}
	out := []s004Message{}
	var cur *s004Answer
	flush := func() error {
		if cur == nil {
			return nil
		}
		m, ok, err := cur.message(w, sid)
		if ok {
			out = append(out, m)
		}
		cur = nil
		return err
	}
	for _, m := range msgs {
		switch m.Role {
		case store.RoleUser:
			if err := flush(); err != nil {
				return nil, err
			}
			out = append(out, s004Message{ID: m.ID, ConversationID: sid, Content: store.TextOf(m.Content), Type: "HUMAN",
				CreatedAt: s002Time(m.CreatedAt), Citations: []string{}, Attachments: []any{}})
			cur = &s004Answer{at: s002Time(m.CreatedAt), results: map[string]store.Message{}}
			if m.Turn != nil {
				cur.id, cur.turnStatus, cur.turnErr = m.Turn.ID, m.Turn.Status, m.Turn.Error
			}
		case store.RoleAssistant:
			if cur == nil {
				cur = &s004Answer{results: map[string]store.Message{}}
			}
			cur.add(m)
		case store.RoleToolResult:
			if cur != nil {
				cur.results[m.ToolCallID] = m
			}
		}
	}
	return out, flush()
}

// add gathers an assistant message: its text and thinking (each message a
// paragraph, as the live answer separates them) and its tool calls.
func (a *s004Answer) add(m store.Message) {
	if a.first == "" {
		a.first = m.ID
	}
	a.at = s002Time(m.CreatedAt)
	if t := s004MessageText(m); t != "" {
		a.texts = append(a.texts, t)
	}
	var think strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case store.BlockThinking:
			think.WriteString(b.Thinking)
		case store.BlockToolCall:
			a.calls = append(a.calls, b)
		}
	}
	if think.Len() > 0 {
		a.thinks = append(a.thinks, think.String())
	}
}

// message is the answer as one AI_GENERATED message; ok is false for a
// turn still running or one that showed nothing.
func (a *s004Answer) message(w *s004Workers, sid string) (s004Message, bool, error) {
	switch a.turnStatus {
	case store.TurnRunning, "queued":
		return s004Message{}, false, nil
	}
	texts := slices.Clone(a.texts)
	if a.turnStatus == store.TurnFailed && a.turnErr != nil {
		texts = append(texts, s004ErrorText(a.turnErr.Class, a.turnErr.Message))
	}
	calls := []toolCallResponse{}
	for _, b := range a.calls {
		parts, err := w.parts(sid, b, a.results, a.turnStatus, 0)
		if err != nil {
			return s004Message{}, false, err
		}
		calls = append(calls, parts...)
	}
	if len(texts) == 0 && len(a.thinks) == 0 && len(calls) == 0 {
		return s004Message{}, false, nil
	}
	id := a.first
	if id == "" {
		id = a.id // a turn that failed before any message: its id
	}
	m := s004Message{ID: id, ConversationID: sid, Content: strings.Join(texts, s004Paragraph), Type: "AI_GENERATED",
		CreatedAt: a.at, Citations: []string{}, Attachments: []any{}, ToolCalls: calls}
	if len(a.thinks) > 0 {
		t := strings.Join(a.thinks, s004Paragraph)
		m.Thinking = &t
	}
	return m, true, nil
}

// s004MaxDepth bounds how deep worker sessions are read for a history.
const s004MaxDepth = 8

// s004Workers finds the worker session of each delegate call in a
// history: its parent's children in creation order, the first not yet
// used whose first message is the call's task (a delegation refused before
// it started has none).
type s004Workers struct {
	tx       ipc.StoreView
	sessions []store.Session // oldest first, read once
	used     map[string]bool
}

// parts are the history parts of tool call b of session sid: its final
// part (from its tool result; "error" with a not-run status when it has
// none), then for a delegation its worker's calls.
func (w *s004Workers) parts(sid string, b store.ContentBlock, results map[string]store.Message, turnStatus string, depth int) ([]toolCallResponse, error) {
	info := &callInfo{name: b.Name, delegation: b.Name == delegateToolName, args: b.Arguments}
	if len(info.args) == 0 {
		info.args = json.RawMessage(`{}`)
	}
	r, ok := results[b.ID]
	status, summary, failed := s004NotRun(turnStatus), "", true
	if ok {
		status, summary, failed = r.StatusText, r.Summary, r.IsError
	}
	d := info.details(summary)
	d["is_error"] = failed
	if info.delegation {
		d["success"] = !failed
	}
	out := []toolCallResponse{{CallID: b.ID, EventType: s004FinalType(info.delegation, failed), ToolName: s004ToolName(b.Name),
		ToolResponse: status, ToolCallDetails: d, IsComplete: true}}
	if !info.delegation || depth >= s004MaxDepth || w.tx == nil {
		return out, nil
	}
	var task struct {
		Task string `json:"task"`
	}
	_ = json.Unmarshal(b.Arguments, &task)
	wid, err := w.find(sid, task.Task)
	if err != nil || wid == "" {
		return out, err
	}
	ms, _, err := w.tx.Messages(wid, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("read worker %s: %w", wid, err)
	}
	wres := map[string]store.Message{}
	for _, m := range ms {
		if m.Role == store.RoleToolResult {
			wres[m.ToolCallID] = m
		}
	}
	for _, m := range ms {
		if m.Role != store.RoleAssistant {
			continue
		}
		for _, wb := range m.Content {
			if wb.Type != store.BlockToolCall {
				continue
			}
			more, err := w.parts(wid, wb, wres, turnStatus, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
	}
	return out, nil
}

// find returns the worker session of a delegation of parent with task
// ("" when none matches).
func (w *s004Workers) find(parent, task string) (string, error) {
	if w.sessions == nil {
		ss, err := w.tx.Sessions()
		if err != nil {
			return "", fmt.Errorf("read sessions: %w", err)
		}
		w.sessions = slices.Clone(ss)
		slices.Reverse(w.sessions)
	}
	for _, s := range w.sessions {
		if s.ParentSessionID != parent || w.used[s.ID] {
			continue
		}
		first, _, err := w.tx.Messages(s.ID, 0, 1)
		if err != nil {
			return "", fmt.Errorf("read worker %s: %w", s.ID, err)
		}
		if len(first) == 1 && strings.HasPrefix(store.TextOf(first[0].Content), task) {
			w.used[s.ID] = true
			return s.ID, nil
		}
	}
	return "", nil
}

// Snapshot gives seed004's history shape (see History) without
// the workers' tool calls, which need the store (SnapshotIn).
func (e *seed004) Snapshot(frame []byte) ([]byte, error) { return e.SnapshotIn(nil, frame) }

// SnapshotIn implements ipc.StoreSnapshotEncoder: seed004's history shape
// of the snapshot frame, its delegations' tool calls read in tx.
func (e *seed004) SnapshotIn(tx ipc.StoreView, frame []byte) ([]byte, error) {
	var convErr error
	b, err := dialectSnapshot(frame, func(ms []store.Message) []s004Message {
		out, err := seed004History(tx, e.session, ms, true)
		convErr = err
		return out
	})
	if err == nil && convErr != nil {
		err = fmt.Errorf("ipc: seed004 snapshot: %w", convErr)
	}
	return b, err
}
