package app

import (
	"strings"
	"testing"
)

// The menu bar: File, Edit, View, Help with the usual accelerators; an
// unknown page action is refused.
func TestWindowMenu(t *testing.T) {
	a := NewApp(nil)
	m := a.windowMenu()
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
	if err := a.menuAction("format-disk"); err == nil || !strings.Contains(err.Error(), "unknown menu action") {
		t.Fatalf("menuAction of an unknown action: %v", err)
	}
}
