package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"

	"agenthub/app/settings"
	"agenthub/app/window"
	"agenthub/ipc/wailsipc"
)

// errNotStarted answers the window's calls when the hub did not start.
//
//lint:ignore ST1005 the message is shown as it is, and starts with the product's name
var errNotStarted = errors.New("Agent Hub did not start: see the message in the window")

// startupHint says what a person can do about a start-up failure.
func startupHint(err error, dataDir string) string {
	var se *settings.FileError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("Fix or move %s, then start Agent Hub again. Agent Hub never overwrites a settings file it could not read.", se.Path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("Agent Hub cannot write its data folder %s: give it access, or start it with --data-dir pointing to another folder.", dataDir)
	}
	return fmt.Sprintf("Check the data folder %s (or start Agent Hub with --data-dir pointing to another folder), and the dashboard port in its settings.json if one is set.", dataDir)
}

// runFailedWindow shows why the app could not start (cause) in the window
// instead of exiting without a word when launched from a desktop, and
// returns cause once the window is closed. Nothing in the data dir is
// written.
func runFailedWindow(ctx context.Context, cfg Config, cause error, assets fs.FS, icon []byte, getenv func(string) string, log *slog.Logger) error {
	log.Error("Agent Hub could not start; showing why in the window", "err", cause)
	info := Info{Name: Name, Version: cfg.Version, Mode: "desktop", DataDir: cfg.DataDir,
		StartupError: cause.Error(), StartupHint: startupHint(cause, cfg.DataDir)}
	a := newFailedApp(info, log)
	opts := windowOptions(a, &wailsipc.Bridge{}, driverBindings(cfg.Driver), assets, icon)
	var wg sync.WaitGroup
	defer wg.Wait()
	if driver := startDriver(cfg.Driver, getenv, log); driver != nil {
		opts.OnStartup = driveOnStartup(ctx, a, driver, &wg)
	}
	if err := window.Run(opts, getenv, log); err != nil {
		return errors.Join(cause, fmt.Errorf("window: %w", err))
	}
	return cause
}
