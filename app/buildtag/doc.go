// Package buildtag reports, as constants, the build tags that change what
// the binary can do (as Go's internal/race does with Enabled): Desktop, a
// build with the Wails "desktop" tag that can open a window, and Bindings,
// the binary `go tool wails generate module` builds to write
// frontend/wailsjs.
package buildtag
