// Package store is Agent Hub's bbolt persistence: sessions, messages, turns,
// settings and the ordered event log. It imports neither ipc nor app; its
// record types are the product's domain model and are shared upward.
package store

import (
	"encoding/json"
	"strings"
	"time"
)

// Message roles, as on the wire (DESIGN.md §3).
const (
	RoleUser       = "user"
	RoleAssistant  = "assistant"
	RoleToolResult = "toolResult"
)

// Message statuses. A message is stored once, when it is final (seed 002).
const (
	StatusComplete    = "complete"    // finished normally
	StatusCancelled   = "cancelled"   // ended by a user cancel or turn timeout
	StatusInterrupted = "interrupted" // rebuilt from the event log after a crash
	StatusError       = "error"       // ended by a provider or tool error
)

// Content block types (seed 000).
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockToolCall = "toolCall"
	BlockImage    = "image"
)

// ContentBlock is one element of a message's content: a tagged union flattened
// into one struct. Type selects which fields are meaningful:
//   - "text": Text
//   - "thinking": Thinking, Signature (the provider's opaque signature, may be empty)
//   - "toolCall": ID, Name, Arguments (a JSON object), ProviderID
//   - "image": Source
type ContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Source    *ImageSource    `json:"source,omitempty"`
	// ProviderID is the provider's own id of a tool call when the app gave
	// the call another ID (the provider's was missing, malformed or already
	// used in the session); the adapters send it back to the provider.
	ProviderID string `json:"provider_id,omitempty"`
}

// Image source types.
const (
	// ImageBase64: the image is inline in Data.
	ImageBase64 = "base64"
	// ImageAttachment: the image is a stored attachment named by
	// Attachment (its content hash); the hub reads its bytes into a base64
	// copy for each provider request, so messages stay small.
	ImageAttachment = "attachment"
)

// ImageSource is an image in a user message: inline (Type "base64", Data)
// or a stored attachment (Type "attachment", Attachment and the
// descriptive fields).
type ImageSource struct {
	Type      string `json:"type"` // ImageBase64 or ImageAttachment
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	// Attachment is the attachment id (SHA-256 hex of the stored bytes).
	Attachment string `json:"attachment,omitempty"`
	// Name is the file name the user attached it under.
	Name string `json:"name,omitempty"`
	// Width, Height and Bytes describe the stored image.
	Width  int   `json:"width,omitempty"`
	Height int   `json:"height,omitempty"`
	Bytes  int64 `json:"bytes,omitempty"`
}

// Usage is the token accounting of one LLM call (or a sum of calls). Each
// token is counted once: InputTokens excludes cache reads and writes, and
// OutputTokens includes ReasoningTokens (ReasoningTokens is informational).
type Usage struct {
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64   `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64   `json:"reasoning_tokens,omitempty"`
	CostUSD          float64 `json:"cost_usd"`
	// OutputEstimated says OutputTokens is (or, in a sum, includes) an
	// estimate from the streamed text: the provider sent no usage for a
	// reply cut short (cancelled, or failed mid-stream).
	OutputEstimated bool `json:"output_estimated,omitempty"`
}

// Add returns the element-wise sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + o.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + o.ReasoningTokens,
		CostUSD:          u.CostUSD + o.CostUSD,
		OutputEstimated:  u.OutputEstimated || o.OutputEstimated,
	}
}

// Message is one stored message of a session. Offset is its position in the
// session (0-based) and never changes once assigned: compaction marks, it
// never deletes.
type Message struct {
	ID         string         `json:"id"`
	SessionID  string         `json:"session_id"`
	Offset     int64          `json:"offset"`
	TurnID     string         `json:"turn_id,omitempty"`
	Role       string         `json:"role"`
	Content    []ContentBlock `json:"content"`
	Status     string         `json:"status"`
	StopReason string         `json:"stop_reason,omitempty"`
	Usage      *Usage         `json:"usage,omitempty"`
	Model      string         `json:"model,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	ToolName   string         `json:"tool_name,omitempty"`
	IsError    bool           `json:"is_error,omitempty"`
	// StatusText and Summary are seed 004's result layer of a toolResult
	// message ("Ran: git status (exit 0)" and a Markdown summary), kept so a
	// reloaded client shows the same tool card as a live one.
	StatusText string    `json:"status_text,omitempty"`
	Summary    string    `json:"summary,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	// Approval is, on a toolResult message whose call asked first, how it
	// was answered and by whom (kept so a reloaded card says so too).
	Approval *ToolApproval `json:"approval,omitempty"`
	// Turn is, on a user message that started a turn, that turn's outcome.
	// It is never stored with the message: every read joins it from the
	// turn record, so it is always the turn's current state.
	Turn *TurnOutcome `json:"turn,omitempty"`
	// ParentID is the message before this one on its branch (docs/branching.md):
	// "" means the message stored just before it (offset − 1), RootParent
	// that it starts the conversation. Only a message that starts a branch
	// names its parent.
	ParentID string `json:"parent_id,omitempty"`
	// Siblings are, on a read of a branched session's current path, the ids
	// of the messages sharing this one's parent (itself included, oldest
	// first) when there is more than one: the branch point's ‹ n/m ›.
	// Computed on read, never stored.
	Siblings []string `json:"siblings,omitempty"`
	// Retries is set on an assistant message whose LLM call was retried:
	// the message is the one answer of that call (one message per model
	// call), and Retries says how often and why the attempts before the
	// one it holds failed.
	Retries *Retries `json:"retries,omitempty"`
}

// Retries says an LLM call was retried: Count attempts failed before the
// last one (the N of "retried N×"), the last of them with ErrorClass and
// Error (an ipc/errclass class and the provider's message).
type Retries struct {
	Count      int    `json:"count"`
	ErrorClass string `json:"error_class"`
	Error      string `json:"error"`
}

// ToolApproval is the answer to a tool call's approval prompt: Decision is
// once, always, deny or cancelled; By is who answered (window, dashboard,
// rpc, …; cancel or restart for a cancelled prompt); Message is the user's
// message with a denial.
type ToolApproval struct {
	Decision string `json:"decision"`
	By       string `json:"by"`
	Message  string `json:"message,omitempty"`
}

// RootParent is the ParentID of a message that starts a conversation (an
// edit of the first user message), and the HeadID of a session whose next
// message does.
const RootParent = "-"

// Session is a conversation with its own workspace, model and history. A worker
// session (started by the delegate tool) has ParentSessionID set.
type Session struct {
	ID    string `json:"session_id"`
	Title string `json:"title"`
	// TitleSource says who named the session: "user" (named at creation
	// or renamed; never retitled), "auto" (the hub, after its first
	// completed turn), "" (not named yet).
	TitleSource     string    `json:"title_source,omitempty"`
	WorkspacePath   string    `json:"workspace_path"`
	ActiveModel     string    `json:"active_model"`
	ParentSessionID string    `json:"parent_session_id"`
	CreatedAt       time.Time `json:"created_at"`
	TurnCount       int64     `json:"turn_count"`
	CostSoFarUSD    float64   `json:"cost_so_far_usd"`
	// Usage is the session's summed token usage.
	Usage Usage `json:"usage"`
	// CurrentTurnID is the turn in flight, "" when idle.
	CurrentTurnID string `json:"current_turn_id,omitempty"`
	// StreamingMessageID is the assistant message being streamed, "" when none.
	StreamingMessageID string `json:"streaming_message_id,omitempty"`
	// ContextStartOffset is the compaction marker: the model's context starts
	// at this message offset (earlier messages are summarised in ContextSummary).
	ContextStartOffset int64  `json:"context_start_offset"`
	ContextSummary     string `json:"context_summary,omitempty"`
	// Branched is set once the session has more than one branch
	// (regenerate, edit and resend): reads then follow the current path,
	// and message offsets are positions on it (docs/branching.md).
	Branched bool `json:"branched,omitempty"`
	// HeadID is the last message of the current path when that is not the
	// newest stored message (after a branch switch, or before the first
	// message of a regenerated or edited turn is stored); the next stored
	// message hangs under it. "" when the newest message is the head.
	HeadID string `json:"head_id,omitempty"`
	// Depth is 0 for a top-level session, parent's Depth+1 for a worker.
	Depth int `json:"depth"`
	// QueuedTurns are the submissions waiting behind the running turn, oldest
	// first (their user messages are stored only when each turn starts).
	QueuedTurns []QueuedTurn `json:"queued_turns,omitempty"`
	// ApprovalMode is the session's approval mode: "ask", "auto-edits" or
	// "auto-all" (docs/permissions.md); "" means the current default.
	ApprovalMode string `json:"approval_mode,omitempty"`
	// PendingApprovals counts the session's tool calls (its own and its
	// workers') waiting for the user's approval.
	PendingApprovals int `json:"pending_approvals,omitempty"`
	// SandboxReadWorkspaceOnly confines the reads of the session's bash
	// commands to the workspace (and the system directories a shell
	// needs); SandboxNoNetwork switches their TCP off (app/sandbox).
	SandboxReadWorkspaceOnly bool `json:"sandbox_read_workspace_only,omitempty"`
	SandboxNoNetwork         bool `json:"sandbox_no_network,omitempty"`
	// AGUIThreadID is the AG-UI threadId this session was created for
	// (POST /ag-ui with a threadId that is not a session id); "" for none.
	AGUIThreadID string `json:"agui_thread_id,omitempty"`
}

// QueuedTurn is a submission waiting in a session's queue.
type QueuedTurn struct {
	TurnID  string `json:"turn_id"`
	Content string `json:"content"` // the user's text
}

// Turn statuses.
const (
	TurnQueued    = "queued"
	TurnRunning   = "running"
	TurnCompleted = "completed"
	TurnFailed    = "failed"
	TurnCancelled = "cancelled"
	// TurnInterrupted is not stored: it is how a TurnOutcome shows a turn
	// that crash recovery cancelled (Reason ReasonInterrupted).
	TurnInterrupted = "interrupted"
)

// ReasonInterrupted is the Reason of a turn cancelled by crash recovery.
const ReasonInterrupted = "interrupted"

// TurnError says why a turn failed: the error class (ipc/errclass), the
// provider's or tool's message, and how many attempts the failing LLM call
// made (0 when no call was made).
type TurnError struct {
	Class    string `json:"class"`
	Message  string `json:"message"`
	Attempts int    `json:"attempts"`
}

// TurnOutcome is a turn's state as the user message that started it
// carries it (DESIGN.md §3.1): Status is running, completed, failed,
// cancelled or interrupted; Error is set when it failed.
type TurnOutcome struct {
	ID     string     `json:"id"`
	Status string     `json:"status"`
	Error  *TurnError `json:"error,omitempty"`
	// FilesChanged is how many workspace files the turn changed;
	// FilesUndone says those changes were undone.
	FilesChanged int  `json:"files_changed,omitempty"`
	FilesUndone  bool `json:"files_undone,omitempty"`
}

// Outcome returns the outcome t's user message shows.
func (t Turn) Outcome() *TurnOutcome {
	o := &TurnOutcome{ID: t.ID, Status: t.Status, FilesChanged: t.FilesChanged, FilesUndone: t.FilesUndone}
	switch {
	case t.Status == TurnQueued:
		o.Status = TurnRunning
	case t.Status == TurnCancelled && t.Reason == ReasonInterrupted:
		o.Status = TurnInterrupted
	case t.Status == TurnFailed:
		o.Error = t.Error
		if o.Error == nil {
			o.Error = &TurnError{Class: t.Reason, Message: t.Reason}
		}
	}
	return o
}

// Turn is one user submission and the agent work it causes. Queued turns are
// persisted so a submission made while another turn runs survives restarts.
type Turn struct {
	ID            string    `json:"turn_id"`
	SessionID     string    `json:"session_id"`
	UserMessageID string    `json:"user_message_id"`
	Status        string    `json:"status"`
	Reason        string    `json:"reason,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	StartedAt     time.Time `json:"started_at,omitzero"`
	EndedAt       time.Time `json:"ended_at,omitzero"`
	// Content is a queued submission's user message content. A queued turn's
	// user message is stored when the turn starts (so its offset follows the
	// previous turn's messages); until then Content holds it and
	// UserMessageID is "" or the id its client chose for it (AG-UI). Empty
	// once the message is stored.
	Content []ContentBlock `json:"content,omitempty"`
	// Error is why a failed turn failed.
	Error *TurnError `json:"error,omitempty"`
	// FilesChanged is how many workspace files the turn changed (its
	// checkpoint, app/checkpoint); FilesUndone is set once they were undone.
	FilesChanged int  `json:"files_changed,omitempty"`
	FilesUndone  bool `json:"files_undone,omitempty"`
}

// TextOf concatenates the text blocks of content.
func TextOf(content []ContentBlock) string {
	var b strings.Builder
	for _, c := range content {
		if c.Type == BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}
