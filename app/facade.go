package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// App is the facade bound to the Wails window: every exported method is
// callable from the page (see frontend/wailsjs/go/app/App). Lifecycle hooks
// are unexported so they are never bound.
type App struct {
	inst *Instance
	// failed is the Info of a window that shows why the app could not
	// start (inst is nil then; see startup.go).
	failed *Info
	log    *slog.Logger // the failed window's logger (an instance has its own)

	mu      sync.Mutex
	ctx     context.Context // the Wails context, set in startup
	report  *ReadyReport
	readyCh chan struct{} // closed by the first valid FrontendReady
	// quitConfirmed lets the window close without asking (the user
	// confirmed, or the test harness quits).
	quitConfirmed bool
	// hooks is the desktop test harness's side of the App (pagereport.go):
	// an empty struct in a product build, which binds no test method.
	hooks pageHooks
}

// NewApp returns the facade over inst. inst may be nil only for binding
// generation, where no method is called.
func NewApp(inst *Instance) *App {
	return &App{inst: inst, readyCh: make(chan struct{})}
}

// Info returns the app name, version, data dir, provider status and the
// dashboard URL ("" when off).
func (a *App) Info() Info {
	if a.failed != nil {
		return *a.failed
	}
	return a.inst.Info()
}

// ReadyReport is what the page says it rendered when it calls FrontendReady.
type ReadyReport struct {
	// Version and DataDir as shown on the page.
	Version string `json:"version"`
	DataDir string `json:"data_dir"`
}

// FrontendReady is called by the page once the first window has rendered
// Info. It returns an error (and does not count as ready) when the page
// shows a different version or data dir than Info reports. Repeated calls
// (page reloads) are accepted.
func (a *App) FrontendReady(r ReadyReport) error {
	info := a.Info()
	if r.Version != info.Version || r.DataDir != info.DataDir {
		return fmt.Errorf("frontend rendered version %q data dir %q, want %q %q", r.Version, r.DataDir, info.Version, info.DataDir)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.report == nil {
		a.report = &r
		close(a.readyCh)
		if a.inst != nil {
			a.inst.log.Info("window ready: the page has rendered", "version", r.Version)
		} else if a.log != nil {
			a.log.Info("window ready: the page shows why Agent Hub could not start", "version", r.Version)
		}
	}
	return nil
}

// ready is closed once the page has reported ready.
func (a *App) ready() <-chan struct{} { return a.readyCh }

// startup is the Wails OnStartup hook: it keeps the Wails context, the only
// one runtime.* may be called with.
func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
	// The saved position (the size and maximised state are window options).
	if a.inst != nil {
		if g, ok := loadGeometry(a.inst.Config.DataDir); ok && !g.Maximised {
			runtime.WindowSetPosition(ctx, g.X, g.Y)
		}
	}
}

// wailsContext returns the context given to startup, or nil before it.
func (a *App) wailsContext() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ctx
}
