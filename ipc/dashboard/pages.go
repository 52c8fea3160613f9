package dashboard

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// csp is the Content-Security-Policy of every page: scripts, styles and
// connections only from this origin (plus its WebSocket form), no framing,
// no plugins, no inline script. Images may come from http(s) because the
// page itself never loads a remote image unasked: Markdown shows each as a
// placeholder until the user clicks it (frontend/src/markdown/images.ts).
func (s *Server) csp() string {
	p := strconv.Itoa(s.port)
	var ws []string
	for _, h := range []string{"127.0.0.1", "localhost"} {
		ws = append(ws, "ws://"+h+":"+p)
	}
	if s.host != "127.0.0.1" {
		ws = append(ws, "ws://"+s.host+":"+p)
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src " + ImageSources,
		"font-src 'self'",
		"connect-src 'self' " + strings.Join(ws, " "),
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
		"object-src 'none'",
	}, "; ")
}

// ImageSources is the CSP img-src of the dashboard and the window.
const ImageSources = "'self' data: http: https:"

// WindowCSP is the Content-Security-Policy of the desktop window's pages:
// the dashboard's policy for a page that talks to Go through Wails IPC
// instead of HTTP and WebSockets (connect-src 'self' only).
const WindowCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src " + ImageSources +
	"; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"

// pageHandler serves the built frontend: "/" is index.html (never cached),
// files under /assets/ are content-hashed (cached immutably), anything
// missing is 404. Every response carries the CSP.
func pageHandler(assets fs.FS, csp string) http.Handler {
	files := http.FileServerFS(assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" || name == "index.html" {
			serveIndex(w, r, assets)
			return
		}
		if _, err := fs.Stat(assets, name); err != nil {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(name, "assets/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		files.ServeHTTP(w, r)
	})
}

// NoUIPage is served at / by a binary built without the frontend (its
// frontend/dist was empty at build time), with status 503: the hub and its
// API run, and the page says how to get the UI.
const NoUIPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent Hub: UI not built</title></head>
<body>
<h1>Agent Hub is running, but this binary has no UI</h1>
<p>It was built without the dashboard frontend (<code>frontend/dist</code> was empty when
<code>go build</code> ran). The hub, its HTTP API and its WebSocket stream work as usual.</p>
<p>To build a headless binary with the UI, run this in the repository (it needs Node.js and Go):</p>
<pre>make headless &amp;&amp; ./build/bin/agenthub-headless --headless</pre>
<p>or build the frontend yourself before <code>go build</code>:</p>
<pre>cd frontend &amp;&amp; npm ci &amp;&amp; npx vite build &amp;&amp; cd .. &amp;&amp; CGO_ENABLED=0 go build -o agenthub .</pre>
</body></html>
`

// serveIndex writes index.html directly (FileServer would redirect
// /index.html to /, dropping the ?token= query).
func serveIndex(w http.ResponseWriter, r *http.Request, assets fs.FS) {
	b, err := fs.ReadFile(assets, "index.html")
	if errors.Is(err, fs.ErrNotExist) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, NoUIPage)
		return
	}
	if err != nil {
		http.Error(w, "reading index.html failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(b)
}
