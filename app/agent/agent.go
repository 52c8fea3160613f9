// Package agent runs the loop of one turn: an LLM call streamed into
// canonical events, the tool calls of the resulting assistant message run in
// parallel, their results fed to the next call, until the model stops asking
// for tools. It turns app/llm's Sink callbacks and app/tool's results into
// ipc drafts (seed 001 §5, §6; seed 004) and stores every message once, when
// it is final (seed 002). The hub owns sessions, turn lifecycle events
// (turn.started / turn.completed / turn.cancelled), routing and compaction.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"agenthub/app/llm"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/ipc/errclass"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// Recorder is where the loop sends its events; the hub implements it.
// Drafts from one goroutine keep their order. Implementations log failures
// (a closed bus) rather than returning them: the loop cannot do better.
type Recorder interface {
	// Emit enqueues d and returns at once. When mutate is non-nil it is
	// applied to the hub's authoritative copy of the session record and d
	// carries a PutSession op of the result, atomically with respect to other
	// session updates.
	Emit(d ipc.Draft, mutate func(*store.Session))
	// Commit is Emit that returns once d is durable, so the store ops it
	// carries are visible to later reads.
	Commit(d ipc.Draft, mutate func(*store.Session))
}

// ProviderSource hands out LLM providers by name; *llm.Registry implements it.
type ProviderSource interface {
	Provider(name string) (llm.Provider, error)
}

// ContextFunc returns the system prompt and the messages the next LLM call
// sees (the hub compacts here when needed). It is called before every call.
type ContextFunc func(ctx context.Context) (system string, messages []store.Message, err error)

// Config is one turn's loop.
type Config struct {
	SessionID string
	TurnID    string
	// Model is "provider:model" as decided by routing.
	Model     string
	Providers ProviderSource
	Tools     []tool.Tool
	// ExtraTools, if set, is called before every LLM call for tools offered
	// besides Tools (MCP servers' tools, which come and go); a call is
	// dispatched against the set offered to the LLM call that made it.
	ExtraTools func() []tool.Tool
	// Offered, if set, is asked before every LLM call which of the tools
	// to describe to the model (a turn restricted by a custom command, a
	// named sub-agent's tools, present_plan only in plan mode). A call of
	// a tool not offered is still dispatched: the Approver refuses it.
	Offered func(name string) bool
	// StartCalls are tool calls made for the user before the model's first
	// step (a custom command's shell lines, a delegation to the sub-agent
	// the message addressed): one assistant message holding them, each
	// announced, approved and run as the model's calls are.
	StartCalls []store.StartCall
	// Env is the tools' environment (Workspace, OutputDir); ToolUseID and
	// Output are filled per call.
	Env      tool.Env
	Context  ContextFunc
	Recorder Recorder
	// MaxTokens caps each call's output (0: the llm default).
	MaxTokens int
	// ThinkingBudget > 0 asks the model for extended thinking with this many
	// tokens (llm.Request.ThinkingBudget); 0 disables it.
	ThinkingBudget int
	// MaxAttempts bounds the attempts of one LLM call (retries of
	// retriable errors); 0 means 4.
	MaxAttempts int
	// MaxSteps bounds the LLM calls of one turn; 0 means 100.
	MaxSteps int
	// MaxResultBytes caps the tool output the model sees (and the stored
	// toolResult): a longer output keeps its first quarter and its end around
	// an omission marker, and tool.completed reports truncated with the full
	// size. 0 means DefaultMaxResultBytes. The built-in tools cap their own
	// output below this; the cap guards against any tool that does not.
	MaxResultBytes int
	// ToolGrace is how long a tool call may keep running after the turn's
	// context ends (cancel, timeout, shutdown) before it is abandoned: the
	// turn ends and the call is reported cancelled, its goroutine left to
	// finish on its own (its output is dropped). 0 means DefaultToolGrace.
	ToolGrace time.Duration
	// StallNotice is how long an LLM call's stream may deliver nothing
	// before llm.call_stalled is emitted (and again every StallNotice while
	// it stays silent); 0 means DefaultStallNotice.
	StallNotice time.Duration
	// Backoff returns the wait before retry number attempt; nil means llm.Backoff.
	Backoff func(attempt int, retryAfter time.Duration) time.Duration
	// OnText, if set, receives every text delta of the turn's assistant
	// messages (delegation streams a worker's text to its parent with it).
	OnText func(text string)
	// OnReset, if set, is called when a retried model call streams its
	// message again (message.reset): the text given to OnText for that
	// message is void.
	OnReset func()
	// BeforeTools, if set, is called after llm.call_completed and before the
	// message's tool calls are dispatched (the §6.2.3 seam). Tests hold it.
	BeforeTools func(ctx context.Context)
	// CancelText is the text of the synthetic tool results of cancelled
	// tool calls; "" means "cancelled by user".
	CancelText func(ctx context.Context) string
	// Approver, if set, is asked before each tool call runs (after
	// tool.called); nil runs every call.
	Approver Approver
	// CallIDs names the tool calls (their tool_use_ids); nil means a namer
	// that knows only this loop's calls.
	CallIDs *CallIDs
	Logger  *slog.Logger
}

// Outcome statuses.
const (
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// Outcome is how a turn's loop ended. The hub turns it into turn.completed
// (completed, failed) or turn.cancelled (cancelled).
type Outcome struct {
	Status     string
	StopReason string
	// Usage sums every LLM call of the loop (retries included).
	Usage store.Usage
	// FinalText is the text of the last assistant message.
	FinalText  string
	ErrorClass string
	Error      string
	// Attempts is how many attempts the LLM call that failed the turn
	// made (0 when the turn failed without one).
	Attempts int
	// PartialMessageID is the assistant message cut short by a cancel.
	PartialMessageID string
	// CancelledTools are the tool_use ids cancelled (running or pending).
	CancelledTools []string
}

// DefaultToolGrace is the default Config.ToolGrace: longer than bash's
// TERM-to-KILL grace, so a tool that stops normally is never abandoned.
const DefaultToolGrace = 5 * time.Second

// DefaultMaxResultBytes is the default Config.MaxResultBytes (read_file's
// own cap, the largest of the built-in tools).
const DefaultMaxResultBytes = 256 << 10

// NewID returns a fresh ULID string (message, call and tool ids).
func NewID() string { return ulid.Make().String() }

type loop struct {
	Config
	ctx   context.Context // the turn's context (for its cancel cause)
	out   Outcome
	steps int
	tools []tool.Tool // offered to the current step's LLM call
}

// Run runs the loop until the model stops calling tools, a call fails for
// good, or ctx is cancelled; it never returns early without emitting the
// events of the case that ended it (seed 001 §6.2, §9.1).
func Run(ctx context.Context, c Config) Outcome {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 4
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = 100
	}
	if c.MaxResultBytes <= 0 {
		c.MaxResultBytes = DefaultMaxResultBytes
	}
	if c.Backoff == nil {
		c.Backoff = llm.Backoff
	}
	if c.StallNotice <= 0 {
		c.StallNotice = DefaultStallNotice
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.CancelText == nil {
		c.CancelText = func(context.Context) string { return "cancelled by user" }
	}
	if c.CallIDs == nil {
		c.CallIDs = NewCallIDs(nil, false)
	}
	l := &loop{Config: c, ctx: ctx}
	l.run(ctx)
	return l.out
}

func (l *loop) run(ctx context.Context) {
	if len(l.StartCalls) > 0 && !l.startCalls(ctx) {
		return
	}
	for {
		if ctx.Err() != nil {
			l.out.Status = StatusCancelled
			return
		}
		if l.steps >= l.MaxSteps {
			l.fail("step_limit", fmt.Sprintf("the turn stopped after %d model calls without finishing", l.MaxSteps))
			return
		}
		l.steps++
		l.setTools()
		system, msgs, err := l.Context(ctx)
		if err != nil {
			if ctx.Err() != nil {
				l.out.Status = StatusCancelled
				return
			}
			l.fail("internal", fmt.Sprintf("loading the session context: %v", err))
			return
		}
		msg, ok := l.call(ctx, system, msgs)
		if !ok {
			return
		}
		l.out.FinalText = store.TextOf(msg.Content)
		l.out.StopReason = msg.StopReason
		calls := toolCalls(msg.Content)
		if len(calls) == 0 {
			l.out.Status = StatusCompleted
			return
		}
		if !l.dispatch(ctx, msg.ID, calls) {
			return
		}
	}
}

// setTools sets the tools of the next step: Tools and ExtraTools.
func (l *loop) setTools() {
	l.tools = l.Tools
	if l.ExtraTools != nil {
		l.tools = append(append([]tool.Tool{}, l.Tools...), l.ExtraTools()...)
	}
}

// offered is the part of the step's tools described to the model.
func (l *loop) offered() []tool.Tool {
	if l.Offered == nil {
		return l.tools
	}
	var out []tool.Tool
	for _, t := range l.tools {
		if l.Offered(t.Name()) {
			out = append(out, t)
		}
	}
	return out
}

// startCalls makes the turn's StartCalls before the first step: one
// assistant message holding them (as the model's calls are stored, under
// ids the loop mints), then dispatched as the model's are. It reports
// false when the turn was cancelled.
func (l *loop) startCalls(ctx context.Context) bool {
	if ctx.Err() != nil {
		l.out.Status = StatusCancelled
		return false
	}
	l.setTools()
	sink := &streamSink{l: l, msgID: NewID(), attempt: 1}
	content := make([]store.ContentBlock, len(l.StartCalls))
	for i, c := range l.StartCalls {
		input := c.Input
		if len(input) == 0 {
			input = []byte(`{}`)
		}
		sink.ToolUseStart(i, "", c.Tool)
		sink.ToolUseEnd(i, "", input)
		content[i] = store.ContentBlock{Type: store.BlockToolCall, Name: c.Tool, Arguments: input}
	}
	m := sink.complete(content, store.Usage{}, store.StatusComplete, "tool_use")
	return l.dispatch(ctx, m.ID, toolCalls(m.Content))
}

func (l *loop) fail(class, message string) {
	l.out.Status = StatusFailed
	l.out.ErrorClass = class
	l.out.Error = message
}

// draft returns a draft of this turn.
func (l *loop) draft(typ, actor string, payload any, ops ...store.Op) ipc.Draft {
	return ipc.Draft{Type: typ, SessionID: l.SessionID, TurnID: l.TurnID, Actor: actor, Payload: payload, Ops: ops}
}

// toolCalls returns the toolCall blocks of content, in order.
func toolCalls(content []store.ContentBlock) []store.ContentBlock {
	var out []store.ContentBlock
	for _, c := range content {
		if c.Type == store.BlockToolCall {
			out = append(out, c)
		}
	}
	return out
}

// SyntheticResult is the error toolResult message that closes a tool call
// which never produced a result, keeping the history valid for the next
// provider request. status says why: store.StatusCancelled (user cancel,
// timeout), store.StatusInterrupted (crash recovery) or store.StatusError
// (the call was refused or failed before producing output).
func SyntheticResult(sessionID, turnID string, call store.ContentBlock, text, status string) store.Message {
	return store.Message{
		ID:         NewID(),
		SessionID:  sessionID,
		TurnID:     turnID,
		Role:       store.RoleToolResult,
		Content:    []store.ContentBlock{{Type: store.BlockText, Text: text}},
		Status:     status,
		ToolCallID: call.ID,
		ToolName:   call.Name,
		IsError:    true,
		CreatedAt:  time.Now().UTC(),
	}
}

// llmError returns err as an *llm.Error, classifying foreign errors.
func llmError(ctx context.Context, err error) *llm.Error {
	if ctx.Err() != nil {
		msg := "cancelled"
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			msg = "cancelled: " + c.Error()
		}
		return &llm.Error{Class: errclass.Cancelled, Message: msg}
	}
	if e, ok := llm.AsError(err); ok {
		return e
	}
	return &llm.Error{Class: errclass.Network, Message: err.Error(), Retriable: true}
}

// emit enqueues d without a session update.
func (l *loop) emit(d ipc.Draft) { l.Recorder.Emit(d, nil) }

// cancelText is the synthetic result text of cancelled tool calls.
func (l *loop) cancelText() string { return l.CancelText(l.ctx) }
