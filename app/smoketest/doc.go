// Package smoketest is the desktop test harness: --smoke-test DIR (or
// AGENTHUB_SMOKE) screenshots the window once the page reports ready and
// quits; with AGENTHUB_TEST_CONTROL=stdio the window is driven by JSON
// commands on stdin instead (app/desktoptest; docs/testing.md). It
// registers itself as the app's window Driver, and only in builds with
// the smoketest tag (make smoketest): in a product build this package is
// this comment alone, so the binary has no flag, no environment variable
// and no bound method of it. The bindings generator (tag bindings) gets
// the page's side, so frontend/wailsjs declares Page.TestReport.
package smoketest
