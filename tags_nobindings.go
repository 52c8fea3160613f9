//go:build !bindings

package main

// bindingsBuild is false in every normal build.
const bindingsBuild = false
