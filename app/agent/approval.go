package agent

import (
	"context"
	"encoding/json"

	"agenthub/store"
)

// Approver decides whether a tool call may run (docs/permissions.md). It
// may block until the user answers. It returns a nil error to run the call;
// a *Denied to refuse it — its Message becomes the call's result, so the
// model learns why; or, when ctx ended while it waited, ctx's error (the
// call is then cancelled like any call that never ran, seed 001 §6.2.3).
// The answer, when the call asked the user, is stored on the call's result
// (nil when it was decided without asking).
type Approver interface {
	Approve(ctx context.Context, call ApprovalCall) (*store.ToolApproval, error)
}

// ApprovalCall is the tool call being decided.
type ApprovalCall struct {
	ToolUseID  string
	ToolName   string
	Input      json.RawMessage
	StatusText string // the tool card's status line
	Summary    string // the tool card's Markdown (the command, the edit)
}

// Denied is an Approver's refusal.
type Denied struct{ Message string }

// Error implements error.
func (d *Denied) Error() string { return d.Message }
