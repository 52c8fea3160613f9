//go:build smoketest

package frontend

import "embed"

// distDir is the UI a smoketest build serves: the frontend built with
// `vite build --mode smoketest`, which keeps the page's test hooks
// (`make smoketest` builds it first; docs/testing.md).
const distDir = "dist-smoketest"

//go:embed all:dist-smoketest
var embedded embed.FS
