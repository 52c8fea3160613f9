package hubtest

import (
	"context"
	"fmt"

	"agenthub/ipc"
	"agenthub/store"
)

// Await registers a tool call of a session as waiting for approval, as the
// product hub does when a call asks; ApproveTool then accepts one answer.
func (h *Hub) Await(sessionID, toolUseID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiting == nil {
		h.waiting = map[string]string{}
	}
	h.waiting[toolUseID] = sessionID
}

// Approvals returns the answers received, in order.
func (h *Hub) Approvals() []ipc.ApproveToolRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ipc.ApproveToolRequest(nil), h.answers...)
}

// ApproveTool implements ipc.HubAPI: one answer per awaited call.
func (h *Hub) ApproveTool(_ context.Context, req ipc.ApproveToolRequest) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sid, ok := h.waiting[req.ToolUseID]; !ok || sid != req.SessionID {
		return fmt.Errorf("no tool call %q of session %q is waiting: %w", req.ToolUseID, req.SessionID, ipc.ErrInvalidInput)
	}
	delete(h.waiting, req.ToolUseID)
	h.answers = append(h.answers, req)
	return nil
}

// SetApprovalMode implements ipc.HubAPI.
func (h *Hub) SetApprovalMode(ctx context.Context, id, mode string) (store.Session, error) {
	switch mode {
	case "ask", "auto-edits", "auto-all":
	default:
		return store.Session{}, fmt.Errorf("mode %q: %w", mode, ipc.ErrInvalidInput)
	}
	return h.updateSession(ctx, id, func(s *store.Session) { s.ApprovalMode = mode })
}

// PermissionRules implements ipc.HubAPI.
func (h *Hub) PermissionRules(_ context.Context, workspace string) ([]ipc.PermissionRule, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ipc.PermissionRule(nil), h.rules[workspace]...), nil
}

// SetPermissionRules implements ipc.HubAPI (no validation beyond the action).
func (h *Hub) SetPermissionRules(_ context.Context, workspace string, rules []ipc.PermissionRule) ([]ipc.PermissionRule, error) {
	for _, r := range rules {
		if r.Action != "allow" && r.Action != "ask" && r.Action != "deny" {
			return nil, fmt.Errorf("action %q: %w", r.Action, ipc.ErrInvalidInput)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rules == nil {
		h.rules = map[string][]ipc.PermissionRule{}
	}
	h.rules[workspace] = append([]ipc.PermissionRule(nil), rules...)
	return rules, nil
}

// SetSandboxOptions implements ipc.HubAPI.
func (h *Hub) SetSandboxOptions(ctx context.Context, id string, readWorkspaceOnly, noNetwork bool) (store.Session, error) {
	return h.updateSession(ctx, id, func(s *store.Session) {
		s.SandboxReadWorkspaceOnly, s.SandboxNoNetwork = readWorkspaceOnly, noNetwork
	})
}

// PendingApprovals implements ipc.HubAPI: the awaited calls of the session.
func (h *Hub) PendingApprovals(_ context.Context, sessionID string) ([]ipc.ToolApprovalRequested, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []ipc.ToolApprovalRequested{}
	for id, sid := range h.waiting {
		if sid == sessionID {
			out = append(out, ipc.ToolApprovalRequested{ToolUseID: id})
		}
	}
	return out, nil
}
