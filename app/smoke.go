package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// SmokeTimeout bounds how long the smoke test waits for the page to report ready.
const SmokeTimeout = 60 * time.Second

// ScreenshotFile is the smoke test's screenshot name inside its directory.
const ScreenshotFile = "desktop-window.png"

// smokeRun is the desktop smoke test: wait for FrontendReady, screenshot
// the X display, quit the window. Its fields are read after run returns.
type smokeRun struct {
	dir    string
	getenv func(string) string
	log    *slog.Logger

	done bool  // the page reported ready and the screenshot was saved
	err  error // why the smoke test failed
}

func newSmokeRun(dir string, getenv func(string) string, log *slog.Logger) *smokeRun {
	return &smokeRun{dir: dir, getenv: getenv, log: log}
}

// run waits for the page (or ctx's end, or SmokeTimeout), takes the
// screenshot and quits the window in every case, so the app never hangs.
func (s *smokeRun) run(ctx context.Context, a *App) {
	wctx := a.wailsContext()
	defer runtime.Quit(wctx)
	start := time.Now()
	timer := time.NewTimer(SmokeTimeout)
	defer timer.Stop()
	select {
	case <-a.ready():
	case <-timer.C:
		s.err = fmt.Errorf("the page did not call FrontendReady within %s", SmokeTimeout)
		return
	case <-ctx.Done():
		s.err = ctx.Err()
		return
	}
	s.log.Info("smoke: page ready", "after", time.Since(start).Round(time.Millisecond))
	path, err := screenshot(ctx, s.dir, s.getenv("DISPLAY"))
	if err != nil {
		s.err = err
		return
	}
	s.log.Info("smoke: screenshot saved", "path", path)
	s.done = true
}

// screenshot saves the whole X display to DIR/desktop-window.png with
// ImageMagick's import and checks the file is non-empty.
func screenshot(ctx context.Context, dir, display string) (string, error) {
	if display == "" {
		return "", fmt.Errorf("screenshot: DISPLAY is not set (run under xvfb-run)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("screenshot: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, ScreenshotFile))
	if err != nil {
		return "", fmt.Errorf("screenshot: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "import", "-display", display, "-window", "root", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("screenshot: import -window root: %w: %s", err, out)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("screenshot: %w", err)
	}
	if st.Size() == 0 {
		return "", fmt.Errorf("screenshot: %s is empty", path)
	}
	return path, nil
}
