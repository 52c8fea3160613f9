//go:build smoketest

package desktoptest

import (
	"testing"

	"agenthub/app/apptest"
	"agenthub/app/smoketest"
	"agenthub/app/window"
)

// TestWindowGeometryRestored: the window's size and position when it is
// closed are where it opens the next time.
func TestWindowGeometryRestored(t *testing.T) {
	bin, artifacts := setup(t)
	dataDir, workspace := apptest.Dirs(t)
	args := []string{"--data-dir", dataDir, "--workspace", workspace}
	d := startDesktop(t, bin, artifacts, nil, args...)
	d.awaitReport("its first load", func(r smoketest.PageReport) bool { return r.Kind == "loaded" })
	want := window.Geometry{Width: 900, Height: 640, X: 70, Y: 50}
	got := d.command("geometry", map[string]any{"geometry": want}).Geometry
	if got == nil || got.Width != want.Width || got.Height != want.Height {
		t.Fatalf("after setting %+v the window is %+v", want, got)
	}
	set := *got // what the window reports as its position (a window manager may offset it)
	d.quit()

	again := startDesktop(t, bin, artifacts, nil, args...)
	again.awaitReport("the window again", func(r smoketest.PageReport) bool { return r.Kind == "loaded" })
	restored := again.command("geometry", nil).Geometry
	if restored == nil || *restored != set {
		t.Fatalf("restored %+v, want %+v", restored, set)
	}
	again.screenshot("desktop-geometry-restored.png")
	again.quit()
}

// TestWindowNarrowsToTheLayoutsMinimum (issue 34 row 17): the window goes
// down to the 420 px the page's layout works at (it stopped at 640), and
// the page then shows its narrow layout.
func TestWindowNarrowsToTheLayoutsMinimum(t *testing.T) {
	bin, artifacts := setup(t)
	dataDir, workspace := apptest.Dirs(t)
	d := startDesktop(t, bin, artifacts, nil, "--data-dir", dataDir, "--workspace", workspace)
	d.awaitReport("its first load", func(r smoketest.PageReport) bool { return r.Kind == "loaded" })
	want := window.Geometry{Width: window.MinWidth, Height: 700, X: 40, Y: 40}
	got := d.command("geometry", map[string]any{"geometry": want}).Geometry
	if got == nil || got.Width != window.MinWidth {
		t.Fatalf("asked for a %d px wide window, got %+v", window.MinWidth, got)
	}
	// The page lays itself out at that width (each paint report is two drawn frames later).
	for i := 0; ; i++ {
		d.command("emit", map[string]any{"data": map[string]string{"cmd": "paint"}})
		r := d.awaitReport("a painted frame", func(r smoketest.PageReport) bool { return r.Kind == "painted" })
		if r.Width == window.MinWidth {
			break
		}
		if i == 50 {
			t.Fatalf("the page is %d px wide in a %d px window", r.Width, window.MinWidth)
		}
	}
	d.screenshot("desktop-narrow-window.png")
	d.quit()
}
