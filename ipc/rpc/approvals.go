package rpc

import (
	"context"
	"encoding/json"
	"strings"

	"agenthub/ipc"
)

type approveParams struct {
	sessionParams
	ToolUseID string              `json:"tool_use_id"`
	Decision  string              `json:"decision"`
	Message   string              `json:"message"`
	Rule      *ipc.PermissionRule `json:"rule"`
	// AllowGitWrites runs this one call with .git writable.
	AllowGitWrites bool `json:"allow_git_writes"`
}

// approveTool answers a waiting tool call (docs/permissions.md); by is the
// transport the request came in on (ipc.WithClient); rule, for "always",
// is the edited rule to store.
func (h hubMethods) approveTool(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[approveParams](raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.ToolUseID) == "" {
		return nil, Errorf(CodeInvalidParams, "tool_use_id is required")
	}
	return ok(h.hub.ApproveTool(ctx, ipc.ApproveToolRequest{SessionID: id, ToolUseID: p.ToolUseID,
		Decision: p.Decision, Message: p.Message, Rule: p.Rule, By: ipc.ClientOf(ctx), AllowGitWrites: p.AllowGitWrites}))
}

type modeParams struct {
	sessionParams
	Mode string `json:"mode"`
}

func (h hubMethods) setApprovalMode(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[modeParams](raw)
	if err != nil {
		return nil, err
	}
	return h.hub.SetApprovalMode(ctx, id, p.Mode)
}

type rulesParams struct {
	Workspace string               `json:"workspace"`
	Rules     []ipc.PermissionRule `json:"rules"`
}

// RulesResult is the payload of getPermissionRules and setPermissionRules;
// AllowGitWrites is the workspace's git-writes setting (setGitWrites), nil
// when the hub keeps none.
type RulesResult struct {
	Workspace      string               `json:"workspace"`
	Rules          []ipc.PermissionRule `json:"rules"`
	AllowGitWrites *bool                `json:"allow_git_writes,omitempty"`
}

func (h hubMethods) getPermissionRules(ctx context.Context, raw json.RawMessage) (any, error) {
	var p rulesParams
	if err := DecodeParams(raw, &p); err != nil {
		return nil, err
	}
	rules, err := h.hub.PermissionRules(ctx, p.Workspace)
	return h.rulesResult(ctx, p.Workspace, rules, err)
}

func (h hubMethods) setPermissionRules(ctx context.Context, raw json.RawMessage) (any, error) {
	var p rulesParams
	if err := DecodeParams(raw, &p); err != nil {
		return nil, err
	}
	rules, err := h.hub.SetPermissionRules(ctx, p.Workspace, p.Rules)
	return h.rulesResult(ctx, p.Workspace, rules, err)
}

func (h hubMethods) rulesResult(ctx context.Context, ws string, rules []ipc.PermissionRule, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	res := RulesResult{Workspace: ws, Rules: nonNil(rules)}
	if g, ok := h.hub.(ipc.GitWritesAPI); ok {
		on, err := g.GitWrites(ctx, ws)
		if err != nil {
			return nil, err
		}
		res.AllowGitWrites = &on
	}
	return res, nil
}

type gitWritesParams struct {
	Workspace string `json:"workspace"`
	Allow     bool   `json:"allow"`
}

// GitWritesResult is the payload of setGitWrites.
type GitWritesResult struct {
	Workspace      string `json:"workspace"`
	AllowGitWrites bool   `json:"allow_git_writes"`
}

// setGitWrites turns git writes for a workspace's sandboxed bash on or off.
func (h hubMethods) setGitWrites(ctx context.Context, raw json.RawMessage) (any, error) {
	var p gitWritesParams
	if err := DecodeParams(raw, &p); err != nil {
		return nil, err
	}
	g, ok := h.hub.(ipc.GitWritesAPI)
	if !ok {
		return nil, Errorf(CodeMethodNotFound, "%s is not served here", MethodSetGitWrites)
	}
	on, err := g.SetGitWrites(ctx, p.Workspace, p.Allow)
	if err != nil {
		return nil, err
	}
	return GitWritesResult{Workspace: p.Workspace, AllowGitWrites: on}, nil
}

type sandboxParams struct {
	sessionParams
	ReadWorkspaceOnly bool  `json:"read_workspace_only"`
	Network           *bool `json:"network"`
}

// setSandboxOptions sets a session's bash sandbox options; network
// defaults to on.
func (h hubMethods) setSandboxOptions(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[sandboxParams](raw)
	if err != nil {
		return nil, err
	}
	noNetwork := p.Network != nil && !*p.Network
	return h.hub.SetSandboxOptions(ctx, id, p.ReadWorkspaceOnly, noNetwork)
}

// listPendingApprovals answers {approvals: [...]}: the session's waiting
// requests (tool.approval_requested payloads), oldest first.
func (h hubMethods) listPendingApprovals(ctx context.Context, raw json.RawMessage) (any, error) {
	_, id, err := decodeSession[sessionParams](raw)
	if err != nil {
		return nil, err
	}
	ps, err := h.hub.PendingApprovals(ctx, id)
	if err != nil {
		return nil, err
	}
	return map[string]any{"approvals": ps}, nil
}
