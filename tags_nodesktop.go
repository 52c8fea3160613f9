//go:build !desktop

package main

// desktopBuild is false without the Wails "desktop" tag: the binary is
// headless only (and builds with CGO_ENABLED=0).
const desktopBuild = false
