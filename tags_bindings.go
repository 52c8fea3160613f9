//go:build bindings

package main

// bindingsBuild is true in the binary `go tool wails generate module`
// builds and runs to write frontend/wailsjs.
const bindingsBuild = true
