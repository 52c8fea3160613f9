package dashboard

import (
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// csp is the Content-Security-Policy of every page: scripts, styles and
// connections only from this origin (plus its WebSocket form), no framing,
// no plugins, no inline script.
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
		"img-src 'self' data:",
		"font-src 'self'",
		"connect-src 'self' " + strings.Join(ws, " "),
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
		"object-src 'none'",
	}, "; ")
}

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

// serveIndex writes index.html directly (FileServer would redirect
// /index.html to /, dropping the ?token= query).
func serveIndex(w http.ResponseWriter, r *http.Request, assets fs.FS) {
	b, err := fs.ReadFile(assets, "index.html")
	if errors.Is(err, fs.ErrNotExist) {
		http.Error(w, "the frontend is not built (frontend/dist/index.html missing): run `make run`", http.StatusNotFound)
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
