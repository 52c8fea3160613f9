//go:build desktop

package main

// desktopBuild is true when built with the Wails "desktop" tag (cgo, GTK,
// WebKit): only then can a window open.
const desktopBuild = true
