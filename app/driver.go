package app

import (
	"context"
	"flag"
	"log/slog"
	"sync"

	"agenthub/app/window"
	"agenthub/ipc/wailsipc"
)

// WindowDriver drives the desktop window from outside the page. The
// desktop test harness is the only one (app/smoketest, compiled into
// builds with the smoketest tag); a product build has none.
type WindowDriver interface {
	// Transport adjusts the window transport's options before it starts.
	Transport(o *wailsipc.Options)
	// Drive runs once the window has started, on a goroutine RunDesktop
	// owns; it quits the window when done.
	Drive(ctx context.Context, w DrivenWindow)
	// Result is the driver's verdict once the window has closed.
	Result() error
}

// DrivenWindow is the window a WindowDriver drives.
type DrivenWindow struct {
	// Shell is the window's shell: its Wails context, menu actions, quit.
	Shell *window.Shell
	// Ready is closed once the page has reported ready (App.FrontendReady).
	Ready <-chan struct{}
}

// Driver is a way for the command line to hand the desktop window to a
// WindowDriver: its flags, the objects it binds for the page, the driver
// its parsed flags ask for. One may be registered (RegisterDriver); a
// product build registers none, so its flags do not exist there.
type Driver interface {
	// AddFlags registers the driver's flags on fs.
	AddFlags(fs *flag.FlagSet)
	// FromEnv completes the parsed flags from the environment (getenv may
	// be nil).
	FromEnv(getenv func(string) string)
	// Bind returns the objects the window binds besides the App and the
	// bridge (the page side of the driver).
	Bind() []any
	// New returns the driver the flags ask for, nil for none.
	New(getenv func(string) string, log *slog.Logger) WindowDriver
}

var newDriver func() Driver

// RegisterDriver makes ParseFlags offer the flags of the Driver fn returns
// (a new one per parse, kept in Config.Driver). It is called from an init
// function; a second registration panics.
func RegisterDriver(fn func() Driver) {
	if newDriver != nil {
		panic("app: a window driver is registered already")
	}
	newDriver = fn
}

// driverBindings returns what cfg's driver binds (nil without one).
func driverBindings(d Driver) []any {
	if d == nil {
		return nil
	}
	return d.Bind()
}

// startDriver returns the window driver cfg asks for (nil for none).
func startDriver(d Driver, getenv func(string) string, log *slog.Logger) WindowDriver {
	if d == nil {
		return nil
	}
	return d.New(getenv, log)
}

// driveOnStartup is the window's OnStartup when a driver drives it: the
// shell's startup, then the driver on its own goroutine, which wg owns
// (the caller waits for it after the window closed).
func driveOnStartup(ctx context.Context, a *App, driver WindowDriver, wg *sync.WaitGroup) func(context.Context) {
	return func(wctx context.Context) {
		a.shell.Startup(wctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			driver.Drive(ctx, DrivenWindow{Shell: a.shell, Ready: a.ready()})
		}()
	}
}
