package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/dashboard"
	"agenthub/ipc/rpc/hubtest"
)

// gifBytes is a 1×1 GIF.
const gifBytes = "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"

// TestAttachmentRoutes: POST /attachments stores an upload behind the
// token, GET /attachments/{id} serves it with its type under a policy
// that runs nothing, and a turn submitted with only attachments is taken.
func TestAttachmentRoutes(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	resp, b := f.do("POST", "/attachments?name=dot.gif", gifBytes, "Content-Type", "image/gif")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
	info := decode[ipc.AttachmentInfo](t, b)
	if info.Kind != "image" || info.Name != "dot.gif" || info.MediaType != "image/gif" || len(info.ID) != 64 {
		t.Fatalf("upload answer %+v", info)
	}
	resp, b = f.do("GET", "/attachments/"+info.ID, "")
	if resp.StatusCode != 200 || string(b) != gifBytes || resp.Header.Get("Content-Type") != "image/gif" ||
		!strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("GET: %d %v", resp.StatusCode, resp.Header)
	}
	// Without the token: nothing, either way.
	resp, _ = f.do("GET", "/attachments/"+info.ID, "", "Authorization", "")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET without the token: %d", resp.StatusCode)
	}
	resp, _ = f.do("POST", "/attachments?name=x.txt", "text", "Authorization", "")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST without the token: %d", resp.StatusCode)
	}
	// A cross-site page cannot upload either.
	resp, _ = f.do("POST", "/attachments?name=x.txt", "text", "Origin", "http://evil.example")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin POST: %d", resp.StatusCode)
	}
	resp, b = f.do("GET", "/attachments/"+strings.Repeat("0", 64), "")
	f.wantError(resp, b, http.StatusNotFound, "attachment_not_found")
	resp, b = f.do("POST", "/attachments?name=a.bin", "\x00\x01\x02")
	f.wantError(resp, b, http.StatusBadRequest, "invalid_input")
	resp, b = f.do("POST", "/attachments?name=big.txt", strings.Repeat("a", hubtest.MaxAttachmentBytes+1))
	f.wantError(resp, b, http.StatusRequestEntityTooLarge, "too_large")
	resp, b = f.do("PUT", "/attachments", "")
	f.wantError(resp, b, http.StatusMethodNotAllowed, "")

	id := f.session()
	resp, b = f.do("POST", "/sessions/"+id+"/turns", `{"attachments":[{"id":"`+info.ID+`","name":"dot.gif"}]}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit with an attachment only: %d %s", resp.StatusCode, b)
	}
	if got := f.hub.Attached(); len(got) != 1 || got[0].ID != info.ID {
		t.Fatalf("the hub got attachments %+v", got)
	}
	resp, b = f.do("POST", "/sessions/"+id+"/turns", `{"content":"hi","attachments":[{"id":"`+strings.Repeat("1", 64)+`"}]}`)
	f.wantError(resp, b, http.StatusBadRequest, "invalid_input")
	resp, b = f.do("POST", "/sessions/"+id+"/turns", `{}`)
	f.wantError(resp, b, http.StatusBadRequest, "invalid_input")
}

// TestSignedURLs: an <img src> cannot carry the bearer header, so the page
// asks POST /signed-urls for a short-lived URL of one attachment or tool
// output. It works without any header for that path until it expires; a
// changed path, expiry or signature, a wrong bearer beside it, or a path no
// signed route serves gets nothing.
func TestSignedURLs(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	resp, b := f.do("POST", "/attachments?name=dot.gif", gifBytes, "Content-Type", "image/gif")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
	id := decode[ipc.AttachmentInfo](t, b).ID
	sign := func(path string) dashboard.SignedURL {
		t.Helper()
		resp, b := f.do("POST", "/signed-urls", `{"path":"`+path+`"}`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("sign %s: %d %s", path, resp.StatusCode, b)
		}
		return decode[dashboard.SignedURL](t, b)
	}
	s := sign("/attachments/" + id)
	if !strings.HasPrefix(s.URL, "/attachments/"+id+"?exp=") || !strings.Contains(s.URL, "&sig=") ||
		s.ExpiresAt.After(time.Now().Add(dashboard.SignedURLTTL+time.Second)) || !s.ExpiresAt.After(time.Now()) {
		t.Fatalf("signed URL %+v", s)
	}
	if strings.Contains(s.URL, f.tok) {
		t.Fatal("the signed URL holds the token")
	}
	resp, b = f.do("GET", s.URL, "", "Authorization", "")
	if resp.StatusCode != 200 || string(b) != gifBytes {
		t.Fatalf("GET signed: %d %q", resp.StatusCode, b)
	}
	// Reusable until it expires (a thumbnail and its full-size view).
	if resp, _ = f.do("GET", s.URL, "", "Authorization", ""); resp.StatusCode != 200 {
		t.Fatalf("GET signed again: %d", resp.StatusCode)
	}
	q := s.URL[strings.Index(s.URL, "?"):]
	other := strings.Repeat("0", 64)
	exp := strings.TrimPrefix(strings.Split(q, "&")[0], "?exp=")
	for what, u := range map[string]string{
		"another attachment":   "/attachments/" + other + q,
		"another route":        "/sessions" + q,
		"a later expiry":       strings.Replace(s.URL, "exp="+exp, "exp=9"+exp, 1),
		"a changed signature":  s.URL[:len(s.URL)-2] + "AA",
		"no signature":         "/attachments/" + id + "?exp=" + exp,
		"the token as a query": "/attachments/" + id + "?token=" + f.tok,
	} {
		if resp, _ := f.do("GET", u, "", "Authorization", ""); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s (%s): %d, want 401", what, u, resp.StatusCode)
		}
	}
	if resp, _ := f.do("GET", s.URL, "", "Authorization", "Bearer wrong"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong bearer beside a good signature: %d, want 401", resp.StatusCode)
	}
	// A tool output's URL gets past the check (this hub keeps no outputs: 404).
	session := f.session()
	resp, b = f.do("GET", sign("/sessions/"+session+"/tools/tu_1/output").URL, "", "Authorization", "")
	f.wantError(resp, b, http.StatusNotFound, "tool_call_not_found")
	for _, bad := range []string{"/sessions", "/rpc", "/sessions/" + session, "/sessions/" + session + "/stream", "/", "/healthz",
		"/attachments/" + id + "?x=1", "/attachments/a/../../rpc", "http://evil.example/attachments/" + id, "//evil.example/attachments/" + id,
		"attachments/" + id, "/attachments/" + id + "#f", ""} {
		resp, b := f.do("POST", "/signed-urls", `{"path":"`+bad+`"}`)
		f.wantError(resp, b, http.StatusBadRequest, "invalid_input")
	}
	// Expired: nothing, however valid it was.
	f.advance(dashboard.SignedURLTTL + time.Second)
	if resp, _ := f.do("GET", s.URL, "", "Authorization", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("expired signed URL: %d, want 401", resp.StatusCode)
	}
	if resp, _ := f.do("GET", sign("/attachments/"+id).URL, "", "Authorization", ""); resp.StatusCode != 200 {
		t.Errorf("a fresh signed URL: %d", resp.StatusCode)
	}
}
