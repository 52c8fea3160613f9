package ipc

// Event types of the bus family: persisted and replayable for --event-retention.
const (
	TypeTurnStarted      = "turn.started"
	TypeRouteDecided     = "route.decided"
	TypeLLMCallStarted   = "llm.call_started"
	TypeLLMCallCompleted = "llm.call_completed"
	TypeLLMCallFailed    = "llm.call_failed"
	// TypeLLMCallStalled says an LLM call's stream has delivered nothing
	// for idle_ms; repeated every few seconds while it stays silent.
	TypeLLMCallStalled = "llm.call_stalled"
	TypeToolCalled     = "tool.called"
	TypeToolCompleted  = "tool.completed"
	TypeToolFailed     = "tool.failed"
	// The approval of an asked tool call (docs/permissions.md).
	TypeToolApprovalRequested = "tool.approval_requested"
	TypeToolApprovalResolved  = "tool.approval_resolved"
	TypeTurnCompleted         = "turn.completed"
	TypeTurnCancelled         = "turn.cancelled"
	TypeDelegateStarted       = "delegate.started"
	TypeDelegateCompleted     = "delegate.completed"
	TypeDelegateFailed        = "delegate.failed"
	TypeCompactionStarted     = "compaction.started"
	TypeCompactionComplete    = "compaction.completed"
	TypeSessionCreated        = "session.created"
	TypeSessionUpdated        = "session.updated"
	TypeBusHandlerWarning     = "bus.handler_warning"
	// TypeMCPServerStatus reports a change of an MCP server's state into
	// the sessions it serves that are watched or running (docs/mcp.md).
	TypeMCPServerStatus = "mcp.server_status"
	// TypeTurnUndone says the file changes of a turn were undone: which
	// files were restored and which were left alone, and why.
	TypeTurnUndone = "turn.undone"
	// TypeSessionBranched says the session's current path changed
	// (regenerate, edit and resend, branch switch): clients read the
	// session's messages again (docs/branching.md).
	TypeSessionBranched = "session.branched"
	// TypeSessionForked says a new session was made from this one's path.
	TypeSessionForked = "session.forked"
	// TypeTodoUpdated carries the session's todo list after a change (the
	// model's todo_write or the user's edit; docs/workflows.md).
	TypeTodoUpdated = "todo.updated"
)

// Event types of the streaming family: also in the log, but replayable only
// for --delta-retention after their message completes.
const (
	TypeMessageStart = "message.start"
	// TypeMessageReset says a retried LLM call streams its message again:
	// the content streamed so far for the message is void, the deltas that
	// follow are the new attempt's (one message per model call).
	TypeMessageReset      = "message.reset"
	TypeTextDelta         = "text.delta"
	TypeThinkingDelta     = "thinking.delta"
	TypeToolUseStart      = "tool.use_start"
	TypeToolUseInputDelta = "tool.use_input_delta"
	TypeToolUseEnd        = "tool.use_end"
	TypeToolOutputDelta   = "tool.output_delta"
	TypeMessageComplete   = "message.complete"
)

// Tier says how long an event type stays replayable.
type Tier int

const (
	// TierBus events are kept for --event-retention.
	TierBus Tier = iota + 1
	// TierStreaming events are kept for --delta-retention after their
	// message (or tool call) completes.
	TierStreaming
)

// Actors: who caused an event. The set is closed; filters are validated against it.
const (
	ActorUser   = "user"   // submissions and cancels
	ActorAgent  = "agent"  // the session's agent loop: turns, LLM calls, messages
	ActorTool   = "tool"   // tool execution
	ActorSystem = "system" // sessions, compaction, bus warnings, recovery
)

// BusTypes lists the bus family in catalog order.
var BusTypes = []string{
	TypeTurnStarted, TypeRouteDecided, TypeLLMCallStarted, TypeLLMCallCompleted,
	TypeLLMCallFailed, TypeLLMCallStalled, TypeToolCalled, TypeToolCompleted, TypeToolFailed,
	TypeToolApprovalRequested, TypeToolApprovalResolved, TypeTurnCompleted, TypeTurnCancelled, TypeDelegateStarted, TypeDelegateCompleted,
	TypeDelegateFailed, TypeCompactionStarted, TypeCompactionComplete,
	TypeSessionCreated, TypeSessionUpdated, TypeBusHandlerWarning, TypeMCPServerStatus, TypeTurnUndone,
	TypeSessionBranched, TypeSessionForked, TypeTodoUpdated,
}

// StreamingTypes lists the streaming family in stream order.
var StreamingTypes = []string{
	TypeMessageStart, TypeMessageReset, TypeTextDelta, TypeThinkingDelta, TypeToolUseStart,
	TypeToolUseInputDelta, TypeToolUseEnd, TypeToolOutputDelta, TypeMessageComplete,
}

// Actors lists every valid actor.
var Actors = []string{ActorUser, ActorAgent, ActorTool, ActorSystem}

// TierOf reports the tier of an event type and whether the type is known.
func TierOf(eventType string) (Tier, bool) {
	for _, t := range BusTypes {
		if t == eventType {
			return TierBus, true
		}
	}
	for _, t := range StreamingTypes {
		if t == eventType {
			return TierStreaming, true
		}
	}
	return 0, false
}
