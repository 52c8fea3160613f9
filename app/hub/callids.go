package hub

import (
	"fmt"

	"agenthub/app/agent"
	"agenthub/store"
)

// callIDs is the namer of s's tool_use_ids (agent.CallIDs): it knows every
// id the session's stored messages hold (all branches), read the first
// time one of its calls is named. A worker session's calls always get
// minted ids: its approvals are shown in every ancestor too, beside the
// ancestors' own calls.
func (h *Hub) callIDs(s *session) *agent.CallIDs {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.callIDs == nil {
		id, worker := s.rec.ID, s.rec.ParentSessionID != ""
		s.callIDs = agent.NewCallIDs(func() ([]string, error) { return h.storedCallIDs(id) }, worker)
	}
	return s.callIDs
}

// storedCallIDs lists the tool call ids of a session's stored messages.
func (h *Hub) storedCallIDs(sessionID string) ([]string, error) {
	msgs, _, err := h.db.Messages(sessionID, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("reading the tool call ids of session %s: %w", sessionID, err)
	}
	var ids []string
	for _, m := range msgs {
		if m.ToolCallID != "" {
			ids = append(ids, m.ToolCallID)
		}
		for _, b := range m.Content {
			if b.Type == store.BlockToolCall && b.ID != "" {
				ids = append(ids, b.ID)
			}
		}
	}
	return ids, nil
}
