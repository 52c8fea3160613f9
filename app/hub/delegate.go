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
		ApprovalMode: prec.ApprovalMode, // a worker asks as its parent does
	}
	if _, err := h.createSession(context.WithoutCancel(ctx), worker); err != nil {
		return fail("", ipc.FailureError, err.Error(), errclass.ToolExec)
	}
	pr.Emit(d.draft(ipc.TypeDelegateStarted, ipc.DelegateStarted{
		ToolUseID: env.ToolUseID, WorkerSessionID: worker.ID, Task: task, Depth: depth,
		StatusText: "Starting sub-agent: " + firstLine(task), Summary: delegationSummary(task, taskContext),
	}), nil)
	r, ws, err := h.startWorkerTurn(ctx, worker.ID, workerMessage(task, taskContext))
	if err != nil {
		return fail(worker.ID, ipc.FailureError, err.Error(), errclass.ToolExec)
	}
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
	t, _, err := h.enqueueLocked(ctx, ws, "", content, []store.ContentBlock{{Type: store.BlockText, Text: content}})
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
