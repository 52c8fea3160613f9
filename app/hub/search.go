package hub

import (
	"context"
	"errors"

	"agenthub/ipc"
)

var _ ipc.Searcher = (*Hub)(nil)

// Search implements ipc.Searcher through Config.Search.
func (h *Hub) Search(ctx context.Context, query string, limit int) ([]ipc.SearchHit, error) {
	if h.cfg.Search == nil {
		return nil, errors.New("search is not configured")
	}
	return h.cfg.Search.Search(ctx, query, limit)
}
