//go:build desktop

package buildtag

// Desktop is true when built with the Wails "desktop" tag (cgo, GTK,
// WebKit): only then can a window open.
const Desktop = true
