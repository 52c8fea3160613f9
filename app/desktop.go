package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"sync"

	"agenthub/ipc/dashboard"
	"agenthub/ipc/gatewaylink"
	"agenthub/ipc/wailsipc"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// windowOptions is the Wails configuration of the main window bound to a
// and to the IPC bridge (the page's transport: frontend/src/transport/wails.ts).
func windowOptions(a *App, bridge *wailsipc.Bridge, assets fs.FS, icon []byte) *options.App {
	return &options.App{
		Title:     Name,
		Width:     1100,
		Height:    720,
		MinWidth:  640,
		MinHeight: 420,
		AssetServer: &assetserver.Options{
			Assets:     assets,
			Middleware: func(next http.Handler) http.Handler { return windowCSP(windowAttachments(a.inst, next)) },
		},
		BackgroundColour: &options.RGBA{R: 17, G: 19, B: 24, A: 255},
		OnStartup:        a.startup,
		OnBeforeClose:    a.beforeClose,
		Menu:             a.windowMenu(),
		// Right-click on text gives WebKit's Cut / Copy / Paste / Select All.
		EnableDefaultContextMenu: true,
		Bind:                     []any{a, bridge},
		Linux: &linux.Options{
			ProgramName:      "agenthub",
			Icon:             icon,
			WebviewGpuPolicy: webviewGPUPolicy(os.Getenv, gpuRenderNode),
		},
	}
}

// windowCSP gives every response of the window's asset server the strict
// Content-Security-Policy of the dashboard (dashboard.WindowCSP): no
// remote scripts, styles, frames or connections from model output.
func windowCSP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", dashboard.WindowCSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// GenerateBindings runs Wails in binding-generation mode (a binary built
// with the "bindings" tag, as `go tool wails generate module` does): it
// writes frontend/wailsjs and returns without opening anything.
func GenerateBindings() error {
	return wails.Run(windowOptions(NewApp(nil), &wailsipc.Bridge{}, nil, nil))
}

// windowDriver drives the window from outside the page. The desktop test
// harness is the only one (smoke.go, in builds with the smoketest tag); a
// product build has none (noharness.go).
type windowDriver interface {
	// transport adjusts the window transport's options before it starts.
	transport(*wailsipc.Options)
	// drive runs once the window has started; it quits the window when done.
	drive(ctx context.Context, a *App)
	// result is the driver's verdict once the window has closed.
	result() error
}

// runWindow runs a window (wails.Run) with WebKit's environment set first,
// which its web process inherits: without GPU compositing, WebKit's DMA-BUF
// renderer off (dmabufRendererOff).
func runWindow(opts *options.App, getenv func(string) string, log *slog.Logger) error {
	if opts.Linux != nil && dmabufRendererOff(opts.Linux.WebviewGpuPolicy, getenv) {
		if err := os.Setenv(envWebKitDMABufOff, "1"); err != nil {
			log.Warn("window: cannot turn the DMA-BUF renderer off", "err", err)
		}
	}
	return wails.Run(opts)
}

// driveOnStartup is the window's OnStartup when a driver drives it: the
// App's startup, then the driver on its own goroutine, which wg owns (the
// caller waits for it after the window closed).
func driveOnStartup(ctx context.Context, a *App, driver windowDriver, wg *sync.WaitGroup) func(context.Context) {
	return func(wctx context.Context) {
		a.startup(wctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			driver.drive(ctx, a)
		}()
	}
}

// RunDesktop opens the instance for desktop mode, serves the dashboard if
// enabled, and runs the window (with icon, a PNG, as its window icon; nil
// for none) until it is closed. In a build with the smoketest tag,
// cfg's harness settings may hand the window to the desktop test harness
// (smoke.go), whose verdict is then the result.
func RunDesktop(ctx context.Context, cfg Config, assets fs.FS, icon []byte, getenv func(string) string, log *slog.Logger) (err error) {
	inst, err := Open(cfg, OpenOptions{Assets: assets, Getenv: getenv, Logger: log})
	var inUse *DataDirInUseError
	if errors.As(err, &inUse) {
		cfg.DataDir = inUse.Dir
		return handOver(ctx, cfg, err, assets, getenv, log)
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
	driver := newWindowDriver(a, cfg.Harness, getenv, log)
	wopts := wailsipc.Options{Bus: inst.Bus, Hub: inst.Hub, RPC: inst.RPC, Emitter: wailsEmitter{a}, Logger: log}
	inst.SetDevicePrompt(func(p []gatewaylink.PendingDevice) { wailsEmitter{a}.Emit(DevicesEvent, p) })
	if driver != nil {
		driver.transport(&wopts)
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
	opts := windowOptions(a, svc.Bridge(), assets, icon)
	applyGeometry(opts, inst.Config.DataDir)
	opts.SingleInstanceLock = a.singleInstance(inst.Config.DataDir)
	// A reload (or the first load) drops the previous page's subscriptions;
	// the new page resubscribes from its cursor.
	opts.OnDomReady = func(context.Context) { svc.DomReady() }
	if driver != nil {
		opts.OnStartup = driveOnStartup(ctx, a, driver, &wg)
	}
	if err := runWindow(opts, getenv, log); err != nil {
		return fmt.Errorf("window: %w", err)
	}
	cancel()
	if driver != nil {
		wg.Wait()
		return driver.result()
	}
	return nil
}

// wailsEmitter delivers `localChat:event` batches to the page through the
// Wails runtime, with the context Wails gave the App at startup (runtime.*
// must never see another context). Before startup there is no page to
// deliver to, and nothing is subscribed, so Emit does nothing.
type wailsEmitter struct{ a *App }

// Emit implements wailsipc.Emitter.
func (e wailsEmitter) Emit(name string, data ...any) {
	if ctx := e.a.wailsContext(); ctx != nil {
		runtime.EventsEmit(ctx, name, data...)
	}
}
