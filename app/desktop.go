package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"

	"agenthub/app/window"
	"agenthub/ipc/gatewaylink"
	"agenthub/ipc/wailsipc"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
)

// windowOptions is the Wails configuration of a's window: a and bridge
// (the page's transport: frontend/src/transport/wails.ts) and extra
// (a driver's page side) bound, the instance's attachments served.
func windowOptions(a *App, bridge *wailsipc.Bridge, extra []any, assets fs.FS, icon []byte) *options.App {
	bind := append([]any{a, bridge}, extra...)
	return window.Options(a.shell, bind, assets, icon, func(next http.Handler) http.Handler { return windowAttachments(a.inst, next) })
}

// GenerateBindings runs Wails in binding-generation mode (a binary built
// with the "bindings" tag, as `go tool wails generate module` does): it
// writes frontend/wailsjs and returns without opening anything.
func GenerateBindings() error {
	var extra []any
	if newDriver != nil {
		extra = newDriver().Bind()
	}
	return wails.Run(windowOptions(NewApp(nil), &wailsipc.Bridge{}, extra, nil, nil))
}

// RunDesktop opens the instance for desktop mode, serves the dashboard if
// enabled, and runs the window (with icon, a PNG, as its window icon; nil
// for none) until it is closed. A registered Driver (cfg.Driver) may hand
// the window to a WindowDriver, whose verdict is then the result.
func RunDesktop(ctx context.Context, cfg Config, assets fs.FS, icon []byte, getenv func(string) string, log *slog.Logger) (err error) {
	inst, err := Open(cfg, OpenOptions{Assets: assets, Getenv: getenv, Logger: log})
	var inUse *DataDirInUseError
	if errors.As(err, &inUse) {
		return window.HandOver(inUse.Dir, err, assets, getenv, log)
	}
	if err != nil {
		// A launch from the desktop has no terminal: show why in the window.
		if dir, derr := ResolveDataDir(cfg.DataDir, goos, getenv); derr == nil {
			cfg.DataDir = dir
		}
		return runFailedWindow(ctx, cfg, err, assets, icon, getenv, log)
	}
	defer func() {
		if cerr := inst.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()

	if inst.Dashboard != nil {
		infoPath, err := inst.Dashboard.WriteInfoFile(inst.Config.DataDir)
		if err != nil {
			return err
		}
		defer func() { _ = inst.Dashboard.RemoveInfoFile(inst.Config.DataDir) }()
		logDashboard(log, inst.Dashboard, infoPath)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := inst.Dashboard.Serve(ctx); err != nil {
				log.Error("dashboard stopped", "err", err)
			}
		}()
	}

	a := NewApp(inst)
	driver := startDriver(cfg.Driver, getenv, log)
	wopts := wailsipc.Options{Bus: inst.Bus, Hub: inst.Hub, RPC: inst.RPC, Emitter: a.shell, Logger: log}
	inst.SetDevicePrompt(func(p []gatewaylink.PendingDevice) { a.shell.Emit(DevicesEvent, p) })
	if driver != nil {
		driver.Transport(&wopts)
	}
	svc, err := wailsipc.NewService(wopts)
	if err != nil {
		return fmt.Errorf("window transport: %w", err)
	}
	defer func() {
		if cerr := svc.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	opts := windowOptions(a, svc.Bridge(), driverBindings(cfg.Driver), assets, icon)
	window.ApplyGeometry(opts, inst.Config.DataDir)
	opts.SingleInstanceLock = a.shell.SingleInstance()
	// A reload (or the first load) drops the previous page's subscriptions;
	// the new page resubscribes from its cursor.
	opts.OnDomReady = func(context.Context) { svc.DomReady() }
	if driver != nil {
		opts.OnStartup = driveOnStartup(ctx, a, driver, &wg)
	}
	if err := window.Run(opts, getenv, log); err != nil {
		return fmt.Errorf("window: %w", err)
	}
	cancel()
	if driver != nil {
		wg.Wait()
		return driver.Result()
	}
	return nil
}
