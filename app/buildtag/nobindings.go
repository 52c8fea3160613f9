//go:build !bindings

package buildtag

// Bindings is false in every normal build.
const Bindings = false
