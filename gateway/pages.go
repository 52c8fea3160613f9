package gateway

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// BackendMeta is put into the served index.html's head: the page reads it
// and talks to hubs through this gateway (frontend/src/transport/gateway.ts)
// instead of a dashboard port.
const BackendMeta = `<meta name="agenthub-backend" content="gateway">`

// pageCSP: scripts, styles and connections from this origin only (the
// Socket.io connection is same-origin: 'self' covers ws: and wss:), no
// framing, no plugins, no inline script; images as the dashboard allows
// (a Markdown image loads only when clicked).
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: http: https:; " +
	"font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"

// pages serves the built UI: / is index.html with BackendMeta, files under
// /assets/ are content-hashed and cached, anything else missing is 404.
func pages(assets fs.FS) http.Handler {
	index, err := fs.ReadFile(assets, "index.html")
	if err == nil {
		index = bytes.Replace(index, []byte("<head>"), []byte("<head>"+BackendMeta), 1)
	}
	files := http.FileServerFS(assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" || name == "index.html" {
			if index == nil {
				http.Error(w, "this gateway was built without the UI (make headless builds it)", http.StatusServiceUnavailable)
				return
			}
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Cache-Control", "no-store")
			_, _ = w.Write(index)
			return
		}
		if _, err := fs.Stat(assets, name); err != nil {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(name, "assets/") {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		files.ServeHTTP(w, r)
	})
}
