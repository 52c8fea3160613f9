//go:build bindings

package buildtag

// Bindings is true in the binary `go tool wails generate module`
// builds and runs to write frontend/wailsjs.
const Bindings = true
