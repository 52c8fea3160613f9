package window

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"agenthub/atomicfile"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// GeometryFile keeps the window's size, position and maximised state in
// the data dir between launches.
const GeometryFile = "window.json"

// Geometry is the window's size and position (its normal, not
// maximised, bounds) and whether it was maximised.
type Geometry struct {
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Maximised bool `json:"maximised"`
}

// Bounds of a restored size (a corrupt or hand-edited file cannot make an
// unusable window).
const (
	minWindowWidth, minWindowHeight = 640, 420
	maxWindowSide                   = 16384
)

// loadGeometry reads dir's saved geometry; false when there is none or it
// is unreadable (the defaults then apply).
func loadGeometry(dir string) (Geometry, bool) {
	b, err := os.ReadFile(filepath.Join(dir, GeometryFile))
	if err != nil {
		return Geometry{}, false
	}
	var g Geometry
	if json.Unmarshal(b, &g) != nil || g.Width <= 0 || g.Height <= 0 {
		return Geometry{}, false
	}
	g.Width = min(max(g.Width, minWindowWidth), maxWindowSide)
	g.Height = min(max(g.Height, minWindowHeight), maxWindowSide)
	g.X, g.Y = min(max(g.X, 0), maxWindowSide), min(max(g.Y, 0), maxWindowSide)
	return g, true
}

// saveGeometry writes g to dir.
func saveGeometry(dir string, g Geometry) error {
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, GeometryFile), b, 0o600)
}

// ApplyGeometry sets the window options' size and start state from the
// saved geometry of dir.
func ApplyGeometry(o *options.App, dir string) (Geometry, bool) {
	g, ok := loadGeometry(dir)
	if !ok {
		return g, false
	}
	o.Width, o.Height = g.Width, g.Height
	if g.Maximised {
		o.WindowStartState = options.Maximised
	}
	return g, true
}

// currentGeometry reads the window's geometry; a maximised window keeps
// the normal bounds saved before (the next launch restores those, then
// maximises).
func (s *Shell) currentGeometry(ctx context.Context) Geometry {
	if runtime.WindowIsMaximised(ctx) {
		g, _ := loadGeometry(s.opts.DataDir)
		if g.Width == 0 {
			g.Width, g.Height = 1100, 720
		}
		g.Maximised = true
		return g
	}
	w, h := runtime.WindowGetSize(ctx)
	x, y := runtime.WindowGetPosition(ctx)
	return Geometry{Width: w, Height: h, X: x, Y: y}
}

// rememberGeometry saves the window's geometry (called as it closes).
func (s *Shell) rememberGeometry(ctx context.Context) {
	if s.opts.DataDir == "" || ctx == nil {
		return
	}
	if err := saveGeometry(s.opts.DataDir, s.currentGeometry(ctx)); err != nil {
		s.log.Warn("window: saving its size and position", "err", err)
	}
}
