package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"

	"agenthub/app/settings"
)

// RunHeadless runs without a window: it opens the instance with the
// dashboard always on, writes DATA_DIR/dashboard.json (0600), prints
// "dashboard: URL" (with the token) to stdout, logs the address without
// it, and serves until ctx ends (SIGINT/SIGTERM in main), then removes
// dashboard.json and closes the store cleanly.
func RunHeadless(ctx context.Context, cfg Config, assets fs.FS, getenv func(string) string, stdout io.Writer, log *slog.Logger) (err error) {
	inst, err := Open(cfg, OpenOptions{Headless: true, Assets: assets, Getenv: getenv, Logger: log})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := inst.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	dir := inst.Config.DataDir
	infoPath, err := inst.Dashboard.WriteInfoFile(dir)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := inst.Dashboard.RemoveInfoFile(dir); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}()
	// The URL with the token goes to stdout, for the user who started the
	// process; the log (stderr and agenthub.log) never holds the token.
	if _, err := fmt.Fprintf(stdout, "dashboard: %s\n", inst.Dashboard.URL()); err != nil {
		return fmt.Errorf("print dashboard URL: %w", err)
	}
	logDashboard(log, inst.Dashboard, infoPath)
	log.Info("headless hub running", "data_dir", dir, "provider_configured", settings.DetectProvider(inst.settings.Current(), getenv).Configured)
	return inst.Dashboard.Serve(ctx)
}

// logDashboard logs that the dashboard is on: its address without the
// token and the dashboard.json that holds the URL with it. The token is a
// credential: no log line (stderr, agenthub.log) ever carries it.
func logDashboard(log *slog.Logger, srv interface{ BaseURL() string }, infoPath string) {
	log.Info("dashboard enabled", "address", srv.BaseURL(), "token_url_in", infoPath)
}
