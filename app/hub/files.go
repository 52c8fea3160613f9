package hub

import (
	"context"

	"agenthub/app/mention"
	"agenthub/ipc"
)

var _ ipc.FileLister = (*Hub)(nil)

// ListFiles implements ipc.FileLister: the session's workspace files
// matching query (fuzzy), best first, at most limit (1–100, default 20).
func (h *Hub) ListFiles(ctx context.Context, sessionID, query string, limit int) ([]string, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 100 {
		limit = 20
	}
	paths, err := mention.List(ctx, s.record().WorkspacePath)
	if err != nil {
		return nil, err
	}
	return mention.Match(paths, query, limit), nil
}
