package ipc

import (
	"context"
	"encoding/json"
)

// Approval decisions (tool.approval_resolved decision, approveTool decision).
const (
	DecisionOnce      = "once"
	DecisionAlways    = "always"
	DecisionDeny      = "deny"
	DecisionCancelled = "cancelled" // only in tool.approval_resolved
)

// Who resolved an approval (tool.approval_resolved by) besides a client's
// transport name ("window", "dashboard").
const (
	ResolvedByCancel  = "cancel"  // the turn was cancelled while it waited
	ResolvedByRestart = "restart" // the app stopped while it waited
)

// Risk levels of an approval request.
const (
	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// ToolApprovalRequested is the payload of tool.approval_requested: a tool
// call waits for the user's answer. AlwaysRule is the rule an "always"
// answer stores (the prompt shows it and may edit it); nil when no rule
// covers the call safely, and then "always" is not available.
// WorkerSessionID is set on the copy emitted in an ancestor session of the
// delegated worker that made the call.
type ToolApprovalRequested struct {
	ToolUseID       string          `json:"tool_use_id"`
	ToolName        string          `json:"tool_name"`
	Input           json.RawMessage `json:"input"`
	StatusText      string          `json:"status_text"`
	Risk            string          `json:"risk"`
	Summary         string          `json:"summary"`
	Reason          string          `json:"reason"`
	AlwaysRule      *PermissionRule `json:"always_rule,omitempty"`
	WorkerSessionID string          `json:"worker_session_id,omitempty"`
	// GitWritesOffer: a sandboxed bash call in a git repository whose
	// .git is read-only; the approval may grant this one call git writes
	// (ApproveToolRequest.AllowGitWrites).
	GitWritesOffer bool `json:"git_writes_offer,omitempty"`
	// EditContext is, for an edit_file call, where its old text is in the
	// file as the prompt is made (additive; absent when the edit would
	// fail): the prompt's diff shows the file's own line numbers and the
	// lines around the change.
	EditContext *EditContext `json:"edit_context,omitempty"`
}

// ToolApprovalResolved is the payload of tool.approval_resolved; Rule is
// the rule an "always" answer stored.
type ToolApprovalResolved struct {
	ToolUseID       string          `json:"tool_use_id"`
	Decision        string          `json:"decision"`
	By              string          `json:"by"`
	Message         string          `json:"message,omitempty"`
	Rule            *PermissionRule `json:"rule,omitempty"`
	WorkerSessionID string          `json:"worker_session_id,omitempty"`
}

// EditContext places an edit_file call in its file: StartLine is the
// 1-based line of the first line it changes; Old and New are the whole
// lines it changes, before and after; Before and After are up to three
// unchanged lines on either side.
type EditContext struct {
	StartLine int      `json:"start_line"`
	Old       string   `json:"old"`
	New       string   `json:"new"`
	Before    []string `json:"before"`
	After     []string `json:"after"`
}

// ApproveToolRequest is what approveTool carries; By is the transport that
// delivered it (see WithClient). Rule, for "always", is the rule to store
// instead of the request's always_rule (the user edited it).
type ApproveToolRequest struct {
	SessionID string
	ToolUseID string
	Decision  string // once | always | deny
	Message   string
	Rule      *PermissionRule
	By        string
	// AllowGitWrites runs this one (approved) call with .git writable.
	AllowGitWrites bool
}

// GitWritesAPI is implemented by a HubAPI that keeps the per-workspace
// "allow git writes" setting (docs/permissions.md): off by default,
// sandboxed bash keeps the workspace's .git read-only.
type GitWritesAPI interface {
	// GitWrites reports the workspace's setting.
	GitWrites(ctx context.Context, workspace string) (bool, error)
	// SetGitWrites changes it and returns the new value; a relative
	// workspace path is ErrInvalidInput.
	SetGitWrites(ctx context.Context, workspace string, allow bool) (bool, error)
}

// PermissionRule is one workspace rule as clients see it
// (docs/permissions.md): Action is allow, ask or deny; Prefix (the
// commands starting with these words) or Command (exactly this simple
// command) only for bash.
type PermissionRule struct {
	Tool    string `json:"tool"`
	Prefix  string `json:"prefix,omitempty"`
	Command string `json:"command,omitempty"`
	Action  string `json:"action"`
}

type clientKey struct{}

// WithClient returns ctx naming the client kind a request came from
// ("window", "dashboard"), for tool.approval_resolved's by.
func WithClient(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, clientKey{}, name)
}

// ClientOf returns the client kind WithClient put in ctx, or "client".
func ClientOf(ctx context.Context) string {
	if s, ok := ctx.Value(clientKey{}).(string); ok && s != "" {
		return s
	}
	return "client"
}
