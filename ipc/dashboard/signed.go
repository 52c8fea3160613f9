package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// SignedURLTTL is how long a signed URL stays valid (Options.SignedURLTTL
// overrides it).
const SignedURLTTL = 5 * time.Minute

// A signed URL lets a page load a resource with a plain <img src> or
// <a href download>, which cannot carry the Authorization header:
// PATH?exp=UNIX&sig=SIG, where SIG is the unpadded base64url HMAC-SHA256,
// under a key made fresh for each launch, of "GET\n" + PATH (as escaped in
// the URL) + "\n" + UNIX. It is valid until the second UNIX, for that path
// only, and only on a route mounted with handleSigned.

// handleSigned mounts a GET route that takes either the bearer token or a
// valid signed URL, and makes its path signable by SignURL.
func (s *Server) handleSigned(pattern string, h http.Handler) {
	s.mount(pattern, s.requireTokenOrSignature(h))
	s.signable.Handle(pattern, http.NotFoundHandler())
}

// requireTokenOrSignature lets a request through with the bearer token, or
// without any Authorization header but with a valid signature.
func (s *Server) requireTokenOrSignature(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch s.bearer(r) {
		case bearerValid:
		case bearerAbsent:
			if !s.validSignature(r) {
				unauthorized(w)
				return
			}
		default:
			unauthorized(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// errNotSignable is SignURL's refusal of a path no signed route serves.
var errNotSignable = errors.New("not a path a signed URL may name (GET /attachments/{id} or /sessions/{id}/tools/{tool_use_id}/output)")

// SignURL returns p (an absolute path such as "/attachments/ID", without
// query or fragment) as a signed URL path and the time it expires. p must
// name a route mounted with handleSigned.
func (s *Server) SignURL(p string) (string, time.Time, error) {
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		!strings.HasPrefix(u.Path, "/") || path.Clean(u.Path) != u.Path {
		return "", time.Time{}, errNotSignable
	}
	if _, pattern := s.signable.Handler(&http.Request{Method: http.MethodGet, URL: u}); pattern == "" {
		return "", time.Time{}, errNotSignable
	}
	exp := s.now().Add(s.signTTL).Unix()
	esc := u.EscapedPath()
	return esc + "?exp=" + strconv.FormatInt(exp, 10) + "&sig=" + s.mac(esc, exp), time.Unix(exp, 0), nil
}

// mac is the signature of escaped path p expiring at exp.
func (s *Server) mac(p string, exp int64) string {
	m := hmac.New(sha256.New, s.signKey)
	fmt.Fprintf(m, "GET\n%s\n%d", p, exp)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validSignature reports whether r's exp and sig sign its path and have not
// expired.
func (s *Server) validSignature(r *http.Request) bool {
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("exp"), 10, 64)
	if err != nil || !s.now().Before(time.Unix(exp, 0)) {
		return false
	}
	return hmac.Equal([]byte(q.Get("sig")), []byte(s.mac(r.URL.EscapedPath(), exp)))
}

// SignedURL is the answer of POST /signed-urls.
type SignedURL struct {
	// URL is the signed path with its exp and sig query (same origin).
	URL string `json:"url"`
	// ExpiresAt is when it stops working.
	ExpiresAt time.Time `json:"expires_at"`
}

// signedURL answers POST /signed-urls {"path"} with a SignedURL; a path no
// signed route serves is 400 invalid_input.
func (s *Server) signedURL(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Path string `json:"path"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	u, exp, err := s.SignURL(body.Path)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_input", fmt.Sprintf("path %q: %v", body.Path, err))
		return
	}
	writeJSON(w, http.StatusOK, SignedURL{URL: u, ExpiresAt: exp.UTC()})
}
