package dashboard

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
)

// legacyCookieName is the cookie versions before this one set on the first
// page load ("agenthub_token_PORT"). Cookies are not port-scoped, so a
// browser sent it to every server on the host: nothing accepts it any more,
// and a request still carrying it is answered with its deletion.
func (s *Server) legacyCookieName() string { return "agenthub_token_" + strconv.Itoa(s.port) }

// check wraps every route: security headers, the Host header check (DNS
// rebinding) and the Origin check (cross-site requests). Authentication is
// per route (requireToken, requireTokenOrSignature, the stream's attach
// token); no route takes a cookie as proof.
func (s *Server) check(next http.Handler) http.Handler {
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
		if _, err := r.Cookie(s.legacyCookieName()); err == nil {
			http.SetCookie(w, &http.Cookie{Name: s.legacyCookieName(), Value: "", Path: "/", MaxAge: -1,
				HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		next.ServeHTTP(w, r)
	})
}

// requireToken lets a request through only with Authorization: Bearer TOKEN.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.bearer(r) != bearerValid {
			unauthorized(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// unauthorized answers 401 with the Bearer challenge.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="agenthub"`)
	http.Error(w, "unauthorized: the dashboard token is required (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
}

// bearerState is what a request's Authorization header says.
type bearerState int

const (
	bearerAbsent bearerState = iota
	bearerValid
	bearerInvalid
)

// bearer reports whether r carries Authorization: Bearer with the token.
// A header that is present but is not the token is bearerInvalid.
func (s *Server) bearer(r *http.Request) bearerState {
	a := r.Header.Get("Authorization")
	if a == "" {
		return bearerAbsent
	}
	scheme, tok, ok := strings.Cut(a, " ")
	if ok && strings.EqualFold(scheme, "Bearer") && s.tokenEqual(strings.TrimSpace(tok)) {
		return bearerValid
	}
	return bearerInvalid
}

// tokenEqual compares in constant time (for equal lengths).
func (s *Server) tokenEqual(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}
