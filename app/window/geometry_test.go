package window

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options"
)

func TestGeometryFile(t *testing.T) {
	dir := t.TempDir()
	if _, ok := loadGeometry(dir); ok {
		t.Fatal("a geometry without a file")
	}
	if err := saveGeometry(dir, Geometry{Width: 900, Height: 640, X: 70, Y: 50, Maximised: true}); err != nil {
		t.Fatal(err)
	}
	o := &options.App{Width: 1100, Height: 720}
	if g, ok := ApplyGeometry(o, dir); !ok || g.X != 70 || o.Width != 900 || o.Height != 640 || o.WindowStartState != options.Maximised {
		t.Fatalf("applied %+v: %+v", g, o)
	}
	// A corrupt or absurd file gives the defaults or bounded values, never an unusable window.
	if err := os.WriteFile(filepath.Join(dir, GeometryFile), []byte("{nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := loadGeometry(dir); ok {
		t.Fatal("a corrupt file gave a geometry")
	}
	if err := saveGeometry(dir, Geometry{Width: 10, Height: 99999, X: -500, Y: 20}); err != nil {
		t.Fatal(err)
	}
	if g, _ := loadGeometry(dir); g.Width != minWindowWidth || g.Height != maxWindowSide || g.X != 0 {
		t.Fatalf("bounded: %+v", g)
	}
}
