//go:build bindings && !smoketest

package smoketest

import (
	"log/slog"

	"agenthub/app"
)

// newRun is never called in the bindings generator, which only binds the
// page's side; it has no smoke run.
func newRun(*harness, func(string) string, *slog.Logger) app.WindowDriver { return nil }
