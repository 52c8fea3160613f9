// Command agenthub is Agent Hub: a desktop window (Wails) over an LLM agent
// hub, or with --headless (or no display) the hub and its localhost
// dashboard only. See README.md and DESIGN.md §3 for the flags.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"agenthub/app"
	"agenthub/app/buildtag"
	"agenthub/app/sandbox"
	_ "agenthub/app/smoketest" // the desktop test harness registers itself in a smoketest build; empty in any other
	"agenthub/app/window"
	"agenthub/frontend"
	"agenthub/gateway"
	"agenthub/gateway/natsroute"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// appIcon is the window icon.
//
//go:embed build/appicon.png
var appIcon []byte

func main() {
	// Windows' desktop build prints --help and the rest to the console it
	// was started from.
	app.AttachParentConsole()
	// The bash sandbox's helper (confine, then run the command) exits here.
	sandbox.Dispatch()
	tuneGC()
	// The Socket.io client library (the gateway link) catches SIGQUIT from
	// its package init; give it back to the runtime (a goroutine dump).
	signal.Reset(syscall.SIGQUIT)
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case gateway.Command: // the router devices and hubs meet at
			os.Exit(runGateway(os.Args[2:]))
		case app.DevicesCommand: // the hub's trusted devices
			os.Exit(app.RunDevices(os.Args[2:], os.Getenv, os.Stdout, os.Stderr))
		}
	}
	os.Exit(run())
}

// runGateway runs `agenthub gateway` until SIGINT/SIGTERM, serving the
// embedded UI; the exit code is run's.
func runGateway(args []string) int {
	cfg, err := gateway.ParseFlags(args, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	assets, err := frontend.Assets()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agenthub gateway: embedded frontend: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := natsroute.Run(ctx, cfg, assets, os.Stdout, log); err != nil {
		fmt.Fprintf(os.Stderr, "agenthub gateway: %v\n", err)
		return 1
	}
	return 0
}

// tuneGC raises the collector's goal when GOGC is not set. The hub's live
// heap is small (3–5 MB) while a stream allocates quickly, so the default
// goal (100) collects about 110 times a second during a burst; 200 halves
// that for at most a few tens of MB more heap — measured in docs/benchmarks.md
// ("GC goal"). An explicit GOGC in the environment wins.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(200)
	}
}

// run parses the flags, picks the mode and returns the exit code:
// 0 success or --help/--version, 1 runtime failure, 2 bad flags.
func run() int {
	if buildtag.Bindings {
		// Built by `go tool wails generate module`: write frontend/wailsjs only.
		if err := app.GenerateBindings(); err != nil {
			fmt.Fprintf(os.Stderr, "agenthub: generate bindings: %v\n", err)
			return 1
		}
		return 0
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agenthub: %v\n", err)
		return 1
	}
	cfg, err := app.ParseFlags(os.Args[1:], wd, os.Getenv, os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	cfg.Version = version
	if cfg.ShowVersion {
		fmt.Printf("agenthub %s\n", version)
		return 0
	}
	// Stderr, and the launch's log file in the data dir once it is locked.
	logs := app.NewLogSink(os.Stderr)
	defer logs.Close()
	cfg.Logs = logs
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	assets, err := frontend.Assets()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agenthub: embedded frontend: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	headless := cfg.Headless
	switch {
	case headless:
	case !buildtag.Desktop:
		log.Info("built without the desktop tag: running headless")
		headless = true
	case !window.DisplayAvailable(os.Getenv):
		log.Info("no display available: running headless")
		headless = true
	}
	if headless {
		err = app.RunHeadless(ctx, cfg, assets, os.Getenv, os.Stdout, log)
	} else {
		err = app.RunDesktop(ctx, cfg, assets, appIcon, os.Getenv, log)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "agenthub: %v\n", err)
		return 1
	}
	return 0
}
