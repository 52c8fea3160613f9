package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"agenthub/ipc"
	"agenthub/store"
)

// Method names served by RegisterHub.
const (
	MethodGetAgentMessages = "getAgentMessages"
	MethodListSessions     = "listSessions"
	MethodGetSession       = "getSession"
	MethodCreateSession    = "createSession"
	MethodRenameSession    = "renameSession"
	MethodDeleteSession    = "deleteSession"
	MethodSubmitTurn       = "submitTurn"
	MethodCancelTurn       = "cancelTurn"
	MethodCompactSession   = "compactSession"
	MethodExportSession    = "exportSession"
	MethodGetSettings      = "getSettings"
	MethodUpdateSettings   = "updateSettings"
	MethodListModels       = "listModels"
	MethodApproveTool      = "approveTool"
	MethodSetApprovalMode  = "setApprovalMode"
	MethodGetPermissions   = "getPermissionRules"
	MethodSetPermissions   = "setPermissionRules"
	MethodSetSandbox       = "setSandboxOptions"
	MethodSetGitWrites     = "setGitWrites"
	MethodListApprovals    = "listPendingApprovals"
	MethodListMCPServers   = "listMcpServers"
)

// Paging bounds of getAgentMessages (seed 003 default limit 50).
const (
	DefaultMessageLimit = 50
	MaxMessageLimit     = 500
)

// MessageStore is the message history read by getAgentMessages;
// ipc.StoreReader (Bus.Reader()) implements it.
type MessageStore interface {
	Messages(sessionID string, offset, limit int) ([]store.Message, int, error)
	MessagesBefore(sessionID, beforeID string, limit int) ([]store.Message, bool, error)
}

// BranchReader is optionally implemented by a MessageStore: it reads the
// branch through a message instead of the current path (docs/branching.md;
// ipc.StoreReader implements it). An unknown message is store.ErrNotFound.
type BranchReader interface {
	BranchMessages(sessionID, messageID string, offset, limit int) ([]store.Message, int, error)
	BranchMessagesBefore(sessionID, messageID, beforeID string, limit int) ([]store.Message, bool, error)
}

// BranchOf is msgs' reader of the branch through messageID ("" = msgs itself).
func BranchOf(msgs MessageStore, sessionID, messageID string) (MessageStore, error) {
	if messageID == "" {
		return msgs, nil
	}
	b, ok := msgs.(BranchReader)
	if !ok {
		return nil, Errorf(CodeInvalidParams, "this hub reads only the current path")
	}
	return branchStore{b, messageID}, nil
}

// branchStore reads one branch through a BranchReader.
type branchStore struct {
	r       BranchReader
	through string
}

func (b branchStore) Messages(sessionID string, offset, limit int) ([]store.Message, int, error) {
	ms, total, err := b.r.BranchMessages(sessionID, b.through, offset, limit)
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, Errorf(CodeInvalidParams, "branch %q names no message of session %s", b.through, sessionID)
	}
	return ms, total, err
}

func (b branchStore) MessagesBefore(sessionID, beforeID string, limit int) ([]store.Message, bool, error) {
	if _, _, err := b.r.BranchMessages(sessionID, b.through, 0, 1); errors.Is(err, store.ErrNotFound) {
		return nil, false, Errorf(CodeInvalidParams, "branch %q names no message of session %s", b.through, sessionID)
	}
	return b.r.BranchMessagesBefore(sessionID, b.through, beforeID, limit)
}

// MessagesPage is the getAgentMessages result in offset mode (seed 003).
type MessagesPage struct {
	Messages []store.Message `json:"messages"`
	Total    int             `json:"total"`
	Offset   int             `json:"offset"`
	Limit    int             `json:"limit"`
}

// MessagesBeforePage is the getAgentMessages result in `before` mode, and
// the body of GET /sessions/{id}/messages.
type MessagesBeforePage struct {
	Messages []store.Message `json:"messages"`
	HasMore  bool            `json:"has_more"`
}

// ExportResult is the exportSession payload: the document as text.
type ExportResult struct {
	Format    string `json:"format"`
	MediaType string `json:"media_type"`
	Content   string `json:"content"`
}

// OK is the payload of methods that return nothing else.
type OK struct {
	OK bool `json:"ok"`
}

// RegisterHub registers every hub method on d: getAgentMessages,
// listSessions, getSession, createSession, renameSession, deleteSession,
// submitTurn, cancelTurn, compactSession, exportSession, getSettings,
// updateSettings, listModels, approveTool, setApprovalMode,
// getPermissionRules, setPermissionRules, setSandboxOptions, setGitWrites,
// listPendingApprovals, listMcpServers, search, and the workflow methods
// (setTodos, buildPlan, listCommands, runCommand). Session-addressed methods take the
// session id as `agentId` (seed 003); `sessionId` and `session_id` are
// accepted as aliases.
func RegisterHub(d *Dispatcher, hub ipc.HubAPI, msgs MessageStore) {
	h := hubMethods{hub: hub, msgs: msgs}
	d.Register(MethodGetAgentMessages, h.getAgentMessages)
	d.Register(MethodListSessions, h.listSessions)
	d.Register(MethodGetSession, h.getSession)
	d.Register(MethodCreateSession, h.createSession)
	d.Register(MethodRenameSession, h.renameSession)
	d.Register(MethodDeleteSession, sessionAction(hub.DeleteSession))
	d.Register(MethodSubmitTurn, h.submitTurn)
	d.Register(MethodCancelTurn, h.cancelTurn)
	d.Register(MethodCompactSession, sessionAction(hub.CompactSession))
	d.Register(MethodExportSession, h.exportSession)
	d.Register(MethodGetSettings, h.getSettings)
	d.Register(MethodUpdateSettings, h.updateSettings)
	d.Register(MethodListModels, h.listModels)
	d.Register(MethodTestConnection, h.testConnection)
	d.Register(MethodApproveTool, h.approveTool)
	d.Register(MethodSetApprovalMode, h.setApprovalMode)
	d.Register(MethodGetPermissions, h.getPermissionRules)
	d.Register(MethodSetPermissions, h.setPermissionRules)
	d.Register(MethodSetSandbox, h.setSandboxOptions)
	d.Register(MethodSetGitWrites, h.setGitWrites)
	d.Register(MethodListApprovals, h.listPendingApprovals)
	d.Register(MethodListMCPServers, h.listMCPServers)
	d.Register(MethodSearch, h.search)
	d.Register(MethodUpdateSession, h.updateSession)
	d.Register(MethodReadToolOutput, h.readToolOutput)
	d.Register(MethodGetInstructions, h.getInstructions)
	d.Register(MethodListFiles, h.listFiles)
	d.Register(MethodGetTurnChanges, h.getTurnChanges)
	d.Register(MethodUndoTurn, h.undoTurn)
	d.Register(MethodRegenerate, onMessage(h, ipc.Brancher.Regenerate))
	d.Register(MethodRetryTurn, onMessage(h, ipc.Brancher.RetryTurn))
	d.Register(MethodEditMessage, h.editMessage)
	d.Register(MethodSwitchBranch, onMessage(h, ipc.Brancher.SwitchBranch))
	d.Register(MethodForkSession, onMessage(h, ipc.Brancher.ForkSession))
	h.registerWorkflows(d)
}

// listMCPServers answers {"servers": [...]}: every configured MCP server's
// state (docs/mcp.md); empty when the hub runs no MCP servers.
func (h hubMethods) listMCPServers(context.Context, json.RawMessage) (any, error) {
	servers := []ipc.MCPServerStatus{}
	if l, ok := h.hub.(ipc.MCPStatusLister); ok {
		servers = l.MCPServers()
	}
	return map[string]any{"servers": servers}, nil
}

type hubMethods struct {
	hub  ipc.HubAPI
	msgs MessageStore
}

// sessionParams carries the session id of session-addressed methods; the
// params of each such method embed it.
type sessionParams struct {
	AgentID   string `json:"agentId"`
	SessionID string `json:"sessionId"`
	Session   string `json:"session_id"` // the second wave's methods name it so (DESIGN §3.1)
}

func (p sessionParams) id() (string, error) {
	id := p.AgentID
	if id == "" {
		id = p.SessionID
	}
	if id == "" {
		id = p.Session
	}
	if strings.TrimSpace(id) == "" {
		return "", Errorf(CodeInvalidParams, "agentId is required")
	}
	return id, nil
}

// decodeSession decodes the params of a session-addressed method into a
// P and returns them with the session id they name.
func decodeSession[P interface{ id() (string, error) }](raw json.RawMessage) (P, string, error) {
	var p P
	if err := DecodeParams(raw, &p); err != nil {
		return p, "", err
	}
	id, err := p.id()
	return p, id, err
}

// nonNil is s, or an empty slice for nil: a list in an answer is [],
// never null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// decodeFor is decodeSession for a method the hub serves through an
// optional interface I: it also returns the hub as an I, or missing when
// the hub does not implement it.
func decodeFor[P interface{ id() (string, error) }, I any](h hubMethods, raw json.RawMessage, missing error) (P, string, I, error) {
	p, id, err := decodeSession[P](raw)
	i, ok := h.hub.(I)
	if err == nil && !ok {
		err = missing
	}
	return p, id, i, err
}

// sessionAction is a method that applies act to the session its params
// name and answers {"ok": true}.
func sessionAction(act func(ctx context.Context, sessionID string) error) Handler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		_, id, err := decodeSession[sessionParams](raw)
		if err != nil {
			return nil, err
		}
		return ok(act(ctx, id))
	}
}

// ok is {"ok": true} unless err.
func ok(err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return OK{OK: true}, nil
}

// FetchMessagesBefore reads one `before` page of a session's history after
// checking the session exists; shared by the RPC method and GET
// /sessions/{id}/messages. limit ≤ 0 means DefaultMessageLimit; limits above
// MaxMessageLimit are INVALID_PARAMS.
func FetchMessagesBefore(ctx context.Context, hub ipc.HubAPI, msgs MessageStore, sessionID, before string, limit int) (MessagesBeforePage, error) {
	limit, err := checkLimit(limit)
	if err != nil {
		return MessagesBeforePage{}, err
	}
	if _, err := hub.GetSession(ctx, sessionID); err != nil {
		return MessagesBeforePage{}, err
	}
	ms, more, err := msgs.MessagesBefore(sessionID, before, limit)
	var re *Error
	if errors.As(err, &re) {
		return MessagesBeforePage{}, err
	}
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return MessagesBeforePage{}, Errorf(CodeInvalidParams, "before %q names no message of session %s", before, sessionID)
		}
		return MessagesBeforePage{}, fmt.Errorf("read messages of %s: %w", sessionID, err)
	}
	return MessagesBeforePage{Messages: nonNil(ms), HasMore: more}, nil
}

func checkLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultMessageLimit, nil
	case limit < 0 || limit > MaxMessageLimit:
		return 0, Errorf(CodeInvalidParams, "limit must be between 1 and %d, got %d", MaxMessageLimit, limit)
	}
	return limit, nil
}

type messagesParams struct {
	sessionParams
	Offset *int    `json:"offset"`
	Limit  *int    `json:"limit"`
	Before *string `json:"before"`
	// Branch reads the branch through this message instead of the current path.
	Branch string `json:"branch"`
}

func (h hubMethods) getAgentMessages(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[messagesParams](raw)
	if err != nil {
		return nil, err
	}
	msgs, err := BranchOf(h.msgs, id, p.Branch)
	if err != nil {
		return nil, err
	}
	limit := 0
	if p.Limit != nil {
		if *p.Limit <= 0 {
			return nil, Errorf(CodeInvalidParams, "limit must be between 1 and %d, got %d", MaxMessageLimit, *p.Limit)
		}
		limit = *p.Limit
	}
	if p.Before != nil {
		if p.Offset != nil {
			return nil, Errorf(CodeInvalidParams, "offset and before are mutually exclusive")
		}
		page, err := FetchMessagesBefore(ctx, h.hub, msgs, id, *p.Before, limit)
		if err != nil {
			return nil, err
		}
		return seed003Shapes(ctx, page), nil
	}
	if limit, err = checkLimit(limit); err != nil {
		return nil, err
	}
	offset := 0
	if p.Offset != nil {
		if *p.Offset < 0 {
			return nil, Errorf(CodeInvalidParams, "offset must be ≥ 0, got %d", *p.Offset)
		}
		offset = *p.Offset
	}
	if _, err := h.hub.GetSession(ctx, id); err != nil {
		return nil, err
	}
	ms, total, err := msgs.Messages(id, offset, limit)
	var re *Error
	if errors.As(err, &re) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read messages of %s: %w", id, err)
	}
	return seed003Shapes(ctx, MessagesPage{Messages: nonNil(ms), Total: total, Offset: offset, Limit: limit}), nil
}

func (h hubMethods) listSessions(ctx context.Context, _ json.RawMessage) (any, error) {
	ss, err := h.hub.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"sessions": nonNil(ss)}, nil
}

func (h hubMethods) getSession(ctx context.Context, raw json.RawMessage) (any, error) {
	_, id, err := decodeSession[sessionParams](raw)
	if err != nil {
		return nil, err
	}
	return ipc.SessionWithCurrentModel(ctx, h.hub, id)
}

func (h hubMethods) createSession(ctx context.Context, raw json.RawMessage) (any, error) {
	var p ipc.CreateSessionRequest
	if err := DecodeParams(raw, &p); err != nil {
		return nil, err
	}
	return h.hub.CreateSession(ctx, p)
}

type renameParams struct {
	sessionParams
	Title *string `json:"title"`
}

func (h hubMethods) renameSession(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[renameParams](raw)
	if err != nil {
		return nil, err
	}
	if p.Title == nil || strings.TrimSpace(*p.Title) == "" {
		return nil, Errorf(CodeInvalidParams, "title is required")
	}
	return h.hub.RenameSession(ctx, id, *p.Title)
}

type submitParams struct {
	sessionParams
	Content *string `json:"content"`
	// Attachments are uploads (POST /attachments, the window's
	// App.UploadAttachment) the message carries; with them content may be empty.
	Attachments []ipc.AttachmentRef `json:"attachments"`
}

func (h hubMethods) submitTurn(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[submitParams](raw)
	if err != nil {
		return nil, err
	}
	if (p.Content == nil || strings.TrimSpace(*p.Content) == "") && len(p.Attachments) == 0 {
		return nil, Errorf(CodeInvalidParams, "content is required")
	}
	content := ""
	if p.Content != nil {
		content = *p.Content
	}
	return Submit(ctx, h.hub, id, content, p.Attachments)
}

// Submit submits a turn: with attachments through ipc.Attacher (a hub
// without it refuses them), else SubmitTurn.
func Submit(ctx context.Context, hub ipc.HubAPI, sessionID, content string, attachments []ipc.AttachmentRef) (ipc.SubmitResult, error) {
	if len(attachments) == 0 {
		return hub.SubmitTurn(ctx, sessionID, content)
	}
	att, ok := hub.(ipc.Attacher)
	if !ok {
		return ipc.SubmitResult{}, Errorf(CodeInvalidParams, "this hub takes no attachments")
	}
	return att.SubmitTurnWithAttachments(ctx, sessionID, content, attachments)
}

type cancelParams struct {
	sessionParams
	TurnID string `json:"turnId"`
	Turn   string `json:"turn_id"` // alias of turnId
	Reason string `json:"reason"`
}

func (h hubMethods) cancelTurn(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[cancelParams](raw)
	if err != nil {
		return nil, err
	}
	turn := p.TurnID
	if turn == "" {
		turn = p.Turn
	}
	reason := p.Reason
	if reason == "" {
		reason = "user_cancel"
	}
	return ok(h.hub.CancelTurn(ctx, id, turn, reason))
}

type exportParams struct {
	sessionParams
	Format string `json:"format"`
}

func (h hubMethods) exportSession(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[exportParams](raw)
	if err != nil {
		return nil, err
	}
	if p.Format == "" {
		p.Format = "markdown"
	}
	if p.Format != "markdown" && p.Format != "json" {
		return nil, Errorf(CodeInvalidParams, "format must be markdown or json, got %q", p.Format)
	}
	doc, mediaType, err := h.hub.ExportSession(ctx, id, p.Format)
	if err != nil {
		return nil, err
	}
	return ExportResult{Format: p.Format, MediaType: mediaType, Content: string(doc)}, nil
}

func (h hubMethods) getSettings(ctx context.Context, _ json.RawMessage) (any, error) {
	return h.hub.GetSettings(ctx)
}

func (h hubMethods) updateSettings(ctx context.Context, raw json.RawMessage) (any, error) {
	var patch map[string]json.RawMessage
	if err := DecodeParams(raw, &patch); err != nil {
		return nil, err
	}
	if patch == nil {
		return nil, Errorf(CodeInvalidParams, "params must be a settings object")
	}
	// A {"settings": {...}} wrapper is accepted as well as the bare object.
	body := json.RawMessage(raw)
	if inner, ok := patch["settings"]; ok && len(patch) == 1 {
		body = inner
	}
	return h.hub.UpdateSettings(ctx, body)
}

// MethodTestConnection makes one tiny call to a provider → ipc.ConnectionTest.
const MethodTestConnection = "testConnection"

func (h hubMethods) testConnection(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Provider string `json:"provider"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, Errorf(CodeInvalidParams, "params: %v", err)
		}
	}
	t, ok := h.hub.(ipc.ConnectionTester)
	if !ok {
		return nil, Errorf(CodeInvalidParams, "this hub cannot test a connection")
	}
	return t.TestConnection(ctx, p.Provider)
}

func (h hubMethods) listModels(ctx context.Context, _ json.RawMessage) (any, error) {
	ms, err := h.hub.ListModels(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"models": nonNil(ms)}, nil
}
