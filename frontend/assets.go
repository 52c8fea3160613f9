// Package frontend holds the built UI the binary embeds: frontend/dist in a
// product build (embed.go) and frontend/dist-smoketest, built with the
// page's test hooks, in a build with the smoketest tag (embed_smoketest.go;
// docs/testing.md). The sources beside it are the React/TypeScript app.
package frontend

import "io/fs"

// Assets returns the embedded UI with its build folder as the root
// (index.html at the top), as the window and the dashboard serve it.
func Assets() (fs.FS, error) {
	return fs.Sub(embedded, distDir)
}
