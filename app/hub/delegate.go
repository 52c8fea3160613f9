package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"agenthub/app/agent"
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
}

// Delegate starts a worker session (ParentSessionID, Depth+1, the parent's
// workspace and model) and runs one turn in it with task (and taskContext)
// as the user message, streaming the worker's text to env.Output("worker").
// On the parent it emits delegate.started, then delegate.completed with the
// worker's final text, or delegate.failed (depth_exceeded, cancelled_by_user,
// timeout, error). Cancelling ctx (the parent's turn) cancels the worker.
func (d *delegator) Delegate(ctx context.Context, env tool.Env, task, taskContext string) (string, error) {
	h := d.h
	parent, err := h.lookup(d.sessionID)
	if err != nil {
		return "", &tool.Error{Class: errclass.ToolExec, Message: err.Error()}
	}
	prec := parent.record()
	pr := &recorder{h: h, s: parent}
	status := "Starting sub-agent: " + firstLine(task)
	depth := prec.Depth + 1
	proute, _ := h.route(ctx, prec)
	fail := func(workerID, mode, msg string) {
		pr.Emit(d.draft(ipc.TypeDelegateFailed, ipc.DelegateFailed{
			ToolUseID: env.ToolUseID, WorkerSessionID: workerID, FailureMode: mode, Message: msg,
			StatusText: "Sub-agent failed: " + mode, Summary: "**Sub-agent failed** (" + mode + "): " + msg + "\n",
		}), nil)
	}
	if depth > h.cfg.MaxDelegationDepth {
		msg := fmt.Sprintf("delegation depth limit reached: a depth-%d session may not start workers (limit %d)", prec.Depth, h.cfg.MaxDelegationDepth)
		fail("", ipc.FailureDepthExceeded, msg)
		return "", &tool.Error{Class: errclass.ToolExec, Message: msg}
	}
	worker := store.Session{
		ID: agent.NewID(), Title: "Worker: " + firstLine(task), WorkspacePath: prec.WorkspacePath,
		ActiveModel: proute.Model, ParentSessionID: prec.ID, Depth: depth, CreatedAt: time.Now().UTC(),
	}
	if _, err := h.createSession(context.WithoutCancel(ctx), worker); err != nil {
		fail("", ipc.FailureError, err.Error())
		return "", &tool.Error{Class: errclass.ToolExec, Message: err.Error()}
	}
	pr.Emit(d.draft(ipc.TypeDelegateStarted, ipc.DelegateStarted{
		ToolUseID: env.ToolUseID, WorkerSessionID: worker.ID, Task: task, Depth: depth,
		StatusText: status, Summary: delegationSummary(task, taskContext),
	}), nil)

	content := task
	if strings.TrimSpace(taskContext) != "" {
		content += "\n\nContext:\n" + taskContext
	}
	h.mu.Lock()
	ws := h.sessions[worker.ID]
	if h.closed || ws == nil {
		h.mu.Unlock()
		fail(worker.ID, ipc.FailureError, "hub is closing")
		return "", &tool.Error{Class: errclass.ToolExec, Message: "hub is closing"}
	}
	t, _, err := h.enqueueLocked(ctx, ws, content)
	if err == nil {
		ws.queue = ws.queue[:len(ws.queue)-1] // runs here, not from the queue
	}
	var r *run
	if err == nil {
		r = h.newRunLocked(ws, t, ctx)
	}
	h.mu.Unlock()
	if err != nil {
		fail(worker.ID, ipc.FailureError, err.Error())
		return "", &tool.Error{Class: errclass.ToolExec, Message: err.Error()}
	}
	out := h.runTurn(r, ws, func(text string) {
		if env.Output != nil {
			env.Output("worker", text)
		}
	})
	switch out.Status {
	case agent.StatusCompleted:
		pr.Emit(d.draft(ipc.TypeDelegateCompleted, ipc.DelegateCompleted{
			ToolUseID: env.ToolUseID, WorkerSessionID: worker.ID, Success: true, Result: out.FinalText,
			StatusText: "Sub-agent completed", Summary: "**Sub-agent result:**\n\n" + out.FinalText + "\n",
		}), nil)
		return out.FinalText, nil
	case agent.StatusCancelled:
		mode, msg := ipc.FailureCancelledByUser, "the sub-agent was cancelled"
		if errors.Is(context.Cause(r.ctx), errTimeout) {
			mode, msg = ipc.FailureTimeout, "the sub-agent's turn timed out"
		}
		fail(worker.ID, mode, msg)
		return "", &tool.Error{Class: errclass.ToolCancelled, Message: msg}
	default:
		msg := fmt.Sprintf("the sub-agent failed (%s): %s", out.ErrorClass, out.Error)
		fail(worker.ID, ipc.FailureError, msg)
		return "", &tool.Error{Class: errclass.ToolExec, Message: msg}
	}
}

func (d *delegator) draft(typ string, payload any) ipc.Draft {
	return ipc.Draft{Type: typ, SessionID: d.sessionID, TurnID: d.turnID, Actor: ipc.ActorTool, Payload: payload}
}

// delegationSummary is seed 004's delegation_call detail.
func delegationSummary(task, taskContext string) string {
	var b strings.Builder
	b.WriteString("**Sub-agent** with the same tools and workspace\n\n**Task:**\n\n")
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
