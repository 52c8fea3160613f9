package app

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"agenthub/atomicfile"
)

// lastWorkspaceFile keeps, in the data dir, the folder of the last session
// created in a desktop launch without --workspace.
const lastWorkspaceFile = "last-workspace.json"

// defaultWorkspace is the folder new sessions use when they name none, and
// whether the hub must ask for one (AskWorkspace). Headless, or with
// --workspace: cfg.Workspace (headless defaults to the directory it was
// started in: a shell or a service chose it). A desktop launch without
// --workspace assumes nothing — the desktop launcher starts the app in
// $HOME — and offers the folder chosen last, if it still exists.
func defaultWorkspace(cfg Config, headless bool, log *slog.Logger) (dir string, ask bool) {
	if headless || cfg.WorkspaceSet {
		return cfg.Workspace, false
	}
	last, err := loadLastWorkspace(cfg.DataDir)
	if err != nil {
		log.Warn("the last session folder is not remembered", "err", err)
		return "", true
	}
	if fi, err := os.Stat(last); last == "" || err != nil || !fi.IsDir() {
		return "", true
	}
	return last, true
}

func loadLastWorkspace(dataDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, lastWorkspaceFile))
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", lastWorkspaceFile, err)
	}
	var st struct {
		Workspace string `json:"workspace"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return "", fmt.Errorf("reading %s: %w", lastWorkspaceFile, err)
	}
	if st.Workspace != "" && !filepath.IsAbs(st.Workspace) {
		return "", fmt.Errorf("%s: %q is not an absolute path", lastWorkspaceFile, st.Workspace)
	}
	return st.Workspace, nil
}

// rememberWorkspace records dir as the folder chosen last.
func rememberWorkspace(dataDir, dir string, log *slog.Logger) {
	b, _ := json.Marshal(struct {
		Workspace string `json:"workspace"`
	}{dir})
	if err := atomicfile.Write(filepath.Join(dataDir, lastWorkspaceFile), append(b, '\n'), 0o600); err != nil {
		log.Warn("could not remember the session folder", "err", err)
	}
}
