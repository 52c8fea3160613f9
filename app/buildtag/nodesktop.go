//go:build !desktop

package buildtag

// Desktop is false without the Wails "desktop" tag: the binary is
// headless only (and builds with CGO_ENABLED=0).
const Desktop = false
