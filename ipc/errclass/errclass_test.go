package errclass_test

import (
	"testing"

	"agenthub/ipc"
	"agenthub/ipc/errclass"
)

// The classes are wire names clients match on: this pins the whole set,
// and that ipc's payload constants are these very values.
func TestClassesAreTheWireNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{errclass.Auth, "auth"},
		{errclass.RateLimit, "rate_limit"},
		{errclass.Overloaded, "overloaded"},
		{errclass.Server, "server"},
		{errclass.Network, "network"},
		{errclass.Timeout, "timeout"},
		{errclass.InvalidRequest, "invalid_request"},
		{errclass.ContextOverflow, "context_overflow"},
		{errclass.Cancelled, "cancelled"},
		{errclass.NotConfigured, "not_configured"},
		{errclass.ToolCancelled, "cancelled"},
		{errclass.ToolInvalidInput, "invalid_input"},
		{errclass.ToolDenied, "denied"},
		{errclass.ToolExec, "exec"},
		{errclass.ToolTimeout, "timeout"},
		{errclass.ToolUnknownTool, "unknown_tool"},
		{ipc.ErrClassAuth, "auth"},
		{ipc.ErrClassNotConfigured, "not_configured"},
		{ipc.ToolErrDenied, "denied"},
		{ipc.ToolErrUnknownTool, "unknown_tool"},
	} {
		if c.got != c.want {
			t.Errorf("class %q, want %q", c.got, c.want)
		}
	}
}
