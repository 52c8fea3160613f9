package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"agenthub/ipc"
	"agenthub/ipc/dashboard"
)

// UploadAttachment stores a file the user pasted or dropped into the
// window's composer (data is its bytes, base64) and returns what the hub
// kept: the id a turn submission names, and for an image its stored size
// (resized to the providers' limits). An unsupported or too large file is
// an error that says so. The browser dashboard uploads with POST
// /attachments instead.
func (a *App) UploadAttachment(name, mediaType, data string) (ipc.AttachmentInfo, error) {
	if a.inst == nil {
		return ipc.AttachmentInfo{}, errNotStarted
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return ipc.AttachmentInfo{}, fmt.Errorf("the upload of %q is not base64: %w", name, err)
	}
	return a.inst.Hub.PutAttachment(context.Background(), name, mediaType, raw)
}

// attachmentsPath is where the window reads attachments (the same path as
// the dashboard's GET /attachments/{id}, so the page uses one relative URL).
const attachmentsPath = "/attachments/"

// windowAttachments serves GET /attachments/{id} in the window's asset
// server from inst's hub and passes every other request to next. Only
// the window's own webview reaches its asset server.
func windowAttachments(inst *Instance, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, attachmentsPath)
		if !ok || inst == nil || inst.Hub == nil {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		dashboard.ServeAttachment(w, r, inst.Hub, id, func(w http.ResponseWriter, err error) {
			status := http.StatusInternalServerError
			if errors.Is(err, ipc.ErrAttachmentNotFound) {
				status = http.StatusNotFound
			}
			http.Error(w, err.Error(), status)
		})
	})
}
