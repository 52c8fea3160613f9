package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"agenthub/app/agent"
	"agenthub/app/permission"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

// ApprovalSettings is optionally implemented by Settings: the default
// approval mode of new sessions (--approval-mode, approval_mode).
type ApprovalSettings interface {
	ApprovalMode() permission.Mode
}

// approvals holds the tool calls waiting for the user's answer, keyed by a
// key the hub mints per request (never the provider's id: two sessions may
// hold the same tool_use_id). approveTool finds a request by its session
// (or an ancestor's, for a worker's copy) and tool_use_id, which the
// session's CallIDs keep unique within a session tree.
type approvals struct {
	mu      sync.Mutex
	pending map[string]*pendingApproval
	seq     int
}

type pendingApproval struct {
	request   ipc.ToolApprovalRequested
	seq       int      // order of the requests
	sessionID string   // the call's session
	copies    []string // ancestor sessions that got a copy of the request
	call      permission.Call
	workspace string
	answer    chan ipc.ApproveToolRequest // buffered 1; written once
}

// defaultApprovalMode is the mode of a new session.
func (h *Hub) defaultApprovalMode() permission.Mode {
	if h.cfg.ApprovalMode != "" {
		return h.cfg.ApprovalMode
	}
	if as, ok := h.settings.(ApprovalSettings); ok && as != nil {
		return as.ApprovalMode()
	}
	return permission.ModeAsk
}

// approver is the agent.Approver of one turn of session s.
type approver struct {
	h *Hub
	s *session
	r *run
}

var _ agent.Approver = approver{}

// Approve decides the call by the precedence of app/permission and, for
// "ask", waits for approveTool (docs/permissions.md).
func (a approver) Approve(ctx context.Context, c agent.ApprovalCall) (*store.ToolApproval, error) {
	rec := a.s.record()
	mode, _ := permission.ParseMode(rec.ApprovalMode)
	if rec.ApprovalMode == "" {
		mode = a.h.defaultApprovalMode()
	}
	call := a.h.permissionCall(rec.WorkspacePath, c)
	d := permission.Decide(a.h.perms.Rules(rec.WorkspacePath), mode, call)
	switch d.Action {
	case permission.Allow:
		return nil, nil
	case permission.Deny:
		return nil, &agent.Denied{Message: "This tool call was refused: " + d.Reason + "."}
	}
	return a.wait(ctx, rec, c, call, d.Reason)
}

// permissionCall is what app/permission decides about c: bash's command
// line, the file a file tool writes, and the protected paths (.git
// directories, the data dir).
func (h *Hub) permissionCall(workspace string, c agent.ApprovalCall) permission.Call {
	var in struct {
		Command string `json:"command"`
		Path    string `json:"path"`
	}
	_ = json.Unmarshal(c.Input, &in)
	call := permission.Call{Tool: c.ToolName, Protected: permission.Protected{Workspace: workspace, Dirs: []string{h.cfg.DataDir}}}
	switch {
	case c.ToolName == "bash":
		call.Command = in.Command
	case permission.WritesFiles(c.ToolName):
		call.Writes = []string{in.Path}
	}
	return call
}

// wireRule and ruleOf convert between the wire's rule and app/permission's.
func wireRule(r permission.Rule) *ipc.PermissionRule {
	return &ipc.PermissionRule{Tool: r.Tool, Prefix: r.Prefix, Command: r.Command, Action: string(r.Action)}
}

func ruleOf(r ipc.PermissionRule) permission.Rule {
	return permission.Rule{Tool: r.Tool, Prefix: strings.TrimSpace(r.Prefix), Command: strings.TrimSpace(r.Command), Action: permission.Action(r.Action)}
}

// editContextLines is how many unchanged lines an edit's prompt shows on
// either side of the change.
const editContextLines = 3

// editContext places an edit_file call in its file as it is now (read
// through the tools' own confined open), for the prompt's diff; nil for
// other tools and for an edit that will fail.
func (h *Hub) editContext(workspace string, c agent.ApprovalCall) *ipc.EditContext {
	if c.ToolName != "edit_file" {
		return nil
	}
	spot, ok := tool.FindEdit(tool.Env{Workspace: workspace, Protected: h.protected()}, c.Input, editContextLines)
	if !ok {
		return nil
	}
	return &ipc.EditContext{StartLine: spot.Line, Old: spot.Old, New: spot.New,
		Before: nonNil(spot.Before), After: nonNil(spot.After)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// risk grades a call for the prompt.
func risk(tool string) string {
	switch {
	case tool == "bash":
		return ipc.RiskHigh
	case permission.Default(tool) == permission.Allow:
		return ipc.RiskLow
	}
	return ipc.RiskMedium
}

// wait announces the request, pauses the turn timeouts and blocks until an
// answer or the end of ctx; it returns the answer (stored with the call's
// result) and the Approver's error.
func (a approver) wait(ctx context.Context, rec store.Session, c agent.ApprovalCall, call permission.Call, reason string) (*store.ToolApproval, error) {
	h := a.h
	req := ipc.ToolApprovalRequested{ToolUseID: c.ToolUseID, ToolName: c.ToolName, Input: c.Input,
		StatusText: c.StatusText, Risk: risk(c.ToolName), Summary: c.Summary, Reason: reason,
		GitWritesOffer: h.gitWritesOffer(c.ToolName, rec.WorkspacePath),
		EditContext:    h.editContext(rec.WorkspacePath, c)}
	if r, ok := permission.AlwaysRule(call); ok {
		req.AlwaysRule = wireRule(r)
	}
	p := &pendingApproval{request: req, sessionID: rec.ID, call: call, workspace: rec.WorkspacePath, answer: make(chan ipc.ApproveToolRequest, 1)}
	p.copies = h.ancestors(rec.ParentSessionID)
	h.approvals.mu.Lock()
	if h.approvals.pending == nil {
		h.approvals.pending = map[string]*pendingApproval{}
	}
	h.approvals.seq++
	p.seq = h.approvals.seq
	key := agent.NewID()
	h.approvals.pending[key] = p
	h.approvals.mu.Unlock()
	h.announce(ctx, a.r.turn.ID, p, ipc.TypeToolApprovalRequested, func(worker string) any {
		r := req
		r.WorkerSessionID = worker
		return r
	}, +1)
	resume := h.pauseTimeouts(p)
	defer resume()

	var ans ipc.ApproveToolRequest
	select {
	case ans = <-p.answer:
	case <-ctx.Done():
		h.approvals.mu.Lock()
		delete(h.approvals.pending, key)
		h.approvals.mu.Unlock()
		ans = ipc.ApproveToolRequest{Decision: ipc.DecisionCancelled, By: ipc.ResolvedByCancel}
		if errors.Is(context.Cause(ctx), errShutdown) {
			ans.By = ipc.ResolvedByRestart // the app is stopping: turns do not resume
		}
	}
	var stored *ipc.PermissionRule
	if ans.Decision == ipc.DecisionAlways {
		stored = ans.Rule // checked by ApproveTool
	}
	h.announce(context.WithoutCancel(ctx), a.r.turn.ID, p, ipc.TypeToolApprovalResolved, func(worker string) any {
		return ipc.ToolApprovalResolved{ToolUseID: c.ToolUseID, Decision: ans.Decision, By: ans.By, Message: ans.Message, Rule: stored, WorkerSessionID: worker}
	}, -1)
	if ans.AllowGitWrites && (ans.Decision == ipc.DecisionOnce || ans.Decision == ipc.DecisionAlways) {
		h.gitGrants.grant(rec.ID, c.ToolUseID)
	}
	answered := &store.ToolApproval{Decision: ans.Decision, By: ans.By, Message: ans.Message}
	switch ans.Decision {
	case ipc.DecisionCancelled:
		return answered, ctx.Err()
	case ipc.DecisionDeny:
		msg := "The user denied this tool call."
		if m := strings.TrimSpace(ans.Message); m != "" {
			msg += " Their message: " + m
		}
		return answered, &agent.Denied{Message: msg}
	case ipc.DecisionAlways:
		if stored == nil {
			break
		}
		if err := h.perms.Add(p.workspace, ruleOf(*stored)); err != nil {
			h.log.Error("hub: storing an always-allow rule", "workspace", p.workspace, "rule", ruleOf(*stored).String(), "err", err)
		}
	}
	return answered, nil
}

// announce commits the event made by payload in the call's session and a
// copy (with worker_session_id) in each ancestor, each with session.updated
// carrying pending_approvals changed by delta.
func (h *Hub) announce(ctx context.Context, turnID string, p *pendingApproval, typ string, payload func(worker string) any, delta int) {
	targets := append([]string{p.sessionID}, p.copies...)
	for i, sid := range targets {
		s, err := h.lookup(sid)
		if err != nil {
			continue // an ancestor deleted meanwhile
		}
		worker, tid := "", turnID
		if i > 0 {
			// A copy belongs to the ancestor's running (delegating) turn,
			// so its recovery after a crash finds it.
			worker, tid = p.sessionID, ""
			h.mu.Lock()
			if s.running != nil {
				tid = s.running.turn.ID
			}
			h.mu.Unlock()
		}
		s.mu.Lock()
		s.rec.PendingApprovals = max(0, s.rec.PendingApprovals+delta)
		d := ipc.Draft{Type: typ, SessionID: sid, TurnID: tid, Actor: ipc.ActorTool, Payload: payload(worker)}
		_, err = h.bus.Commit(ctx, d, h.sessionDraft(s.rec, ipc.ActorTool))
		s.mu.Unlock()
		if err != nil {
			h.log.Error("hub: announcing an approval", "type", typ, "session", sid, "err", err)
		}
	}
}

// ancestors returns the chain of sessions above parent (parent first).
func (h *Hub) ancestors(parent string) []string {
	var out []string
	for depth := 0; parent != "" && depth < 64; depth++ {
		s, err := h.lookup(parent)
		if err != nil {
			break
		}
		out = append(out, parent)
		parent = s.record().ParentSessionID
	}
	return out
}

// pauseTimeouts stops the turn timeouts of the call's session and its
// ancestors (a delegating parent waits too) while the user decides: the
// wait does not count against --turn-timeout. It returns the resume.
func (h *Hub) pauseTimeouts(p *pendingApproval) func() {
	var runs []*run
	h.mu.Lock()
	for _, sid := range append([]string{p.sessionID}, p.copies...) {
		if s := h.sessions[sid]; s != nil && s.running != nil {
			r := s.running
			if r.waiting == 0 && r.timer != nil && r.timer.Stop() {
				r.remaining = time.Until(r.deadline)
			}
			r.waiting++
			runs = append(runs, r)
		}
	}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, r := range runs {
			if r.waiting--; r.waiting == 0 && r.timer != nil && r.remaining > 0 {
				r.deadline = time.Now().Add(r.remaining)
				r.timer.Reset(r.remaining)
				r.remaining = 0
			}
		}
	}
}

// ApproveTool implements ipc.HubAPI: it hands the answer to the waiting
// call. The session must be the call's or one that got its copy. An
// "always" answer stores req.Rule, or else the request's always_rule; the
// rule must be valid and allow the call on its own (permission.Covers).
func (h *Hub) ApproveTool(ctx context.Context, req ipc.ApproveToolRequest) error {
	switch req.Decision {
	case ipc.DecisionOnce, ipc.DecisionAlways, ipc.DecisionDeny:
	default:
		return fmt.Errorf("decision %q: want once, always or deny: %w", req.Decision, ipc.ErrInvalidInput)
	}
	h.approvals.mu.Lock()
	key, p, err := h.approvals.find(req.SessionID, req.ToolUseID)
	if err != nil {
		h.approvals.mu.Unlock()
		return err
	}
	if req.Decision == ipc.DecisionAlways {
		r, err := alwaysRule(p, req.Rule)
		if err != nil {
			h.approvals.mu.Unlock()
			return err
		}
		req.Rule = r
	}
	delete(h.approvals.pending, key)
	h.approvals.mu.Unlock()
	p.answer <- req
	return nil
}

// alwaysRule is the rule an "always" answer to p stores: edited (checked
// to be valid and to allow the call on its own) or the one shown.
func alwaysRule(p *pendingApproval, edited *ipc.PermissionRule) (*ipc.PermissionRule, error) {
	if edited == nil {
		if p.request.AlwaysRule == nil {
			return nil, fmt.Errorf("\"always\" is not available for this call: no rule covers it safely (answer once, or send a rule): %w", ipc.ErrInvalidInput)
		}
		return p.request.AlwaysRule, nil
	}
	r := ruleOf(*edited)
	if err := r.Check(); err != nil {
		return nil, fmt.Errorf("rule: %v: %w", err, ipc.ErrInvalidInput)
	}
	if !permission.Covers(r, p.call) {
		return nil, fmt.Errorf("rule %s does not allow this call on its own (it must be an allow rule for %s that covers the call): %w", r, p.call.Tool, ipc.ErrInvalidInput)
	}
	return wireRule(r), nil
}

// find returns the request for tool call toolUseID that sessionID may
// answer: the call's own session's first, then a copy in an ancestor.
// Called with a.mu held.
func (a *approvals) find(sessionID, toolUseID string) (string, *pendingApproval, error) {
	var own, copied []string
	for key, p := range a.pending {
		if p.request.ToolUseID != toolUseID {
			continue
		}
		switch {
		case p.sessionID == sessionID:
			own = append(own, key)
		case contains(p.copies, sessionID):
			copied = append(copied, key)
		}
	}
	keys := own
	if len(keys) == 0 {
		keys = copied
	}
	switch len(keys) {
	case 0:
		return "", nil, fmt.Errorf("no tool call %q of session %q is waiting for approval (unknown, already answered, or another session's): %w",
			toolUseID, sessionID, ipc.ErrInvalidInput)
	case 1:
		return keys[0], a.pending[keys[0]], nil
	}
	// CallIDs make this unreachable; refuse rather than guess.
	return "", nil, fmt.Errorf("tool call %q is waiting in %d sessions under session %q; answer it in its own session: %w",
		toolUseID, len(keys), sessionID, ipc.ErrInvalidInput)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// SetApprovalMode implements ipc.HubAPI.
func (h *Hub) SetApprovalMode(ctx context.Context, sessionID, mode string) (store.Session, error) {
	m, err := permission.ParseMode(mode)
	if err != nil || mode == "" {
		return store.Session{}, fmt.Errorf("mode %q: want ask, auto-edits or auto-all: %w", mode, ipc.ErrInvalidInput)
	}
	return h.updateRecord(ctx, sessionID, func(r *store.Session) { r.ApprovalMode = string(m) })
}

// PermissionRules implements ipc.HubAPI.
func (h *Hub) PermissionRules(_ context.Context, workspace string) ([]ipc.PermissionRule, error) {
	if strings.TrimSpace(workspace) == "" {
		return nil, fmt.Errorf("workspace is required: %w", ipc.ErrInvalidInput)
	}
	var out []ipc.PermissionRule
	for _, r := range h.perms.Rules(workspace) {
		out = append(out, *wireRule(r))
	}
	return out, nil
}

// SetPermissionRules implements ipc.HubAPI.
func (h *Hub) SetPermissionRules(ctx context.Context, workspace string, rules []ipc.PermissionRule) ([]ipc.PermissionRule, error) {
	if strings.TrimSpace(workspace) == "" {
		return nil, fmt.Errorf("workspace is required: %w", ipc.ErrInvalidInput)
	}
	var rs []permission.Rule
	for i, r := range rules {
		pr := ruleOf(r)
		if err := pr.Check(); err != nil {
			return nil, fmt.Errorf("rule %d: %v: %w", i, err, ipc.ErrInvalidInput)
		}
		rs = append(rs, pr)
	}
	if err := h.perms.Set(workspace, rs); err != nil {
		if errors.Is(err, ipc.ErrInvalidInput) {
			return nil, err
		}
		return nil, fmt.Errorf("storing the rules of %s: %w", workspace, err)
	}
	return h.PermissionRules(ctx, workspace)
}

// SetSandboxOptions implements ipc.HubAPI; the next bash call of the
// session runs with them.
func (h *Hub) SetSandboxOptions(ctx context.Context, sessionID string, readWorkspaceOnly, noNetwork bool) (store.Session, error) {
	return h.updateRecord(ctx, sessionID, func(r *store.Session) {
		r.SandboxReadWorkspaceOnly, r.SandboxNoNetwork = readWorkspaceOnly, noNetwork
	})
}

// updateRecord changes a session's record and commits session.updated.
func (h *Hub) updateRecord(ctx context.Context, sessionID string, change func(*store.Session)) (store.Session, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	s.mu.Lock()
	change(&s.rec)
	rec := s.rec
	_, err = h.bus.Commit(context.WithoutCancel(ctx), h.sessionDraft(rec, ipc.ActorUser))
	s.mu.Unlock()
	if err != nil {
		return store.Session{}, fmt.Errorf("updating session %s: %w", sessionID, err)
	}
	return rec, nil
}

// PendingApprovals implements ipc.HubAPI.
func (h *Hub) PendingApprovals(_ context.Context, sessionID string) ([]ipc.ToolApprovalRequested, error) {
	if _, err := h.lookup(sessionID); err != nil {
		return nil, err
	}
	h.approvals.mu.Lock()
	var ps []*pendingApproval
	for _, p := range h.approvals.pending {
		if p.sessionID == sessionID || contains(p.copies, sessionID) {
			ps = append(ps, p)
		}
	}
	h.approvals.mu.Unlock()
	slices.SortFunc(ps, func(a, b *pendingApproval) int { return a.seq - b.seq })
	out := []ipc.ToolApprovalRequested{}
	for _, p := range ps {
		r := p.request
		if p.sessionID != sessionID {
			r.WorkerSessionID = p.sessionID
		}
		out = append(out, r)
	}
	return out, nil
}
