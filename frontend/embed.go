//go:build !smoketest

package frontend

import "embed"

// distDir is the UI a product build serves: the frontend's normal build,
// which has no test hooks (`make build`, `make frontend`).
const distDir = "dist"

//go:embed all:dist
var embedded embed.FS
