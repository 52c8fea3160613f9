package rpc

import (
	"context"
	"encoding/json"

	"agenthub/ipc"
)

// Methods of a turn's file changes (docs/undo.md).
const (
	// MethodGetTurnChanges lists the files a turn changed, with their
	// content before and after: {session_id, turn_id} → ipc.TurnChanges.
	MethodGetTurnChanges = "getTurnChanges"
	// MethodUndoTurn restores them: {session_id, turn_id} → ipc.TurnUndone.
	MethodUndoTurn = "undoTurn"
)

type turnParams struct {
	sessionParams
	TurnID  string `json:"turn_id"`
	TurnID2 string `json:"turnId"`
}

func (p turnParams) turn() (string, error) {
	if p.TurnID != "" {
		return p.TurnID, nil
	}
	if p.TurnID2 != "" {
		return p.TurnID2, nil
	}
	return "", Errorf(CodeInvalidParams, "turn_id is required")
}

// turnCall decodes {session_id, turn_id} and calls fn on the hub's TurnUndoer.
func turnCall[T any](h hubMethods, raw json.RawMessage, fn func(ipc.TurnUndoer, string, string) (T, error)) (any, error) {
	p, id, err := decodeSession[turnParams](raw)
	if err != nil {
		return nil, err
	}
	turn, err := p.turn()
	if err != nil {
		return nil, err
	}
	u, ok := h.hub.(ipc.TurnUndoer)
	if !ok {
		return nil, Errorf(CodeInvalidParams, "this hub keeps no file checkpoints")
	}
	return fn(u, id, turn)
}

func (h hubMethods) getTurnChanges(ctx context.Context, raw json.RawMessage) (any, error) {
	return turnCall(h, raw, func(u ipc.TurnUndoer, id, turn string) (ipc.TurnChanges, error) { return u.TurnChanges(ctx, id, turn) })
}

func (h hubMethods) undoTurn(ctx context.Context, raw json.RawMessage) (any, error) {
	return turnCall(h, raw, func(u ipc.TurnUndoer, id, turn string) (ipc.TurnUndone, error) { return u.UndoTurn(ctx, id, turn) })
}
