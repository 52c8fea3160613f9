package ipc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"agenthub/store"
)

// Errors a HubAPI implementation wraps so transports can map them to
// protocol codes (HTTP status, seed 003 RPC codes) without knowing the hub.
var (
	// ErrSessionNotFound: the session id names no session (HTTP 404, AGENT_NOT_FOUND).
	ErrSessionNotFound = errors.New("session not found")
	// ErrTurnNotFound: the turn id names no turn of the session (HTTP 404).
	ErrTurnNotFound = errors.New("turn not found")
	// ErrInvalidInput: the request is malformed or out of range (HTTP 400, INVALID_PARAMS).
	ErrInvalidInput = errors.New("invalid input")
	// ErrQueueFull: the session's turn queue is at its bound (HTTP 429).
	ErrQueueFull = errors.New("turn queue full")
	// ErrTooLarge: an upload is past its bound (HTTP 413, INVALID_PARAMS).
	ErrTooLarge = errors.New("too large")
	// ErrAttachmentNotFound: no attachment has the id (HTTP 404).
	ErrAttachmentNotFound = errors.New("attachment not found")
	// ErrConflict: the request names an id that is already taken (HTTP 409).
	ErrConflict = errors.New("conflict")
)

// CreateSessionRequest is the body of POST /sessions and the createSession RPC.
// Empty fields take the hub's defaults (--workspace, --model, a generated title).
type CreateSessionRequest struct {
	WorkspacePath string `json:"workspace_path,omitempty"`
	Model         string `json:"model,omitempty"`
	Title         string `json:"title,omitempty"`
	// AGUIThreadID remembers the AG-UI thread the session is created for
	// (set by POST /ag-ui only).
	AGUIThreadID string `json:"-"`
}

// SubmitResult is the answer to a turn submission: the turn id at once, and
// whether it waits behind a running turn.
type SubmitResult struct {
	TurnID string `json:"turn_id"`
	Queued bool   `json:"queued"`
}

// ModelInfo describes a selectable model ("provider:model").
type ModelInfo struct {
	ID            string `json:"id"`
	Provider      string `json:"provider"`
	ContextWindow int64  `json:"context_window"`
	Configured    bool   `json:"configured"` // the provider has credentials or a base URL
}

// ModelRouter is optionally implemented by a HubAPI: CurrentModel returns
// the model that would answer the session's next turn now — its pinned
// model, or the routing decision made without pinning it ("" when no model
// is configured). Transports use it for active_model (GET /sessions/{id},
// RPC getSession), so a client can show the model before the first turn.
type ModelRouter interface {
	CurrentModel(ctx context.Context, sessionID string) (string, error)
}

// SessionWithCurrentModel returns hub.GetSession's record with ActiveModel
// set to the model that would answer now when hub is a ModelRouter.
func SessionWithCurrentModel(ctx context.Context, hub HubAPI, sessionID string) (store.Session, error) {
	s, err := hub.GetSession(ctx, sessionID)
	if err != nil || s.ActiveModel != "" {
		return s, err
	}
	if r, ok := hub.(ModelRouter); ok {
		if m, err := r.CurrentModel(ctx, sessionID); err == nil {
			s.ActiveModel = m
		}
	}
	return s, nil
}

// HubAPI is what the transports (Wails IPC, dashboard HTTP/WebSocket, RPC)
// need from the hub; app/hub implements it. Methods are safe for concurrent
// use. Errors wrap ErrSessionNotFound, ErrTurnNotFound, ErrInvalidInput or
// ErrQueueFull where those apply; anything else is an internal error.
// Message history is read straight from the store (Bus.Reader()).
type HubAPI interface {
	CreateSession(ctx context.Context, req CreateSessionRequest) (store.Session, error)
	ListSessions(ctx context.Context) ([]store.Session, error)
	GetSession(ctx context.Context, sessionID string) (store.Session, error)
	RenameSession(ctx context.Context, sessionID, title string) (store.Session, error)
	DeleteSession(ctx context.Context, sessionID string) error
	// SubmitTurn persists the user message and returns at once; the turn runs
	// now or after the running one.
	SubmitTurn(ctx context.Context, sessionID, content string) (SubmitResult, error)
	// CancelTurn cancels turnID, or the running turn when turnID is "".
	// Cancelling a turn that is already cancelling or finished is a no-op.
	CancelTurn(ctx context.Context, sessionID, turnID, reason string) error
	// CompactSession compacts the session's context now (compaction.* events).
	CompactSession(ctx context.Context, sessionID string) error
	// ExportSession renders the session as "markdown" or "json"; it returns
	// the document and its media type.
	ExportSession(ctx context.Context, sessionID, format string) ([]byte, string, error)
	// GetSettings returns the settings with secrets masked.
	GetSettings(ctx context.Context) (json.RawMessage, error)
	// UpdateSettings merges a partial settings object and returns the result, masked.
	UpdateSettings(ctx context.Context, patch json.RawMessage) (json.RawMessage, error)
	ListModels(ctx context.Context) ([]ModelInfo, error)
	// ApproveTool answers a waiting tool call's approval request; sessionID
	// is the call's session or an ancestor's. An unknown or already
	// answered id, or another session, is ErrInvalidInput.
	ApproveTool(ctx context.Context, req ApproveToolRequest) error
	// PendingApprovals lists the requests waiting in a session (its own and,
	// with worker_session_id, its workers'), oldest first: what a client
	// that attached with a snapshot (messages, not events) must still show.
	PendingApprovals(ctx context.Context, sessionID string) ([]ToolApprovalRequested, error)
	// SetApprovalMode sets a session's approval mode and returns the record.
	SetApprovalMode(ctx context.Context, sessionID, mode string) (store.Session, error)
	// SetSandboxOptions sets a session's bash sandbox options (reads inside
	// the workspace only, network off) and returns the record.
	SetSandboxOptions(ctx context.Context, sessionID string, readWorkspaceOnly, noNetwork bool) (store.Session, error)
	// PermissionRules returns a workspace's rules (docs/permissions.md).
	PermissionRules(ctx context.Context, workspace string) ([]PermissionRule, error)
	// SetPermissionRules replaces a workspace's rules; an invalid rule is ErrInvalidInput.
	SetPermissionRules(ctx context.Context, workspace string, rules []PermissionRule) ([]PermissionRule, error)
}

// SessionUpdate is the body of RPC updateSession: the fields to change; a
// nil field stays as it is.
type SessionUpdate struct {
	// Model pins the session's model ("provider:model"); "" unpins it (the
	// default model or routing answers).
	Model *string `json:"model,omitempty"`
	// WorkspacePath is the directory the session's tools work in; it must
	// be an existing directory.
	WorkspacePath *string `json:"workspace_path,omitempty"`
}

// SessionUpdater is optionally implemented by a HubAPI: UpdateSession
// changes a top-level session's model or workspace between turns (a
// running turn is ErrInvalidInput: the change would apply in the middle of
// it) and returns the record (session.updated tells every client).
type SessionUpdater interface {
	UpdateSession(ctx context.Context, sessionID string, u SessionUpdate) (store.Session, error)
}

// InstructionFile is one project instruction file a session's turns read
// (AGENTS.md or CLAUDE.md; docs/sessions.md): its path, size, how much of
// it the system prompt carries (Kept < Size: cut) and its scope ("global"
// or "project").
type InstructionFile struct {
	Path  string `json:"path"`
	Size  int64  `json:"size"`
	Kept  int64  `json:"kept"`
	Scope string `json:"scope"`
}

// InstructionsReader is optionally implemented by a HubAPI: the
// instruction files a session's next turn will read, outermost first.
type InstructionsReader interface {
	Instructions(ctx context.Context, sessionID string) ([]InstructionFile, error)
}

// ConnectionTester is optionally implemented by a HubAPI: Settings' "Test
// connection". TestConnection makes one tiny call to provider (anthropic
// or openai) with the credentials configured now; a failed call is an
// answer (OK false, Error in plain words), not an error.
type ConnectionTester interface {
	TestConnection(ctx context.Context, provider string) (ConnectionTest, error)
}

// ConnectionTest is the answer of testConnection.
type ConnectionTest struct {
	Provider   string `json:"provider"`
	OK         bool   `json:"ok"`
	Model      string `json:"model,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
}

// FileLister is optionally implemented by a HubAPI: the session's
// workspace files matching query (fuzzy; .gitignore respected), best first
// — the composer's @-completion.
type FileLister interface {
	ListFiles(ctx context.Context, sessionID, query string, limit int) ([]string, error)
}

// FolderFileLister is optionally implemented by a HubAPI: ListFiles for a
// folder no session has yet (the first message of a new session), which
// must be an existing directory ("" is the default workspace).
type FolderFileLister interface {
	ListFolderFiles(ctx context.Context, folder, query string, limit int) ([]string, error)
}

// AttachmentInfo describes a stored attachment: the answer to an upload
// (RPC uploadAttachment, POST /attachments). ID is the SHA-256 of the
// stored bytes (uploads of equal content share it); Kind is "image" or
// "text"; an image may have been resized to the providers' limits
// (Resized), and Width/Height are its stored size.
type AttachmentInfo struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Kind      string `json:"kind"`
	MediaType string `json:"media_type"`
	Bytes     int64  `json:"bytes"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	Resized   bool   `json:"resized,omitempty"`
}

// AttachmentRef names an uploaded attachment in a turn submission, with
// the file name to show and tell the model.
type AttachmentRef struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Attacher is optionally implemented by a HubAPI: uploads (pasted or
// dropped images and text files) and turns that carry them.
// PutAttachment refuses an unsupported type (ErrInvalidInput) or a size
// past the bounds (ErrTooLarge) with a message the user can act on;
// ReadAttachment of an unknown id is ErrAttachmentNotFound;
// SubmitTurnWithAttachments is SubmitTurn whose message also carries the
// named attachments (content may then be empty), an unknown id being
// ErrInvalidInput.
type Attacher interface {
	PutAttachment(ctx context.Context, name, mediaType string, data []byte) (AttachmentInfo, error)
	ReadAttachment(ctx context.Context, id string) (AttachmentInfo, []byte, error)
	SubmitTurnWithAttachments(ctx context.Context, sessionID, content string, attachments []AttachmentRef) (SubmitResult, error)
}

// IDSubmitter is optionally implemented by a HubAPI: a submission whose
// user message takes the id its client chose (POST /ag-ui keeps the AG-UI
// client's message ids, so the thread's history and the client agree). The
// id must pass ValidClientMessageID (else ErrInvalidInput); an id a message
// or a queued submission of the session already has is ErrConflict — the
// existing message is never overwritten.
type IDSubmitter interface {
	SubmitTurnWithID(ctx context.Context, sessionID, messageID, content string) (SubmitResult, error)
}

// MaxClientMessageID bounds a client-chosen message id (a UUID is 36).
const MaxClientMessageID = 128

// ValidClientMessageID checks a client-chosen message id: 1 to
// MaxClientMessageID bytes of ASCII letters, digits, '-' and '_', starting
// with a letter or digit. That admits UUIDs and ULIDs and keeps out what
// the hub's own derived ids use (':' in "result:<call>", "<id>:reasoning",
// "<turn>:error"; the branch root "-"), whitespace, control and markup.
func ValidClientMessageID(id string) error {
	if id == "" || len(id) > MaxClientMessageID {
		return fmt.Errorf("message id must be 1 to %d characters: %w", MaxClientMessageID, ErrInvalidInput)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alnum && (i == 0 || c != '-' && c != '_') {
			return fmt.Errorf("message id %q: only letters, digits, '-' and '_' (starting with a letter or digit): %w", truncate(id), ErrInvalidInput)
		}
	}
	return nil
}

// TurnChanges is the answer to RPC getTurnChanges: the workspace files a
// turn changed, each with its content before and after the turn when that
// is text small enough to show (a diff), and the undo, once made.
type TurnChanges struct {
	TurnID    string       `json:"turn_id"`
	Workspace string       `json:"workspace"`
	Changes   []FileChange `json:"changes"`
	Undone    *TurnUndone  `json:"undone,omitempty"`
}

// FileChange is one file a turn changed. Status is "created", "modified"
// or "deleted"; Before/After are absent when the content is not text,
// too large to show, or not kept; Unrestorable says why undo cannot
// restore it.
type FileChange struct {
	Path         string  `json:"path"`
	Tool         string  `json:"tool"`
	Status       string  `json:"status"`
	Before       *string `json:"before,omitempty"`
	After        *string `json:"after,omitempty"`
	Unrestorable string  `json:"unrestorable,omitempty"`
}

// TurnUndoer is optionally implemented by a HubAPI: a turn's file changes
// and their undo (docs/undo.md). UndoTurn restores every file the turn
// changed that is still as the turn left it and never overwrites one
// changed since; it is ErrInvalidInput while the session runs a turn, for a
// turn that changed nothing, and the second time.
type TurnUndoer interface {
	TurnChanges(ctx context.Context, sessionID, turnID string) (TurnChanges, error)
	UndoTurn(ctx context.Context, sessionID, turnID string) (TurnUndone, error)
}

// Brancher is optionally implemented by a HubAPI: branches of a session's
// history (docs/branching.md). Each is ErrInvalidInput while the session
// runs or queues a turn, for a worker session, or for a message not on the
// current path (SwitchBranch takes any message of the session).
type Brancher interface {
	// Regenerate answers the user message messageID (or the one whose turn
	// produced messageID) again, as a sibling of the old answer.
	Regenerate(ctx context.Context, sessionID, messageID string) (SubmitResult, error)
	// EditAndResend sends content as a changed copy of the user message
	// messageID, a sibling of it, starting a new turn.
	EditAndResend(ctx context.Context, sessionID, messageID, content string) (SubmitResult, error)
	// RetryTurn runs the turn the user message messageID started again, as
	// a new version of it: an exact copy of the message (attachments
	// included) becomes its sibling and starts a new turn.
	RetryTurn(ctx context.Context, sessionID, messageID string) (SubmitResult, error)
	// SwitchBranch moves the current path to the newest leaf under messageID.
	SwitchBranch(ctx context.Context, sessionID, messageID string) (store.Session, error)
	// ForkSession makes a new session whose history is a copy of the
	// current path up to messageID.
	ForkSession(ctx context.Context, sessionID, messageID string) (store.Session, error)
}
