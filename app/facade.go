package app

import (
	"fmt"
	"log/slog"
	"sync"

	"agenthub/app/window"
)

// App is the facade bound to the Wails window: every exported method is
// callable from the page (see frontend/wailsjs/go/app/App). The window's
// own behaviour (its Wails context, menu, quit, geometry) is its Shell's.
type App struct {
	inst  *Instance
	shell *window.Shell
	// failed is the Info of a window that shows why the app could not
	// start (inst is nil then; see startup.go).
	failed *Info
	log    *slog.Logger // the failed window's logger (an instance has its own)

	mu      sync.Mutex
	report  *ReadyReport
	readyCh chan struct{} // closed by the first valid FrontendReady
}

// NewApp returns the facade over inst, with the shell of its window. inst
// may be nil only for binding generation, where no method is called.
func NewApp(inst *Instance) *App {
	opts := window.ShellOptions{LogDir: LogDir}
	if inst != nil {
		opts.DataDir, opts.Logger = inst.Config.DataDir, inst.log
		if inst.Hub != nil {
			opts.Turns = inst.Hub
		}
	}
	return &App{inst: inst, shell: window.NewShell(opts), readyCh: make(chan struct{})}
}

// newFailedApp returns the facade of a window that shows why the app could
// not start (info carries the error and the hint).
func newFailedApp(info Info, log *slog.Logger) *App {
	return &App{failed: &info, log: log, shell: window.NewShell(window.ShellOptions{Logger: log}), readyCh: make(chan struct{})}
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

// ChooseFolder opens the folder chooser at start and returns the folder
// picked ("" when cancelled).
func (a *App) ChooseFolder(start string) (string, error) { return a.shell.ChooseFolder(start) }

// OpenLink opens an http(s) or mailto link of the page in the system
// browser; any other link is refused (CheckLink).
func (a *App) OpenLink(link string) error { return a.shell.OpenLink(link) }

// AnswerQuit is the page's answer to the quit confirmation: QuitAnyway,
// QuitCancelTurns or QuitKeepRunning.
func (a *App) AnswerQuit(choice string) error { return a.shell.AnswerQuit(choice) }
