package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

// dispatch runs the tool calls of one assistant message in parallel and
// stores a toolResult message for each. Every call is announced first, in
// the model's order (tool.called, or tool.failed for a call that cannot
// start), so the log's order never depends on goroutine scheduling; then
// the announced calls run in parallel. It reports false when the turn was
// cancelled (at the seam or mid-tool): every call that did not finish then
// has a tool.failed (error_class cancelled) and a synthetic result.
func (l *loop) dispatch(ctx context.Context, msgID string, calls []store.ContentBlock) bool {
	if l.BeforeTools != nil && ctx.Err() == nil {
		l.BeforeTools(ctx)
	}
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		cancelled = map[string]bool{}
		started   []*startedCall
	)
	for _, c := range calls {
		sc, wasCancelled := l.announce(ctx, msgID, c)
		if wasCancelled {
			cancelled[c.ID] = true
		}
		if sc != nil {
			started = append(started, sc)
		}
	}
	for _, sc := range started {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l.runTool(ctx, sc) {
				mu.Lock()
				cancelled[sc.call.ID] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() == nil && len(cancelled) == 0 {
		return true
	}
	// Keep the cancelled ids in call order for a stable turn.cancelled payload.
	for _, c := range calls {
		if cancelled[c.ID] {
			l.out.CancelledTools = append(l.out.CancelledTools, c.ID)
		}
	}
	l.out.Status = StatusCancelled
	return false
}

// startedCall is an announced call (tool.called emitted) about to run.
type startedCall struct {
	call            store.ContentBlock
	tool            tool.Tool
	input           json.RawMessage
	status, summary string
}

// announce emits tool.called for call and returns it ready to run; a call
// that cannot start (the turn was cancelled at the seam, an unknown tool)
// ends here with tool.failed, and nil is returned (cancelled reports the
// former).
func (l *loop) announce(ctx context.Context, msgID string, call store.ContentBlock) (sc *startedCall, cancelled bool) {
	input := call.Arguments
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	t, found := tool.Lookup(l.tools, call.Name)
	status, summary := fmt.Sprintf("Unknown tool %s", call.Name), ""
	if found {
		status, summary = t.Describe(input)
	}
	if ctx.Err() != nil {
		// §6.2.3: scheduled, never executed.
		l.failTool(call, ipc.ToolErrCancelled, l.cancelText(), "Cancelled: "+status, summary)
		return nil, true
	}
	if !found {
		l.failTool(call, ipc.ToolErrUnknownTool, fmt.Sprintf("unknown tool %q", call.Name), status, summary)
		return nil, false
	}
	l.emit(l.draft(ipc.TypeToolCalled, ipc.ActorTool, ipc.ToolCalled{
		ToolUseID: call.ID, ToolName: call.Name, Input: input, MessageID: msgID,
		StatusText: status, Summary: summary,
	}))
	return &startedCall{call: call, tool: t, input: input, status: status, summary: summary}, false
}

// runTool runs one announced call; it reports true when the call was
// cancelled (while it waited for approval or cut short while running).
func (l *loop) runTool(ctx context.Context, sc *startedCall) (cancelled bool) {
	call, t, input, status, summary := sc.call, sc.tool, sc.input, sc.status, sc.summary
	approval, run, cancelled := l.approve(ctx, call, input, status, summary)
	if !run {
		return cancelled
	}
	fail := func(class, message, status string) {
		l.failToolAnswered(call, class, message, status, summary, approval)
	}
	env := l.Env
	env.ToolUseID = call.ID
	var abandoned atomic.Bool
	env.Output = func(stream, text string) {
		if abandoned.Load() {
			return // the turn has moved on without this call
		}
		d := ipc.ToolOutputDelta{ToolUseID: call.ID, Stream: stream, Text: text}
		if stream == tool.StreamWorkerReset {
			d.Stream, d.Reset = "worker", true
		}
		l.emit(l.draft(ipc.TypeToolOutputDelta, ipc.ActorTool, d))
	}
	start := time.Now()
	res, err, ok := l.runBounded(ctx, t, env, input)
	if !ok {
		abandoned.Store(true)
		msg := fmt.Sprintf("%s did not stop within %s of the cancel (stuck in a system call?) and was abandoned", call.Name, l.toolGrace())
		l.Logger.Warn("agent: tool abandoned after cancel", "session", l.SessionID, "turn", l.TurnID, "tool", call.Name, "tool_use_id", call.ID, "grace", l.toolGrace())
		fail(ipc.ToolErrCancelled, l.cancelText()+"; "+msg, "Cancelled: "+status)
		return true
	}
	if err != nil {
		if ctx.Err() != nil {
			// §6.2.2: cut short by the turn's cancel (the tool killed its processes).
			fail(ipc.ToolErrCancelled, l.cancelText(), "Cancelled: "+status)
			return true
		}
		te := tool.AsError(err)
		fail(te.Class, te.Message, "Failed: "+status)
		return false
	}
	res = capResult(res, l.MaxResultBytes)
	if res.StatusText == "" {
		res.StatusText = status
	}
	if res.Summary == "" {
		res.Summary = summary
	}
	result := store.Message{
		ID: NewID(), SessionID: l.SessionID, TurnID: l.TurnID, Role: store.RoleToolResult,
		Content:    []store.ContentBlock{{Type: store.BlockText, Text: res.Output}},
		Status:     store.StatusComplete,
		ToolCallID: call.ID, ToolName: call.Name, IsError: res.IsError, CreatedAt: time.Now().UTC(),
		StatusText: res.StatusText, Summary: res.Summary, Approval: approval,
	}
	l.Recorder.Commit(l.draft(ipc.TypeToolCompleted, ipc.ActorTool, ipc.ToolCompleted{
		ToolUseID: call.ID, ToolName: call.Name, StatusText: res.StatusText, Summary: res.Summary,
		Output: res.Output, IsError: res.IsError, Truncated: res.Truncated, OutputBytes: res.OutputBytes,
		OutputPath: res.OutputPath, DurationMS: time.Since(start).Milliseconds(),
	}, store.PutMessage(result)), nil)
	return false
}

// approve asks the Approver (if any) whether call may run, and returns the
// user's answer when it asked. When the call may not run, it has ended
// (tool.failed: denied, or cancelled when the turn ended while it waited —
// then cancelled is true).
func (l *loop) approve(ctx context.Context, call store.ContentBlock, input json.RawMessage, status, summary string) (approval *store.ToolApproval, run, cancelled bool) {
	if l.Approver == nil {
		return nil, true, false
	}
	approval, err := l.Approver.Approve(ctx, ApprovalCall{ToolUseID: call.ID, ToolName: call.Name, Input: input, StatusText: status, Summary: summary})
	var denied *Denied
	switch {
	case err == nil:
		return approval, true, false
	case errors.As(err, &denied):
		l.failToolAnswered(call, ipc.ToolErrDenied, denied.Message, "Denied: "+status, summary, approval)
		return approval, false, false
	default: // the turn ended while the call waited: it never ran
		l.failToolAnswered(call, ipc.ToolErrCancelled, l.cancelText(), "Cancelled: "+status, summary, approval)
		return approval, false, true
	}
}

// runBounded runs t in its own goroutine and waits for it; once ctx ends it
// waits at most ToolGrace more. ok is false when the call was abandoned
// (still running after the grace): the caller must not wait on it again.
func (l *loop) runBounded(ctx context.Context, t tool.Tool, env tool.Env, input json.RawMessage) (res tool.Result, err error, ok bool) {
	type outcome struct {
		res tool.Result
		err error
	}
	done := make(chan outcome, 1) // buffered: an abandoned call still finishes its send
	go func() {
		r, e := t.Run(ctx, env, input)
		done <- outcome{r, e}
	}()
	select {
	case o := <-done:
		return o.res, o.err, true
	case <-ctx.Done():
	}
	grace := time.NewTimer(l.toolGrace())
	defer grace.Stop()
	select {
	case o := <-done:
		return o.res, o.err, true
	case <-grace.C:
		return tool.Result{}, nil, false
	}
}

func (l *loop) toolGrace() time.Duration {
	if l.ToolGrace > 0 {
		return l.ToolGrace
	}
	return DefaultToolGrace
}

// failTool commits tool.failed with the error result the model will see.
func (l *loop) failTool(call store.ContentBlock, class, message, status, summary string) {
	l.failToolAnswered(call, class, message, status, summary, nil)
}

// failToolAnswered is failTool for a call whose approval prompt was
// answered (approval is stored with the result).
func (l *loop) failToolAnswered(call store.ContentBlock, class, message, status, summary string, approval *store.ToolApproval) {
	msgStatus := store.StatusError
	if class == ipc.ToolErrCancelled {
		msgStatus = store.StatusCancelled
	}
	result := SyntheticResult(l.SessionID, l.TurnID, call, message, msgStatus)
	result.StatusText, result.Summary, result.Approval = status, summary, approval
	l.Recorder.Commit(l.draft(ipc.TypeToolFailed, ipc.ActorTool, ipc.ToolFailed{
		ToolUseID: call.ID, ToolName: call.Name, ErrorClass: class, Message: message,
		StatusText: status, Summary: summary,
	}, store.PutMessage(result)), nil)
}

// capResult limits res.Output to limit bytes: the first quarter and the rest
// from the end, cut at UTF-8 boundaries, around a marker saying how much was
// omitted. Truncated and OutputBytes (the full size) are set when it cuts.
func capResult(res tool.Result, limit int) tool.Result {
	out := res.Output
	if len(out) <= limit {
		return res
	}
	head := limit / 4
	tail := limit - head
	for head > 0 && !utf8.RuneStart(out[head]) {
		head--
	}
	start := len(out) - tail
	for start < len(out) && !utf8.RuneStart(out[start]) {
		start++
	}
	res.Output = fmt.Sprintf("%s\n[… %d bytes omitted …]\n%s", out[:head], start-head, out[start:])
	res.Truncated = true
	res.OutputBytes = max(res.OutputBytes, int64(len(out)))
	return res
}
