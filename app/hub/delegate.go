package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"agenthub/app/agent"
	"agenthub/app/permission"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// delegator implements tool.Delegator for one turn of one session.
type delegator struct {
	h         *Hub
	sessionID string
	turnID    string
	r         *run // the delegating turn
}

// Delegate starts a worker session (ParentSessionID, Depth+1, the parent's
// workspace and model) and runs one turn in it with the task (and its
// context) as the user message, streaming the worker's text to
// env.Output("worker"). A named sub-agent's worker (req.Agent, from the
// turn's definitions) runs with its instructions, its model when one is
// configured, and only its tools — never more than the delegating turn
// may use. On the parent it emits delegate.started, then
// delegate.completed with the worker's final text, or delegate.failed
// (depth_exceeded, cancelled_by_user, timeout, error). Cancelling ctx (the
// parent's turn) cancels the worker.
func (d *delegator) Delegate(ctx context.Context, env tool.Env, req tool.DelegateRequest) (string, error) {
	task, taskContext := req.Task, req.Context
	h := d.h
	parent, err := h.lookup(d.sessionID)
	if err != nil {
		return "", &tool.Error{Class: errclass.ToolExec, Message: err.Error()}
	}
	prec := parent.record()
	pr := &recorder{h: h, s: parent}
	depth := prec.Depth + 1
	proute, _ := h.route(ctx, prec)
	// fail emits delegate.failed and returns the tool's error.
	fail := func(workerID, mode, msg, class string) (string, error) {
		pr.Emit(d.draft(ipc.TypeDelegateFailed, ipc.DelegateFailed{
			ToolUseID: env.ToolUseID, WorkerSessionID: workerID, FailureMode: mode, Message: msg,
			StatusText: "Sub-agent failed: " + mode, Summary: "**Sub-agent failed** (" + mode + "): " + msg + "\n",
		}), nil)
		return "", &tool.Error{Class: class, Message: msg}
	}
	if depth > h.cfg.MaxDelegationDepth {
		msg := fmt.Sprintf("delegation depth limit reached: a depth-%d session may not start workers (limit %d)", prec.Depth, h.cfg.MaxDelegationDepth)
		return fail("", ipc.FailureDepthExceeded, msg, errclass.ToolExec)
	}
	worker := store.Session{
		ID: agent.NewID(), Title: "Worker: " + firstLine(task), WorkspacePath: prec.WorkspacePath,
		ActiveModel: proute.Model, ParentSessionID: prec.ID, Depth: depth, CreatedAt: time.Now().UTC(),
		ApprovalMode: prec.ApprovalMode, // a worker asks as its parent does (and plans in plan mode)
	}
	wf := workflow{restrict: d.r.wf.restrict}
	if req.Agent != "" {
		a, ok := d.r.wf.defs.Agent(req.Agent)
		if !ok {
			return fail("", ipc.FailureError, fmt.Sprintf("there is no sub-agent %q (the choices are in delegate's agent list)", req.Agent), errclass.ToolInvalidInput)
		}
		worker.Title = "Worker (" + a.Name + "): " + firstLine(task)
		worker.Agent = &store.SessionAgent{Name: a.Name, Path: a.Path, Tools: a.Tools, Model: a.Model}
		if a.Mode != "" { // the agent's permissionMode narrows its parent's, never widens it
			worker.ApprovalMode = string(permission.Narrowest(h.mode(prec), permission.Mode(a.Mode)))
		}
		if a.Model != "" {
			if ok, _ := h.modelConfigured(a.Model); ok {
				worker.ActiveModel = a.Model
			}
		}
		wf = workflow{restrict: a.Tools.Within(d.r.wf.restrict), agentName: a.Name, agentPrompt: a.Prompt}
	}
	if _, err := h.createSession(context.WithoutCancel(ctx), worker); err != nil {
		return fail("", ipc.FailureError, err.Error(), errclass.ToolExec)
	}
	pr.Emit(d.draft(ipc.TypeDelegateStarted, ipc.DelegateStarted{
		ToolUseID: env.ToolUseID, WorkerSessionID: worker.ID, Task: task, Depth: depth,
		StatusText: "Starting sub-agent: " + firstLine(task), Summary: delegationSummary(task, taskContext, worker.Agent),
	}), nil)
	r, ws, err := h.startWorkerTurn(ctx, worker.ID, workerMessage(task, taskContext))
	if err != nil {
		return fail(worker.ID, ipc.FailureError, err.Error(), errclass.ToolExec)
	}
	r.wf = wf // startWorkflow adds the definitions as the turn starts
	out := h.runTurn(r, ws, env.Output)
	switch out.Status {
	case agent.StatusCompleted:
		pr.Emit(d.draft(ipc.TypeDelegateCompleted, ipc.DelegateCompleted{
			ToolUseID: env.ToolUseID, WorkerSessionID: worker.ID, Success: true, Result: out.FinalText,
			StatusText: "Sub-agent completed", Summary: "**Sub-agent result:**\n\n" + out.FinalText + "\n",
		}), nil)
		return out.FinalText, nil
	case agent.StatusCancelled:
		if errors.Is(context.Cause(r.ctx), errTimeout) {
			return fail(worker.ID, ipc.FailureTimeout, "the sub-agent's turn timed out", errclass.ToolCancelled)
		}
		return fail(worker.ID, ipc.FailureCancelledByUser, "the sub-agent was cancelled", errclass.ToolCancelled)
	default:
		msg := fmt.Sprintf("the sub-agent failed (%s): %s", out.ErrorClass, out.Error)
		return fail(worker.ID, ipc.FailureError, msg, errclass.ToolExec)
	}
}

// workerMessage is the worker's user message: the task, and the context
// when given.
func workerMessage(task, taskContext string) string {
	if strings.TrimSpace(taskContext) != "" {
		return task + "\n\nContext:\n" + taskContext
	}
	return task
}

// startWorkerTurn queues content as a turn of the worker session and
// claims it to run in the delegating goroutine rather than from the queue.
func (h *Hub) startWorkerTurn(ctx context.Context, workerID, content string) (*run, *session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := h.sessions[workerID]
	if h.closed || ws == nil {
		return nil, nil, errors.New("hub is closing")
	}
	t, _, err := h.enqueueLocked(ctx, ws, "", content, []store.ContentBlock{{Type: store.BlockText, Text: content}}, nil)
	if err != nil {
		return nil, nil, err
	}
	ws.queue = ws.queue[:len(ws.queue)-1] // runs here, not from the queue
	return h.newRunLocked(ws, t, ctx), ws, nil
}

func (d *delegator) draft(typ string, payload any) ipc.Draft {
	return ipc.Draft{Type: typ, SessionID: d.sessionID, TurnID: d.turnID, Actor: ipc.ActorTool, Payload: payload}
}

// delegationSummary is seed 004's delegation_call detail.
func delegationSummary(task, taskContext string, a *store.SessionAgent) string {
	var b strings.Builder
	switch {
	case a == nil:
		b.WriteString("**Sub-agent** with the same tools and workspace\n\n**Task:**\n\n")
	case len(a.Tools) > 0:
		b.WriteString("**Sub-agent `" + a.Name + "`** with the tools " + strings.Join(a.Tools, ", ") + "\n\n**Task:**\n\n")
	default:
		b.WriteString("**Sub-agent `" + a.Name + "`** with the same tools and workspace\n\n**Task:**\n\n")
	}
	b.WriteString(quote(task))
	if strings.TrimSpace(taskContext) != "" {
		b.WriteString("\n**Context provided:**\n\n")
		ctx := taskContext
		if len(ctx) > 500 {
			ctx = ctx[:500] + "…"
		}
		b.WriteString(quote(ctx))
	}
	return b.String()
}

// quote renders text as a markdown block quote.
func quote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return "> " + strings.Join(lines, "\n> ") + "\n"
}

// firstLine is the first line of s, at most 80 runes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}
