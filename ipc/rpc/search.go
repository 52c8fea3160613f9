package rpc

import (
	"context"
	"encoding/json"
	"errors"

	"agenthub/ipc"
)

// MethodSearch is full-text search over every message of every session.
const MethodSearch = "search"

// SearchResult is the answer of RPC search and the body of GET /search.
type SearchResult struct {
	Hits []ipc.SearchHit `json:"hits"`
}

// ErrNoSearch: the hub does not implement ipc.Searcher.
var ErrNoSearch = errors.New("search is not available in this hub")

// Search runs query through hub when it is an ipc.Searcher; shared by the
// RPC method and GET /search.
func Search(ctx context.Context, hub ipc.HubAPI, query string, limit int) (SearchResult, error) {
	s, ok := hub.(ipc.Searcher)
	if !ok {
		return SearchResult{}, ErrNoSearch
	}
	hits, err := s.Search(ctx, query, limit)
	if err != nil {
		return SearchResult{}, err
	}
	return SearchResult{Hits: nonNil(hits)}, nil
}

// searchParams are the params of RPC search: {"query", "limit"?}; "q" is
// accepted for "query" (the HTTP route's name).
type searchParams struct {
	Query string `json:"query"`
	Q     string `json:"q"`
	Limit int    `json:"limit"`
}

func (h hubMethods) search(ctx context.Context, raw json.RawMessage) (any, error) {
	var p searchParams
	if err := DecodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Query == "" {
		p.Query = p.Q
	}
	return Search(ctx, h.hub, p.Query, p.Limit)
}
