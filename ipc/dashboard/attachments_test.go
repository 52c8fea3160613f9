package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"agenthub/ipc"
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
