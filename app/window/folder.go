package window

import (
	"errors"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// ChooseFolder shows the native folder dialog (the window's per-session
// folder choice) starting at start, and returns the chosen directory, or
// "" when the user cancelled. The hub validates the folder again when the
// page sends it.
func (s *Shell) ChooseFolder(start string) (string, error) {
	ctx := s.Context()
	if ctx == nil {
		return "", errors.New("the window is not ready")
	}
	return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{
		Title: "Choose the session's folder", DefaultDirectory: start, CanCreateDirectories: true,
	})
}
