//go:build !smoketest

package main

import "embed"

// distDir is the UI a product build serves: the frontend's normal build,
// which has no test hooks (`make build`, `make frontend`).
const distDir = "frontend/dist"

//go:embed all:frontend/dist
var embedded embed.FS
