//go:build smoketest

package main

import "embed"

// distDir is the UI a smoketest build serves: the frontend built with
// `vite build --mode smoketest`, which keeps the page's test hooks
// (`make smoketest` builds it first; docs/testing.md).
const distDir = "frontend/dist-smoketest"

//go:embed all:frontend/dist-smoketest
var embedded embed.FS
