package dashboard

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
)

// cookieName is the session cookie carrying the token after the first page
// load. Cookies are not port-scoped, so the port is part of the name: two
// instances on one machine never overwrite each other's cookie.
func (s *Server) cookieName() string { return "agenthub_token_" + strconv.Itoa(s.port) }

// guard wraps every route: Host header check (DNS rebinding), Origin check
// (cross-site requests), then the token from the Authorization header, the
// cookie, or the ?token= query. A valid query token sets the HttpOnly,
// SameSite=Strict cookie so later requests from the page carry it.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if !s.hosts[strings.ToLower(r.Host)] {
			http.Error(w, "forbidden: unexpected Host header", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !s.origin[strings.ToLower(o)] {
			http.Error(w, "forbidden: cross-origin request", http.StatusForbidden)
			return
		}
		switch src := s.authenticate(r); src {
		case authNone:
			h.Set("WWW-Authenticate", `Bearer realm="agenthub"`)
			http.Error(w, "unauthorized: the dashboard token is required (Authorization: Bearer TOKEN, or ?token=TOKEN on first load)", http.StatusUnauthorized)
			return
		case authQuery:
			http.SetCookie(w, &http.Cookie{
				Name:     s.cookieName(),
				Value:    s.token,
				Path:     "/",
				HttpOnly: true,
				SameSite: http.SameSiteStrictMode,
			})
		}
		next.ServeHTTP(w, r)
	})
}

// authSource says where a valid token came from.
type authSource int

const (
	authNone authSource = iota
	authHeader
	authCookie
	authQuery
)

// authenticate returns where the request's valid token came from, or
// authNone. An Authorization header that is present but wrong fails even if
// a cookie or query token would match.
func (s *Server) authenticate(r *http.Request) authSource {
	if a := r.Header.Get("Authorization"); a != "" {
		scheme, tok, ok := strings.Cut(a, " ")
		if ok && strings.EqualFold(scheme, "Bearer") && s.tokenEqual(strings.TrimSpace(tok)) {
			return authHeader
		}
		return authNone
	}
	if c, err := r.Cookie(s.cookieName()); err == nil && s.tokenEqual(c.Value) {
		return authCookie
	}
	if q := r.URL.Query().Get("token"); q != "" && s.tokenEqual(q) {
		return authQuery
	}
	return authNone
}

// tokenEqual compares in constant time (for equal lengths).
func (s *Server) tokenEqual(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}
