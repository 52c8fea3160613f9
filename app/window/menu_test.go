package window

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// The menu bar: File, Edit, View, Help with the usual accelerators; an
// unknown page action is refused.
func TestWindowMenu(t *testing.T) {
	s := NewShell(ShellOptions{})
	m := s.Menu()
	var top []string
	items := map[string]string{}
	for _, it := range m.Items {
		top = append(top, it.Label)
		if it.SubMenu == nil {
			continue
		}
		for _, sub := range it.SubMenu.Items {
			acc := ""
			if sub.Accelerator != nil {
				acc = sub.Accelerator.Key
			}
			items[it.Label+"/"+sub.Label] = acc
		}
	}
	if strings.Join(top, ",") != "File,Edit,View,Help" {
		t.Fatalf("menu bar = %v", top)
	}
	for item, key := range map[string]string{"File/New session": "n", "File/Settings…": ",", "File/Quit": "q", "Edit/Copy": "", "Edit/Paste": "",
		"View/Zoom in": "=", "View/Zoom out": "-", "View/Actual size": "0", "View/Reload": "r", "Help/Keyboard shortcuts": "f1", "Help/About Agent Hub": ""} {
		if got, ok := items[item]; !ok || !strings.EqualFold(got, key) {
			t.Errorf("%s: accelerator %q (present %v), want %q", item, got, ok, key)
		}
	}
	if err := s.MenuAction("format-disk"); err == nil || !strings.Contains(err.Error(), "unknown menu action") {
		t.Fatalf("menuAction of an unknown action: %v", err)
	}
}

// One binding for a new session everywhere: the File menu's accelerator is
// the one the page's shortcut table (and so its ? sheet) shows.
func TestNewSessionShortcutMatchesThePage(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "frontend", "src", "app", "shortcuts.ts"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`action: "new-session", keys: "([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("shortcuts.ts has no new-session shortcut")
	}
	var acc *keys.Accelerator
	for _, it := range NewShell(ShellOptions{}).Menu().Items {
		if it.Label != "File" {
			continue
		}
		for _, sub := range it.SubMenu.Items {
			if sub.Label == "New session" {
				acc = sub.Accelerator
			}
		}
	}
	if acc == nil {
		t.Fatal("the File menu has no New session accelerator")
	}
	names := map[keys.Modifier]string{keys.CmdOrCtrlKey: "Ctrl", keys.OptionOrAltKey: "Alt", keys.ShiftKey: "Shift", keys.ControlKey: "Ctrl"}
	var parts []string
	for _, mod := range acc.Modifiers {
		parts = append(parts, names[mod])
	}
	parts = append(parts, strings.ToUpper(acc.Key))
	if got := strings.Join(parts, "+"); got != string(m[1]) {
		t.Errorf("File → New session is %s in the menu, %s in the page's shortcuts", got, m[1])
	}
}
