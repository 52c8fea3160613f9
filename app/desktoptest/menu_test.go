//go:build smoketest

package desktoptest

import (
	"testing"

	"agenthub/app/apptest"
	"agenthub/app/smoketest"
)

// TestMenuActions: the native menu's page actions reach the page (the
// harness runs what the menu items run): Settings opens the settings,
// zoom steps in and back, About opens the help with the About section.
func TestMenuActions(t *testing.T) {
	bin, artifacts := setup(t)
	dataDir, workspace := apptest.Dirs(t)
	d := startDesktop(t, bin, artifacts, nil, "--data-dir", dataDir, "--workspace", workspace)
	d.awaitReport("the app started in the page", func(r smoketest.PageReport) bool { return r.Ready })
	menu := func(action string) {
		t.Helper()
		d.command("menu", map[string]any{"name": action}) // an ack with an error fails the test
		// A report even when the action changes nothing on the page.
		d.command("emit", map[string]any{"data": map[string]string{"cmd": "transcript"}})
	}
	menu("settings")
	d.awaitReport("Settings open", func(r smoketest.PageReport) bool { return r.Dialog == "Settings" })
	d.click(`button[aria-label="Close settings"]`)
	d.awaitReport("Settings closed", func(r smoketest.PageReport) bool { return r.Dialog == "" })
	// The webview keeps the zoom between launches: start from actual size.
	menu("zoom-reset")
	d.awaitReport("actual size first", func(r smoketest.PageReport) bool { return r.Zoom == "" })
	menu("zoom-in")
	d.awaitReport("zoomed in", func(r smoketest.PageReport) bool { return r.Zoom == "110%" })
	d.screenshot("desktop-menu-zoom.png")
	menu("zoom-reset")
	d.awaitReport("actual size", func(r smoketest.PageReport) bool { return r.Zoom == "" })
	menu("about")
	d.awaitReport("About", func(r smoketest.PageReport) bool { return r.Dialog == "Keyboard shortcuts" })
	d.quit()
}
