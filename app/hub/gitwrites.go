package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"agenthub/ipc"
)

var _ ipc.GitWritesAPI = (*Hub)(nil)

// gitGrants are the bash calls an approval allowed to write .git once,
// keyed by session and tool-use id; a grant is taken by the call it names.
type gitGrants struct {
	mu sync.Mutex
	m  map[string]bool
}

func gitGrantKey(sessionID, toolUseID string) string { return sessionID + "\x00" + toolUseID }

func (g *gitGrants) grant(sessionID, toolUseID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string]bool{}
	}
	g.m[gitGrantKey(sessionID, toolUseID)] = true
}

func (g *gitGrants) take(sessionID, toolUseID string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := gitGrantKey(sessionID, toolUseID)
	ok := g.m[k]
	delete(g.m, k)
	return ok
}

// gitWritesFunc is tool.Env.GitWrites for a turn of session sessionID in
// workspace: the workspace's setting, or a grant of the call's approval.
func (h *Hub) gitWritesFunc(sessionID, workspace string) func(string) bool {
	return func(toolUseID string) bool {
		return h.gitGrants.take(sessionID, toolUseID) || h.perms.GitWrites(workspace)
	}
}

// gitWritesOffer says whether an approval card for call tool in workspace
// may offer git writes for the call: bash, sandboxed, in a repository
// whose .git is read-only.
func (h *Hub) gitWritesOffer(tool, workspace string) bool {
	if tool != "bash" || h.cfg.ToolOptions.Sandbox == nil || h.perms.GitWrites(workspace) {
		return false
	}
	_, err := os.Lstat(filepath.Join(workspace, ".git"))
	return err == nil
}

// GitWrites implements ipc.GitWritesAPI.
func (h *Hub) GitWrites(_ context.Context, workspace string) (bool, error) {
	return h.perms.GitWrites(workspace), nil
}

// SetGitWrites implements ipc.GitWritesAPI.
func (h *Hub) SetGitWrites(_ context.Context, workspace string, allow bool) (bool, error) {
	if !filepath.IsAbs(workspace) {
		return false, fmt.Errorf("workspace %q: want an absolute path: %w", workspace, ipc.ErrInvalidInput)
	}
	if err := h.perms.SetGitWrites(workspace, allow); err != nil {
		return false, err
	}
	return allow, nil
}
