package window

import (
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// MenuEvent is the Wails event a menu item that acts in the page sends:
// {"action": one of MenuActions}.
const MenuEvent = "app:menu"

// MenuActions are the page's menu actions.
var MenuActions = []string{"new-session", "settings", "toggle-sidebar", "zoom-in", "zoom-out", "zoom-reset", "shortcuts", "about"}

// Menu is the native menu bar: File, Edit, View, Help with the usual
// accelerators. Actions in the page go as MenuEvent; Quit goes through the
// quit confirmation; the Edit items run the WebKit editing commands (the
// Linux menu has no Edit role). Accelerators the page already handles
// itself (Ctrl+B, Ctrl+K, …) are not bound twice.
func (s *Shell) Menu() *menu.Menu {
	m := menu.NewMenu()
	file := m.AddSubmenu("File")
	// Ctrl+Alt+N, as in the page (frontend/src/app/shortcuts.ts): a browser
	// keeps Ctrl+N for itself, and one binding is shown everywhere.
	file.AddText("New session", keys.Combo("n", keys.CmdOrCtrlKey, keys.OptionOrAltKey), s.onMenu("new-session"))
	file.AddText("Settings…", keys.CmdOrCtrl(","), s.onMenu("settings"))
	file.AddSeparator()
	file.AddText("Quit", keys.CmdOrCtrl("q"), func(*menu.CallbackData) {
		if ctx := s.Context(); ctx != nil {
			runtime.Quit(ctx)
		}
	})
	edit := m.AddSubmenu("Edit")
	for _, item := range []struct{ label, command string }{
		{"Undo", "undo"}, {"Redo", "redo"}, {"", ""}, {"Cut", "cut"}, {"Copy", "copy"}, {"Paste", "paste"}, {"Select all", "selectAll"},
	} {
		if item.label == "" {
			edit.AddSeparator()
			continue
		}
		command := item.command
		edit.AddText(item.label, nil, func(*menu.CallbackData) {
			if ctx := s.Context(); ctx != nil {
				runtime.WindowExecJS(ctx, fmt.Sprintf("document.execCommand(%q)", command))
			}
		})
	}
	view := m.AddSubmenu("View")
	view.AddText("Zoom in", keys.CmdOrCtrl("="), s.onMenu("zoom-in"))
	view.AddText("Zoom out", keys.CmdOrCtrl("-"), s.onMenu("zoom-out"))
	view.AddText("Actual size", keys.CmdOrCtrl("0"), s.onMenu("zoom-reset"))
	view.AddSeparator()
	view.AddText("Show or hide the sidebar", nil, s.onMenu("toggle-sidebar"))
	view.AddText("Reload", keys.CmdOrCtrl("r"), func(*menu.CallbackData) {
		if ctx := s.Context(); ctx != nil {
			runtime.WindowReload(ctx)
		}
	})
	help := m.AddSubmenu("Help")
	help.AddText("Keyboard shortcuts", keys.Key("F1"), s.onMenu("shortcuts"))
	help.AddText("Open the log folder", nil, func(*menu.CallbackData) { s.openLogFolder() })
	help.AddSeparator()
	help.AddText("About Agent Hub", nil, s.onMenu("about"))
	return m
}

// onMenu is a menu callback sending action to the page.
func (s *Shell) onMenu(action string) menu.Callback {
	return func(*menu.CallbackData) {
		if err := s.MenuAction(action); err != nil {
			s.log.Warn("menu", "action", action, "err", err)
		}
	}
}

// MenuAction sends a menu action to the page (what the menu item does;
// the desktop test harness calls it too). An unknown action is an error.
func (s *Shell) MenuAction(action string) error {
	known := false
	for _, x := range MenuActions {
		known = known || x == action
	}
	if !known {
		return fmt.Errorf("unknown menu action %q", action)
	}
	ctx := s.Context()
	if ctx == nil {
		return fmt.Errorf("the window is not ready")
	}
	runtime.EventsEmit(ctx, MenuEvent, map[string]string{"action": action})
	return nil
}

// openLogFolder shows the data dir's log folder in the file manager.
func (s *Shell) openLogFolder() {
	ctx := s.Context()
	if ctx == nil || s.opts.DataDir == "" {
		return
	}
	dir := filepath.Join(s.opts.DataDir, s.opts.LogDir)
	runtime.BrowserOpenURL(ctx, (&url.URL{Scheme: "file", Path: dir}).String())
}
