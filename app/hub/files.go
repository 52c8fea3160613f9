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
	return matchFiles(ctx, s.record().WorkspacePath, query, limit)
}

var _ ipc.FolderFileLister = (*Hub)(nil)

// ListFolderFiles implements ipc.FolderFileLister: ListFiles for a folder
// a session is about to be created in (the new-session view's first
// message), which must be an existing directory; the folder empty means
// the default workspace.
func (h *Hub) ListFolderFiles(ctx context.Context, folder, query string, limit int) ([]string, error) {
	if folder == "" {
		folder = h.cfg.DefaultWorkspace
	}
	dir, err := existingDir(folder)
	if err != nil {
		return nil, err
	}
	return matchFiles(ctx, dir, query, limit)
}

// matchFiles is the files of dir matching query (fuzzy), best first, at
// most limit (1–100, default 20).
func matchFiles(ctx context.Context, dir, query string, limit int) ([]string, error) {
	if limit <= 0 || limit > 100 {
		limit = 20
	}
	paths, err := mention.List(ctx, dir)
	if err != nil {
		return nil, err
	}
	return mention.Match(paths, query, limit), nil
}
