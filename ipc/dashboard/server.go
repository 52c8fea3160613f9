// Package dashboard is the localhost HTTP listener of Agent Hub's browser
// dashboard: it binds loopback only, checks the Host and Origin headers on
// every request, requires the per-launch token (Authorization: Bearer) on
// every route but the pages (which carry no secret), sets a strict
// Content-Security-Policy on pages and serves the embedded frontend, GET
// /healthz and POST /signed-urls. Other transports (the protocol's HTTP and
// WebSocket endpoints) mount on it with Handle and inherit the same checks.
// No route takes a cookie as proof.
package dashboard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Options configures Listen.
type Options struct {
	// Addr is the loopback HOST:PORT to bind; port 0 picks a free one.
	Addr string
	// Token is the per-launch secret; empty generates 32 random bytes (hex).
	Token string
	// Assets is the built frontend (index.html at its root); nil serves no pages.
	Assets fs.FS
	// Logger receives request failures; nil means slog.Default().
	Logger *slog.Logger
	// IdleTimeout closes a keep-alive connection idle for this long
	// (zero: DefaultIdleTimeout).
	IdleTimeout time.Duration
	// SignedURLTTL is how long a signed URL stays valid (zero: SignedURLTTL).
	SignedURLTTL time.Duration
	// Now is the clock of signed-URL expiry [time.Now].
	Now func() time.Time
}

// DefaultIdleTimeout is how long an idle keep-alive connection stays open.
const DefaultIdleTimeout = 60 * time.Second

// connKey is the request-context key of the request's raw connection.
type connKey struct{}

// requestConn returns the raw TCP connection a request arrived on (set by
// the server's ConnContext), or nil.
func requestConn(ctx context.Context) net.Conn {
	c, _ := ctx.Value(connKey{}).(net.Conn)
	return c
}

// Server is a bound, not yet serving, dashboard listener. Mount handlers
// with Handle before Serve; Serve runs until its context ends.
type Server struct {
	ln     net.Listener
	token  string
	port   int
	host   string // the bound IP as text, bracketed for IPv6
	log    *slog.Logger
	mux    *http.ServeMux
	hosts  map[string]bool // accepted Host header values
	origin map[string]bool // accepted Origin header values
	idle   time.Duration

	signKey  []byte         // per-launch HMAC key of signed URLs
	signable *http.ServeMux // the routes a signed URL may name (handlers unused)
	signTTL  time.Duration
	now      func() time.Time

	mu      sync.Mutex
	serving bool
}

// Listen validates opts.Addr (loopback only), binds it and returns the
// server with GET /healthz and the frontend (GET /) mounted.
func Listen(opts Options) (*Server, error) {
	if err := ValidateAddr(opts.Addr); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	token := opts.Token
	if token == "" {
		t, err := NewToken()
		if err != nil {
			return nil, err
		}
		token = t
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("dashboard: listen %s: %w", opts.Addr, err)
	}
	tcp, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		_ = ln.Close()
		return nil, fmt.Errorf("dashboard: %s resolved to non-loopback %s", opts.Addr, ln.Addr())
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("dashboard: signing key: %w", err)
	}
	s := &Server{
		ln:     ln,
		token:  token,
		port:   tcp.Port,
		host:   hostLiteral(tcp.IP),
		log:    log,
		mux:    http.NewServeMux(),
		hosts:  map[string]bool{},
		origin: map[string]bool{},
		idle:   opts.IdleTimeout,

		signKey:  key,
		signable: http.NewServeMux(),
		signTTL:  opts.SignedURLTTL,
		now:      opts.Now,
	}
	if s.idle <= 0 {
		s.idle = DefaultIdleTimeout
	}
	if s.signTTL <= 0 {
		s.signTTL = SignedURLTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	p := strconv.Itoa(s.port)
	for _, h := range []string{"127.0.0.1", "localhost", s.host} {
		s.hosts[h+":"+p] = true
		s.origin["http://"+h+":"+p] = true
	}
	s.Handle("GET /healthz", http.HandlerFunc(s.healthz))
	s.Handle("POST /signed-urls", http.HandlerFunc(s.signedURL))
	denyOtherMethods(s, "/signed-urls", "POST")
	if opts.Assets != nil {
		// The pages carry no secret and load without the token: the page
		// reads it from its first URL's ?token= (docs/protocol.md §2).
		s.mount("GET /", pageHandler(opts.Assets, s.csp()))
	}
	return s, nil
}

// NewToken returns a fresh random token: 32 bytes from crypto/rand, hex.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("dashboard: token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// hostLiteral renders ip for a URL host: bracketed when IPv6.
func hostLiteral(ip net.IP) string {
	if ip.To4() != nil {
		return ip.String()
	}
	return "[" + ip.String() + "]"
}

// Handle mounts h at pattern (net/http ServeMux syntax, e.g.
// "POST /sessions/{id}/turns") behind the same Host and Origin checks as
// every other route and the bearer token (Authorization: Bearer TOKEN).
// It panics if called after Serve began, or on a pattern conflict (as
// ServeMux does): both are programming errors.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mount(pattern, s.requireToken(h))
}

// mount is Handle without the token check: h authenticates the request
// itself (or, for the pages, needs no proof).
func (s *Server) mount(pattern string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.serving {
		panic("dashboard: Handle after Serve")
	}
	s.mux.Handle(pattern, h)
}

// Token returns the per-launch token.
func (s *Server) Token() string { return s.token }

// Port returns the bound TCP port.
func (s *Server) Port() int { return s.port }

// Addr returns the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// BaseURL returns "http://HOST:PORT" for the bound loopback address.
func (s *Server) BaseURL() string { return "http://" + s.host + ":" + strconv.Itoa(s.port) }

// URL returns the first-page-load URL "http://HOST:PORT/?token=TOKEN": the
// page keeps the token in sessionStorage and takes it out of the address
// bar. It is a credential: print it for the user, never log it.
func (s *Server) URL() string { return s.BaseURL() + "/?token=" + s.token }

// Serve answers requests until ctx ends, then shuts down gracefully (open
// requests get up to 5 s) and returns nil. Any other failure of the
// listener is returned. Serve must be called at most once.
func (s *Server) Serve(ctx context.Context) error {
	s.mu.Lock()
	if s.serving {
		s.mu.Unlock()
		return errors.New("dashboard: Serve called twice")
	}
	s.serving = true
	s.mu.Unlock()

	srv := &http.Server{
		Handler:           s.check(s.mux),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       s.idle,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("dashboard: serve: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("dashboard: serve: %w", err)
	}
	return nil
}

// Close releases the listener of a server whose Serve was never called.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.serving {
		return nil
	}
	s.serving = true // forbid a later Serve
	return s.ln.Close()
}

// healthz answers GET /healthz with {"status":"ok"}.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}
