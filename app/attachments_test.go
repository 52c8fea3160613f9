package app

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"

	"agenthub/ipc/wailsipc"
)

// The window uploads through the bound UploadAttachment and reads
// /attachments/{id} from its own asset server; every other path reaches
// the assets.
func TestWindowAttachments(t *testing.T) {
	inst, err := Open(testConfig(t, t.TempDir()), OpenOptions{Headless: true, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	a := NewApp(inst)
	info, err := a.UploadAttachment("notes.txt", "text/plain", base64.StdEncoding.EncodeToString([]byte("hello\n")))
	if err != nil || info.Kind != "text" || info.Bytes != 6 {
		t.Fatalf("UploadAttachment = %+v, %v", info, err)
	}
	if _, err := a.UploadAttachment("x", "", "not base64!"); err == nil {
		t.Fatal("a malformed upload was taken")
	}
	assets := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("asset " + r.URL.Path)) })
	h := windowOptions(a, &wailsipc.Bridge{}, nil, nil, nil).AssetServer.Middleware(assets) // the window's CSP around its attachments
	for _, tc := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/attachments/" + info.ID, 200, "hello\n"},
		{"GET", "/attachments/" + info.ID[:60], 404, ""},
		{"GET", "/attachments/../agenthub.db", 404, ""},
		{"POST", "/attachments/" + info.ID, 405, ""},
		{"GET", "/index.html", 200, "asset /index.html"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != tc.status || tc.body != "" && rec.Body.String() != tc.body {
			t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, rec.Code, rec.Body.String(), tc.status, tc.body)
		}
	}
}
