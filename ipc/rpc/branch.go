package rpc

import (
	"context"
	"encoding/json"

	"agenthub/ipc"
)

// Methods of branches (docs/branching.md); each takes {session_id,
// message_id} (editMessage also content).
const (
	// MethodRegenerate answers a user message again → SubmitResult.
	MethodRegenerate = "regenerate"
	// MethodEditMessage sends a changed copy of a user message → SubmitResult.
	MethodEditMessage = "editMessage"
	// MethodRetryTurn runs a user message's turn again as a new version of it → SubmitResult.
	MethodRetryTurn = "retryTurn"
	// MethodSwitchBranch moves the current path → the session record.
	MethodSwitchBranch = "switchBranch"
	// MethodForkSession copies the path up to a message into a new session → its record.
	MethodForkSession = "forkSession"
)

type branchParams struct {
	sessionParams
	MessageID string  `json:"message_id"`
	Content   *string `json:"content"`
}

// branch decodes the params and finds the hub's Brancher.
func (h hubMethods) branch(raw json.RawMessage) (branchParams, string, ipc.Brancher, error) {
	p, id, err := decodeSession[branchParams](raw)
	if err != nil {
		return p, "", nil, err
	}
	if p.MessageID == "" {
		return p, "", nil, Errorf(CodeInvalidParams, "message_id is required")
	}
	b, ok := h.hub.(ipc.Brancher)
	if !ok {
		return p, "", nil, Errorf(CodeInvalidParams, "this hub cannot branch a session")
	}
	return p, id, b, nil
}

func (h hubMethods) editMessage(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, b, err := h.branch(raw)
	if err != nil {
		return nil, err
	}
	if p.Content == nil {
		return nil, Errorf(CodeInvalidParams, "content is required")
	}
	return b.EditAndResend(ctx, id, p.MessageID, *p.Content)
}

// onMessage is a branch method that takes {session_id, message_id} and
// answers with call's result (Regenerate, RetryTurn, SwitchBranch,
// ForkSession).
func onMessage[R any](h hubMethods, call func(ipc.Brancher, context.Context, string, string) (R, error)) Handler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		p, id, b, err := h.branch(raw)
		if err != nil {
			return nil, err
		}
		return call(b, ctx, id, p.MessageID)
	}
}
