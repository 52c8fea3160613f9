//go:build smoketest || bindings

package smoketest

import (
	"flag"
	"log/slog"

	"agenthub/app"
)

func init() {
	app.RegisterDriver(func() app.Driver { return &harness{page: &Page{}} })
}

// SmokeEnv names the smoke test's screenshot directory when --smoke-test
// is not given.
const SmokeEnv = "AGENTHUB_SMOKE"

// harness is the app.Driver of the desktop test harness. Dir (--smoke-test
// DIR, or SmokeEnv) makes the desktop app save a screenshot there once the
// page reports ready, then quit; a page that never reports ready fails the
// run. With TestControlEnv=stdio the harness is driven by commands on stdin
// instead. Headless runs ignore it.
type harness struct {
	Dir  string
	page *Page
}

// AddFlags implements app.Driver: it registers --smoke-test.
func (h *harness) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&h.Dir, "smoke-test", "", "desktop smoke test (smoketest builds only): screenshot into `DIR` once the page is ready, then quit")
}

// FromEnv implements app.Driver: Dir from SmokeEnv when the flag left it
// empty; getenv may be nil.
func (h *harness) FromEnv(getenv func(string) string) {
	if h.Dir == "" && getenv != nil {
		h.Dir = getenv(SmokeEnv)
	}
}

// Bind implements app.Driver: the page's side, Page.
func (h *harness) Bind() []any { return []any{h.page} }

// New implements app.Driver: the smoke test of the window when Dir is set,
// else nil.
func (h *harness) New(getenv func(string) string, log *slog.Logger) app.WindowDriver {
	if h.Dir == "" {
		return nil
	}
	return newRun(h, getenv, log)
}
