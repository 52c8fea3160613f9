package ipc

import "context"

// SearchHit is one message matching a search (GET /search, RPC search):
// where it is and a snippet of its text around the first match. Role,
// Offset and SessionTitle are additive fields for clients that jump to the
// message or list hits by session.
type SearchHit struct {
	SessionID    string `json:"session_id"`
	MessageID    string `json:"message_id"`
	Snippet      string `json:"snippet"`
	Role         string `json:"role"`
	Offset       int64  `json:"offset"`
	SessionTitle string `json:"session_title"`
	// ToolUseID is, for a hit in a tool's output (a toolResult message),
	// the call's id: a client opens that call's card (additive).
	ToolUseID string `json:"tool_use_id,omitempty"`
}

// Search limits: DefaultSearchLimit hits when a request names none, at most
// MaxSearchLimit, and queries of at most MaxSearchQuery bytes.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 200
	MaxSearchQuery     = 500
)

// Searcher is optionally implemented by a HubAPI: full-text search over
// every message of every session, newest first. Every word of query must
// occur in a hit (case-insensitive; the last word also matches as a
// prefix). An empty or too long query, or limit outside 1..MaxSearchLimit
// (0 means DefaultSearchLimit), is ErrInvalidInput.
type Searcher interface {
	Search(ctx context.Context, query string, limit int) ([]SearchHit, error)
}
