package window

import "runtime"

// goos is the platform the display rules follow.
var goos = runtime.GOOS

// DisplayAvailable reports whether a window can be opened: always on macOS
// and Windows; elsewhere when DISPLAY or WAYLAND_DISPLAY is set.
func DisplayAvailable(getenv func(string) string) bool {
	switch goos {
	case "darwin", "windows":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}
