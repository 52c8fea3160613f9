package app

// DisplayAvailable reports whether a window can be opened: always on macOS
// and Windows; elsewhere when DISPLAY or WAYLAND_DISPLAY is set.
func DisplayAvailable(getenv func(string) string) bool {
	switch goos {
	case "darwin", "windows":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}
