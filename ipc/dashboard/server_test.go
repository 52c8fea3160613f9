package dashboard

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// startServer binds a dashboard on a free loopback port with a tiny
// frontend and serves it until the test ends.
func startServer(t *testing.T) *Server {
	t.Helper()
	assets := fstest.MapFS{
		"index.html":       {Data: []byte("<!doctype html><title>Agent Hub</title>")},
		"assets/app-1.js":  {Data: []byte("console.log(1)")},
		"assets/app-1.css": {Data: []byte("body{}")},
	}
	s, err := Listen(Options{Addr: "127.0.0.1:0", Assets: assets})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	s.Handle("GET /api/echo", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "mounted")
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

// do sends a request to path on s with optional header edits; no redirects are followed.
func do(t *testing.T, s *Server, method, path string, edit func(*http.Request)) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.BaseURL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(req)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

func bearer(tok string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

func TestTokenRequiredOnEveryRoute(t *testing.T) {
	s := startServer(t)
	for _, p := range []string{"/healthz", "/api/echo"} {
		res := do(t, s, "GET", p, nil)
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without token: %d, want 401", p, res.StatusCode)
		}
		if res.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("GET %s: 401 without WWW-Authenticate", p)
		}
	}
	if res := do(t, s, "GET", "/healthz", bearer("wrong")); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong bearer: %d, want 401", res.StatusCode)
	}
	// The query token is for the page's script, never proof to the server.
	for _, p := range []string{"/healthz?token=wrong", "/healthz?token=" + s.Token(), "/api/echo?token=" + s.Token()} {
		if res := do(t, s, "GET", p, nil); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s: %d, want 401", p, res.StatusCode)
		}
	}
	if res := do(t, s, "GET", "/healthz?token="+s.Token(), bearer("wrong")); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong bearer + right query: %d, want 401", res.StatusCode)
	}
}

// TestPagesLoadWithoutTheToken: the page and its assets carry no secret and
// load without proof (the page reads ?token= itself); a missing file is 404.
func TestPagesLoadWithoutTheToken(t *testing.T) {
	s := startServer(t)
	for _, p := range []string{"/", "/?token=" + s.Token(), "/assets/app-1.js"} {
		res := do(t, s, "GET", p, nil)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", p, res.StatusCode)
		}
		if strings.Contains(string(body), s.Token()) {
			t.Errorf("GET %s: the page holds the token", p)
		}
		if c := res.Header.Values("Set-Cookie"); len(c) != 0 {
			t.Errorf("GET %s set a cookie: %q", p, c)
		}
	}
	if res := do(t, s, "GET", "/nope", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope: %d, want 404", res.StatusCode)
	}
}

// TestNoCookieIsProof (issue 32 row 5): the cookie older versions set, which
// every other server on 127.0.0.1 received, authenticates nothing; a
// request still carrying it is told to delete it.
func TestNoCookieIsProof(t *testing.T) {
	s := startServer(t)
	name := "agenthub_token_" + strconv.Itoa(s.Port())
	for _, p := range []string{"/healthz", "/api/echo"} {
		res := do(t, s, "GET", p, func(r *http.Request) { r.AddCookie(&http.Cookie{Name: name, Value: s.Token()}) })
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s with only the old cookie: %d, want 401", p, res.StatusCode)
		}
	}
	res := do(t, s, "GET", "/", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: name, Value: s.Token()}) })
	var gone bool
	for _, c := range res.Cookies() {
		gone = gone || (c.Name == name && c.MaxAge < 0 && c.Value == "")
	}
	if !gone {
		t.Errorf("the old cookie was not deleted: %q", res.Header.Values("Set-Cookie"))
	}
}

func TestBearerAndMountedHandler(t *testing.T) {
	s := startServer(t)
	res := do(t, s, "GET", "/healthz", bearer(s.Token()))
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("healthz with bearer: %d %q", res.StatusCode, body)
	}
	if res.Header.Get("Set-Cookie") != "" {
		t.Errorf("bearer request set a cookie: %q", res.Header.Get("Set-Cookie"))
	}
	res = do(t, s, "GET", "/api/echo", bearer(s.Token()))
	body, _ = io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || string(body) != "mounted" {
		t.Fatalf("mounted handler: %d %q", res.StatusCode, body)
	}
}

func TestHostAndOriginChecks(t *testing.T) {
	s := startServer(t)
	port := strconv.Itoa(s.Port())
	for _, host := range []string{"evil.example:" + port, "127.0.0.1:1", "localhost", "attacker.localhost:" + port} {
		res := do(t, s, "GET", "/healthz", func(r *http.Request) { bearer(s.Token())(r); r.Host = host })
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("Host %q: %d, want 403", host, res.StatusCode)
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port} {
		res := do(t, s, "GET", "/healthz", func(r *http.Request) { bearer(s.Token())(r); r.Host = host })
		if res.StatusCode != http.StatusOK {
			t.Errorf("Host %q: %d, want 200", host, res.StatusCode)
		}
	}
	res := do(t, s, "GET", "/healthz", func(r *http.Request) { bearer(s.Token())(r); r.Header.Set("Origin", "http://evil.example") })
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin: %d, want 403", res.StatusCode)
	}
	res = do(t, s, "GET", "/healthz", func(r *http.Request) { bearer(s.Token())(r); r.Header.Set("Origin", "http://localhost:"+port) })
	if res.StatusCode != http.StatusOK {
		t.Errorf("own Origin: %d, want 200", res.StatusCode)
	}
}

func TestPagesCarryCSPAndCaching(t *testing.T) {
	s := startServer(t)
	res := do(t, s, "GET", "/", bearer(s.Token()))
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "ws://127.0.0.1:" + strconv.Itoa(s.Port())} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP allows unsafe sources: %q", csp)
	}
	if got := res.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("index Cache-Control %q, want no-store", got)
	}
	if got := res.Header.Get("X-Frame-Options"); got != "DENY" {
		t.Errorf("X-Frame-Options %q", got)
	}
	asset := do(t, s, "GET", "/assets/app-1.css", bearer(s.Token()))
	if asset.StatusCode != http.StatusOK || !strings.Contains(asset.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("asset: %d Cache-Control %q", asset.StatusCode, asset.Header.Get("Cache-Control"))
	}
	if res := do(t, s, "GET", "/missing.js", bearer(s.Token())); res.StatusCode != http.StatusNotFound {
		t.Errorf("missing file: %d, want 404", res.StatusCode)
	}
	if res := do(t, s, "POST", "/healthz", bearer(s.Token())); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz: %d, want 405", res.StatusCode)
	}
}

// TestNoUIPage: a binary built without the frontend (empty frontend/dist,
// only .gitkeep) answers / with a page that says how to build the UI.
func TestNoUIPage(t *testing.T) {
	s, err := Listen(Options{Addr: "127.0.0.1:0", Assets: fstest.MapFS{".gitkeep": {}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	defer func() { cancel(); <-done }()
	res := do(t, s, "GET", "/", bearer(s.Token()))
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "make headless") ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || res.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("%d %q %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
}

func TestListenRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.168.1.10:0", "[::]:0", "example.com:0", "127.0.0.1", "127.0.0.1:99999", "127.0.0.1:http"} {
		if s, err := Listen(Options{Addr: addr}); err == nil {
			_ = s.Close()
			t.Errorf("Listen(%q) succeeded, want refusal", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		s, err := Listen(Options{Addr: addr})
		if err != nil {
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		if s.Port() == 0 || !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
			t.Errorf("Listen(%q): port %d url %s", addr, s.Port(), s.URL())
		}
		_ = s.Close()
	}
}

func TestInfoFile(t *testing.T) {
	dir := t.TempDir()
	s, err := Listen(Options{Addr: "127.0.0.1:0", Token: "tok123"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A stale, world-readable file from an earlier run is replaced.
	if err := os.WriteFile(filepath.Join(dir, InfoFileName), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := s.WriteInfoFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(p)
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	wantURL := "http://127.0.0.1:" + strconv.Itoa(s.Port()) + "/?token=tok123"
	if got["url"] != wantURL || got["port"] != float64(s.Port()) || got["token"] != "tok123" || len(got) != 3 {
		t.Errorf("dashboard.json = %s", b)
	}
	if err := s.RemoveInfoFile(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("dashboard.json still exists: %v", err)
	}
}

func TestRemoveInfoFileKeepsAnotherInstancesFile(t *testing.T) {
	dir := t.TempDir()
	s, err := Listen(Options{Addr: "127.0.0.1:0", Token: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := filepath.Join(dir, InfoFileName)
	if err := os.WriteFile(p, []byte(`{"url":"x","port":1,"token":"theirs"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveInfoFile(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("another instance's dashboard.json was removed: %v", err)
	}
}

func TestTokensAreRandom(t *testing.T) {
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewToken()
	if len(a) != 64 || a == b {
		t.Errorf("tokens %q %q", a, b)
	}
}
