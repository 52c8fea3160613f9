package window

import "testing"

func TestDisplayAvailable(t *testing.T) {
	defer func(g string) { goos = g }(goos)
	goos = "linux"
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if DisplayAvailable(get) {
		t.Error("linux without DISPLAY: available")
	}
	env["WAYLAND_DISPLAY"] = "wayland-0"
	if !DisplayAvailable(get) {
		t.Error("linux with WAYLAND_DISPLAY: unavailable")
	}
	goos = "darwin"
	if !DisplayAvailable(func(string) string { return "" }) {
		t.Error("darwin: unavailable")
	}
}
