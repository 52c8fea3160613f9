package ipc

import (
	"encoding/json"

	"agenthub/ipc/errclass"
	"agenthub/store"
)

// Payloads of the canonical events. Field names are the wire contract
// (seed 001 §5.3/§6/§10, seed 000 compaction stats, seed 004 status layers);
// frontend/src/protocol mirrors them and a test keeps the two in step.

// TurnStarted is the payload of turn.started.
type TurnStarted struct {
	UserMessageID string `json:"user_message_id"`
	Input         string `json:"input"` // the user's text
	// Attachments are the files the message attached (@-mentions and
	// uploads; additive): their content is in the stored user message, not
	// in Input.
	Attachments []AttachedFile `json:"attachments,omitempty"`
}

// AttachedFile is one file attached to a user message: its path in the
// session's folder (an @-mention) or the name it was uploaded under, its
// size, and whether only part of it was attached. Kind is "" for a
// mentioned file, "file" for an uploaded text file, "image" for an image;
// an image also carries its attachment id (GET /attachments/{id}), media
// type and pixel size.
type AttachedFile struct {
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	Cut       bool   `json:"cut,omitempty"`
	Kind      string `json:"kind,omitempty"`
	ID        string `json:"id,omitempty"`
	MediaType string `json:"media_type,omitempty"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
}

// Kinds of AttachedFile.
const (
	AttachedUpload = "file"
	AttachedImage  = "image"
)

// RouteDecided is the payload of route.decided.
type RouteDecided struct {
	Model         string `json:"model"` // "provider:model"
	Reason        string `json:"reason"`
	Policy        string `json:"policy"`
	PolicyVersion string `json:"policy_version"`
}

// LLMCallStarted is the payload of llm.call_started.
type LLMCallStarted struct {
	CallID    string `json:"call_id"`
	Model     string `json:"model"`
	MessageID string `json:"message_id"`
	Attempt   int    `json:"attempt"` // 1 for the first try, 2+ for retries
	// Purpose is "title" for the call that names a session (turn_id
	// null); empty for the calls of a turn.
	Purpose string `json:"purpose,omitempty"`
}

// LLMCallCompleted is the payload of llm.call_completed.
type LLMCallCompleted struct {
	CallID     string      `json:"call_id"`
	Model      string      `json:"model"`
	MessageID  string      `json:"message_id"`
	StopReason string      `json:"stop_reason"`
	Usage      store.Usage `json:"usage"`
	DurationMS int64       `json:"duration_ms"`
	// Purpose is "title" for the call that names a session (turn_id
	// null); empty for the calls of a turn.
	Purpose string `json:"purpose,omitempty"`
}

// LLM error classes (llm.call_failed error_class), defined in ipc/errclass.
const (
	ErrClassAuth            = errclass.Auth
	ErrClassRateLimit       = errclass.RateLimit
	ErrClassOverloaded      = errclass.Overloaded
	ErrClassServer          = errclass.Server
	ErrClassNetwork         = errclass.Network
	ErrClassTimeout         = errclass.Timeout
	ErrClassInvalidRequest  = errclass.InvalidRequest
	ErrClassContextOverflow = errclass.ContextOverflow
	ErrClassCancelled       = errclass.Cancelled
	ErrClassNotConfigured   = errclass.NotConfigured
)

// LLMCallFailed is the payload of llm.call_failed. WillRetry is true when
// another attempt follows (a new llm.call_started with Attempt+1).
type LLMCallFailed struct {
	CallID     string `json:"call_id"`
	Model      string `json:"model"`
	MessageID  string `json:"message_id,omitempty"`
	ErrorClass string `json:"error_class"`
	Message    string `json:"message"`
	Attempt    int    `json:"attempt"`
	WillRetry  bool   `json:"will_retry"`
	RetryInMS  int64  `json:"retry_in_ms,omitempty"`
	// MaxAttempts is how many attempts the call gets in all (additive:
	// "attempt 2 of 4"); 0 when unknown.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// Purpose is "title" for the call that names a session (turn_id
	// null); empty for the calls of a turn.
	Purpose string `json:"purpose,omitempty"`
}

// LLMCallStalled is the payload of llm.call_stalled: the call's stream has
// delivered nothing for IdleMS milliseconds.
type LLMCallStalled struct {
	CallID string `json:"call_id"`
	IdleMS int64  `json:"idle_ms"`
}

// ToolCalled is the payload of tool.called (seed 004 "call" layer).
type ToolCalled struct {
	ToolUseID  string          `json:"tool_use_id"`
	ToolName   string          `json:"tool_name"`
	Input      json.RawMessage `json:"input"`
	MessageID  string          `json:"message_id"`
	StatusText string          `json:"status_text"` // "Running: git status"
	Summary    string          `json:"summary"`     // markdown
}

// ToolCompleted is the payload of tool.completed (seed 004 "result" layer).
type ToolCompleted struct {
	ToolUseID   string `json:"tool_use_id"`
	ToolName    string `json:"tool_name"`
	StatusText  string `json:"status_text"`
	Summary     string `json:"summary"`
	Output      string `json:"output"` // what the model sees (capped)
	IsError     bool   `json:"is_error"`
	Truncated   bool   `json:"truncated,omitempty"`
	OutputBytes int64  `json:"output_bytes"`
	OutputPath  string `json:"output_path,omitempty"` // full output on disk, if kept
	DurationMS  int64  `json:"duration_ms"`
}

// Tool error classes (tool.failed error_class), defined in ipc/errclass.
const (
	ToolErrCancelled    = errclass.ToolCancelled
	ToolErrInvalidInput = errclass.ToolInvalidInput
	ToolErrDenied       = errclass.ToolDenied // path escapes the workspace
	ToolErrExec         = errclass.ToolExec
	ToolErrTimeout      = errclass.ToolTimeout
	ToolErrUnknownTool  = errclass.ToolUnknownTool
)

// ToolFailed is the payload of tool.failed.
type ToolFailed struct {
	ToolUseID  string `json:"tool_use_id"`
	ToolName   string `json:"tool_name"`
	ErrorClass string `json:"error_class"`
	Message    string `json:"message"`
	StatusText string `json:"status_text"`
	Summary    string `json:"summary"`
}

// Turn completion statuses (turn.completed status).
const (
	TurnStatusCompleted = "completed"
	TurnStatusFailed    = "failed"
)

// TurnCompleted is the payload of turn.completed.
type TurnCompleted struct {
	Status     string      `json:"status"` // "completed" | "failed"
	StopReason string      `json:"stop_reason,omitempty"`
	Usage      store.Usage `json:"usage"`
	Error      string      `json:"error,omitempty"`
	ErrorClass string      `json:"error_class,omitempty"`
	// FilesChanged is how many workspace files the turn changed (additive;
	// undoTurn restores them).
	FilesChanged int `json:"files_changed,omitempty"`
}

// TurnCancelled is the payload of turn.cancelled.
type TurnCancelled struct {
	Reason           string   `json:"reason"` // "user_cancel", "timeout", "interrupted", ...
	PartialMessageID string   `json:"partial_message_id,omitempty"`
	CancelledTools   []string `json:"cancelled_tools,omitempty"`
	// FilesChanged is how many workspace files the turn changed before it
	// was cancelled (additive).
	FilesChanged int `json:"files_changed,omitempty"`
}

// TurnUndone is the payload of turn.undone (the envelope's turn_id is the
// undone turn): the files restored to their content before the turn, and
// those left alone with the reason (changed since, not kept).
type TurnUndone struct {
	Restored []string      `json:"restored"`
	Skipped  []SkippedFile `json:"skipped"`
}

// SkippedFile is a file an undo left alone.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// DelegateStarted is the payload of delegate.started (seed 004 delegation_call).
type DelegateStarted struct {
	ToolUseID       string `json:"tool_use_id"`
	WorkerSessionID string `json:"worker_session_id"`
	Task            string `json:"task"`
	Depth           int    `json:"depth"`
	StatusText      string `json:"status_text"`
	Summary         string `json:"summary"`
}

// DelegateCompleted is the payload of delegate.completed (seed 004 delegation_result).
type DelegateCompleted struct {
	ToolUseID       string `json:"tool_use_id"`
	WorkerSessionID string `json:"worker_session_id"`
	Success         bool   `json:"success"`
	Result          string `json:"result"`
	StatusText      string `json:"status_text"`
	Summary         string `json:"summary"`
}

// Delegation failure modes.
const (
	FailureCancelledByUser = "cancelled_by_user"
	FailureError           = "error"
	FailureDepthExceeded   = "depth_exceeded"
	FailureTimeout         = "timeout"
)

// DelegateFailed is the payload of delegate.failed.
type DelegateFailed struct {
	ToolUseID       string `json:"tool_use_id"`
	WorkerSessionID string `json:"worker_session_id,omitempty"`
	FailureMode     string `json:"failure_mode"`
	Message         string `json:"message"`
	StatusText      string `json:"status_text"`
	Summary         string `json:"summary"`
}

// CompactionStarted is the payload of compaction.started.
type CompactionStarted struct {
	Trigger         string `json:"trigger"` // "threshold" | "request"
	EstimatedTokens int64  `json:"estimated_tokens"`
	ContextWindow   int64  `json:"context_window"`
}

// CompactionCompleted is the payload of compaction.completed (seed 000 stats).
type CompactionCompleted struct {
	Removed            int    `json:"removed"`
	Kept               int    `json:"kept"`
	TokensRemoved      int64  `json:"tokensRemoved"`
	TokensKept         int64  `json:"tokensKept"`
	Reason             string `json:"reason"` // "summary" | "tokens"
	ContextStartOffset int64  `json:"context_start_offset"`
	// Error says why the summary call failed when Reason is "tokens" after
	// one was tried (additive; absent when nothing was removed or it worked).
	Error string `json:"error,omitempty"`
}

// SessionChanged is the payload of session.created and session.updated.
// Deleted is true on the session.updated that records a deletion.
type SessionChanged struct {
	Session store.Session `json:"session"`
	Deleted bool          `json:"deleted,omitempty"`
}

// HandlerWarning is the payload of bus.handler_warning.
type HandlerWarning struct {
	SubscriptionName string `json:"subscription_name"`
	Code             string `json:"code"` // "client_too_slow", "redundant_cancel", ...
	Message          string `json:"message"`
}

// MessageStart is the payload of message.start.
type MessageStart struct {
	MessageID string `json:"message_id"`
	Role      string `json:"role"`
	Model     string `json:"model"`
}

// MessageReset is the payload of message.reset: the LLM call of MessageID
// failed after it had streamed, was retried, and attempt Attempt (2 or
// more) now streams the message again. A client drops the message's
// content so far (text, thinking, tool-call blocks and their cards) and
// keeps the message: the deltas that follow rebuild it from block 0, and
// message.complete ends it as usual. ErrorClass and Error are why the
// attempt before failed (as in its llm.call_failed).
type MessageReset struct {
	MessageID  string `json:"message_id"`
	Attempt    int    `json:"attempt"`
	ErrorClass string `json:"error_class"`
	Error      string `json:"error"`
}

// TextDelta is the payload of text.delta: the new chunk only.
type TextDelta struct {
	MessageID         string `json:"message_id"`
	ContentBlockIndex int    `json:"content_block_index"`
	Text              string `json:"text"`
}

// ThinkingDelta is the payload of thinking.delta; Signature is set only on
// the final delta of the block (which may have empty Text).
type ThinkingDelta struct {
	MessageID         string  `json:"message_id"`
	ContentBlockIndex int     `json:"content_block_index"`
	Text              string  `json:"text"`
	Signature         *string `json:"signature"`
}

// ToolUseStart is the payload of tool.use_start.
type ToolUseStart struct {
	MessageID         string `json:"message_id"`
	ContentBlockIndex int    `json:"content_block_index"`
	ToolUseID         string `json:"tool_use_id"`
	ToolName          string `json:"tool_name"`
}

// ToolUseInputDelta is the payload of tool.use_input_delta: a raw JSON fragment.
type ToolUseInputDelta struct {
	MessageID         string `json:"message_id"`
	ContentBlockIndex int    `json:"content_block_index"`
	ToolUseID         string `json:"tool_use_id"`
	PartialJSON       string `json:"partial_json"`
}

// ToolUseEnd is the payload of tool.use_end; FinalInput is authoritative.
type ToolUseEnd struct {
	MessageID         string          `json:"message_id"`
	ContentBlockIndex int             `json:"content_block_index"`
	ToolUseID         string          `json:"tool_use_id"`
	FinalInput        json.RawMessage `json:"final_input"`
}

// ToolOutputDelta is the payload of tool.output_delta: live output of a
// running tool, or a worker's streamed text for a delegate call (seed 004).
// Reset (additive, "worker" only) says the worker's model call is being
// retried: the worker text streamed so far is void (its message was reset,
// one message per model call); Text follows from empty.
type ToolOutputDelta struct {
	ToolUseID string `json:"tool_use_id"`
	Stream    string `json:"stream"` // "stdout" | "stderr" | "worker"
	Text      string `json:"text"`
	Reset     bool   `json:"reset,omitempty"`
}

// MessageComplete is the payload of message.complete; FinalContent is authoritative.
type MessageComplete struct {
	MessageID    string               `json:"message_id"`
	StopReason   string               `json:"stop_reason"` // end_turn|max_tokens|stop_sequence|tool_use|cancelled|error
	FinalContent []store.ContentBlock `json:"final_content"`
	Usage        store.Usage          `json:"usage"`
	// Retries is set when the call was retried (additive): the stored
	// message's record of it, so a live client shows what a reload does.
	Retries *store.Retries `json:"retries,omitempty"`
}

// Why a session's current path changed (SessionBranched.Reason).
const (
	BranchRegenerate = "regenerate"
	BranchEdit       = "edit"
	BranchSwitch     = "switch"
	BranchRetry      = "retry"
)

// SessionBranched is the payload of session.branched: why the current path
// changed, the message the user acted on, the new head ("" = the newest
// message; the next message of a regenerate or edit hangs under the head),
// and the session record.
type SessionBranched struct {
	Reason    string        `json:"reason"`
	MessageID string        `json:"message_id"`
	HeadID    string        `json:"head_id"`
	Session   store.Session `json:"session"`
	// AbandonedTurns are the turns of the branch left behind, newest
	// first, whose file changes are still in place (additive): a client
	// offers to undo them (undoTurn).
	AbandonedTurns []AbandonedTurn `json:"abandoned_turns,omitempty"`
}

// AbandonedTurn is a turn of a branch left behind that changed files.
type AbandonedTurn struct {
	TurnID       string `json:"turn_id"`
	FilesChanged int    `json:"files_changed"`
}

// SessionForked is the payload of session.forked (in the source session):
// the new session and the message its copied history ends with.
type SessionForked struct {
	NewSessionID string `json:"new_session_id"`
	MessageID    string `json:"message_id"`
}
