package ipc

import (
	"context"
	"errors"
	"io"
	"time"
)

// Errors of ToolOutputs.Output (HTTP 404 with their code).
var (
	// ErrToolCallNotFound: the session has no finished or running tool
	// call with that id (code tool_call_not_found).
	ErrToolCallNotFound = errors.New("tool call not found")
	// ErrToolOutputExpired: the call's full output was removed by retention
	// (--event-retention); its capped output is still in the toolResult
	// message (code tool_output_expired).
	ErrToolOutputExpired = errors.New("tool output removed by retention")
)

// ToolOutput is the stored output of one tool call, readable from any
// offset (http.ServeContent serves its Range requests).
type ToolOutput struct {
	Content io.ReadSeekCloser
	ModTime time.Time
}

// ToolOutputs is optionally implemented by a HubAPI: GET
// /sessions/{id}/tools/{tool_use_id}/output. Output returns the output of
// a session's tool call — for bash the on-disk output (head and tail past
// --tool-output-max, around a marker; still growing while the call runs),
// for other tools their result text. The caller closes Content. Errors
// wrap ErrSessionNotFound, ErrToolCallNotFound or ErrToolOutputExpired.
type ToolOutputs interface {
	Output(ctx context.Context, sessionID, toolUseID string) (ToolOutput, error)
}
