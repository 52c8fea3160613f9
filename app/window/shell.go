// Package window is the desktop window's shell around the page: the Wails
// context and events, the menu bar, the quit confirmation while turns run,
// the geometry remembered in the data dir, one window per data dir (a
// second launch brings it to the front), links opened in the browser, the
// folder chooser, WebKit's GPU policy and whether a display exists. The
// composition root (package app) builds the window's options here and binds
// its facade, which delegates to the Shell.
package window

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"sync"

	"agenthub/ipc/dashboard"
	"agenthub/ipc/wailsipc"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// MinWidth is the narrowest the window gets: the page's layout works from
// 420 px (the sidebar overlays the chat below 760 px).
const MinWidth = 420

// Turns is what the window asks of the hub when it is closed: how many
// turns run, and to cancel them as the user would.
type Turns interface {
	RunningTurns() int
	CancelRunning(ctx context.Context) error
}

// ShellOptions configures NewShell.
type ShellOptions struct {
	// DataDir is the data dir the window belongs to: its geometry is
	// remembered there and its log folder opened from the Help menu. ""
	// for a window with no instance behind it (a failed start, the
	// single-instance hand-over).
	DataDir string
	// LogDir is the log folder's name inside DataDir.
	LogDir string
	// Turns is the hub; nil when none runs (the window then closes
	// without asking).
	Turns Turns
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Shell is the desktop window's own behaviour around the page: the Wails
// context (the only one runtime.* may be called with), the menu bar, the
// quit confirmation while turns run, the remembered geometry, one window
// per data dir, links and the folder chooser. The Wails-bound facade
// (app.App) delegates the page's calls to it. Safe for concurrent use.
type Shell struct {
	opts ShellOptions
	log  *slog.Logger

	mu  sync.Mutex
	ctx context.Context // the Wails context, set by Startup
	// quitConfirmed lets the window close without asking (the user
	// confirmed, or a driver quits).
	quitConfirmed bool
}

// NewShell returns the shell of a window that has not started yet.
func NewShell(opts ShellOptions) *Shell {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Shell{opts: opts, log: log}
}

// Startup is the Wails OnStartup hook: it keeps the Wails context and
// puts the window back where it was.
func (s *Shell) Startup(ctx context.Context) {
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	// The saved position (the size and maximised state are window options).
	if s.opts.DataDir != "" {
		if g, ok := loadGeometry(s.opts.DataDir); ok && !g.Maximised {
			runtime.WindowSetPosition(ctx, g.X, g.Y)
		}
	}
}

// Context returns the context given to Startup, or nil before it.
func (s *Shell) Context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx
}

// The window transport's coalescer emits its batches through the Shell.
var _ wailsipc.Emitter = (*Shell)(nil)

// Emit implements wailsipc.Emitter: it delivers `localChat:event` batches
// to the page through the Wails runtime, with the Wails context. Before
// Startup there is no page to deliver to, and nothing is subscribed, so
// Emit does nothing.
func (s *Shell) Emit(name string, data ...any) {
	if ctx := s.Context(); ctx != nil {
		runtime.EventsEmit(ctx, name, data...)
	}
}

// Options is the Wails configuration of the main window of shell s:
// bind are the objects the page may call (the facade, the IPC bridge of
// frontend/src/transport/wails.ts), assets the UI, icon its PNG (nil for
// none), and serve wraps the asset server (nil: assets only) inside the
// strict Content-Security-Policy.
func Options(s *Shell, bind []any, assets fs.FS, icon []byte, serve func(http.Handler) http.Handler) *options.App {
	if serve == nil {
		serve = func(h http.Handler) http.Handler { return h }
	}
	return &options.App{
		Title:     Title,
		Width:     1100,
		Height:    720,
		MinWidth:  MinWidth,
		MinHeight: 420,
		AssetServer: &assetserver.Options{
			Assets:     assets,
			Middleware: func(next http.Handler) http.Handler { return windowCSP(serve(next)) },
		},
		BackgroundColour: &options.RGBA{R: 17, G: 19, B: 24, A: 255},
		OnStartup:        s.Startup,
		OnBeforeClose:    s.BeforeClose,
		Menu:             s.Menu(),
		// Right-click on text gives WebKit's Cut / Copy / Paste / Select All.
		EnableDefaultContextMenu: true,
		Bind:                     bind,
		Linux: &linux.Options{
			ProgramName:      "agenthub",
			Icon:             icon,
			WebviewGpuPolicy: webviewGPUPolicy(os.Getenv, gpuRenderNode),
		},
	}
}

// Title is the window's title: the product name.
const Title = "Agent Hub"

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

// Run runs a window (wails.Run) with WebKit's environment set first,
// which its web process inherits: without GPU compositing, WebKit's DMA-BUF
// renderer off (dmabufRendererOff).
func Run(opts *options.App, getenv func(string) string, log *slog.Logger) error {
	if opts.Linux != nil && dmabufRendererOff(opts.Linux.WebviewGpuPolicy, getenv) {
		if err := os.Setenv(envWebKitDMABufOff, "1"); err != nil {
			log.Warn("window: cannot turn the DMA-BUF renderer off", "err", err)
		}
	}
	return wails.Run(opts)
}
