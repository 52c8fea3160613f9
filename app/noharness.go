//go:build !smoketest

package app

import (
	"flag"
	"log/slog"
)

// harnessConfig is empty in a product build: it has no desktop test
// harness, so no --smoke-test flag (it is an unknown flag: exit status 2)
// and no AGENTHUB_SMOKE. Builds with the smoketest tag have them
// (smoke.go; docs/testing.md).
type harnessConfig struct{}

func (*harnessConfig) addFlags(*flag.FlagSet)      {}
func (*harnessConfig) fromEnv(func(string) string) {}

// newWindowDriver returns nil: nothing but the page drives a product
// build's window.
func newWindowDriver(*App, harnessConfig, func(string) string, *slog.Logger) windowDriver {
	return nil
}
