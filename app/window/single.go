package window

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"log/slog"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// singleInstanceID is the window's single-instance id for a data dir: one
// window per data dir, as the bbolt lock allows one hub per data dir.
func singleInstanceID(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return "agenthub-" + hex.EncodeToString(sum[:8])
}

// SingleInstance is the window's SingleInstanceLock: a second launch on
// the same data dir hands over to this window, which comes to the front.
func (s *Shell) SingleInstance() *options.SingleInstanceLock {
	return &options.SingleInstanceLock{
		UniqueId: singleInstanceID(s.opts.DataDir),
		OnSecondInstanceLaunch: func(options.SecondInstanceData) {
			ctx := s.Context()
			if ctx == nil {
				return
			}
			s.log.Info("another launch asked for this window: bringing it to the front")
			runtime.WindowUnminimise(ctx)
			runtime.WindowShow(ctx)
		},
	}
}

// HandOver is a desktop launch on a data dir another instance holds: it
// asks that instance's window to come to the front (Wails' single-instance
// path over the D-Bus session bus, which ends this process with status 1
// once the message is delivered) and returns inUse when it cannot (no
// session bus, or the other instance does not answer).
func HandOver(dataDir string, inUse error, assets fs.FS, getenv func(string) string, log *slog.Logger) error {
	if getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return inUse
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return inUse
	}
	_ = conn.Close()
	log.Info("Agent Hub already runs on this data dir: asking its window to come to the front", "data_dir", dataDir, "err", inUse)
	opts := Options(NewShell(ShellOptions{Logger: log}), nil, assets, nil, nil)
	opts.Menu, opts.OnBeforeClose = nil, nil
	opts.StartHidden = true
	opts.SingleInstanceLock = &options.SingleInstanceLock{UniqueId: singleInstanceID(dataDir)}
	// Reached only when no instance answered: close the hidden window.
	opts.OnDomReady = func(wctx context.Context) { runtime.Quit(wctx) }
	if err := Run(opts, getenv, log); err != nil {
		log.Warn("single-instance hand-over failed", "err", err)
	}
	return inUse
}
