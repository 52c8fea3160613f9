//go:build desktop

// Command barewails is the floor of `make bench-desktop`: a bare Wails v2
// window (same Wails version, toolchain and build tags as Agent Hub's
// desktop binary) whose page, once loaded, tells Go through the Wails
// runtime; Go then prints "ready" on stdout. It idles until killed.
package main

import (
	"context"
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

//go:embed index.html
var assets embed.FS

func main() {
	err := wails.Run(&options.App{
		Title:       "bare",
		Width:       1100,
		Height:      720,
		AssetServer: &assetserver.Options{Assets: assets},
		OnStartup: func(ctx context.Context) {
			runtime.EventsOn(ctx, "bare:ready", func(...any) { fmt.Println("ready") })
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "barewails:", err)
		os.Exit(1)
	}
}
