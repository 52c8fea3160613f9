package dashboard

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"agenthub/ipc"
)

// MaxUploadRequestBytes bounds the body of POST /attachments before the hub
// sees it (413 above). The hub's own bounds are tighter and say which
// applies (an image is resized, a text file is attached whole).
const MaxUploadRequestBytes = 32 << 20

// attachmentCSP is the policy of a served attachment: nothing in it may
// run, load or navigate.
const attachmentCSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"

// uploadAttachment answers POST /attachments?name=NAME: the body is the
// file's bytes, Content-Type the client's claim of its type. 201 with
// ipc.AttachmentInfo; 400 unsupported, 413 too large.
func (a *API) uploadAttachment(w http.ResponseWriter, r *http.Request) {
	att, ok := a.hub.(ipc.Attacher)
	if !ok {
		writeError(w, http.StatusNotFound, "not_supported", "this hub takes no attachments")
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxUploadRequestBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("an upload is at most %d bytes", MaxUploadRequestBytes))
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "invalid_input", "reading the upload: "+err.Error())
		return
	}
	info, err := att.PutAttachment(r.Context(), r.URL.Query().Get("name"), r.Header.Get("Content-Type"), data)
	if err != nil {
		a.writeAttachmentError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, info)
}

// attachment answers GET /attachments/{id}.
func (a *API) attachment(w http.ResponseWriter, r *http.Request) {
	att, ok := a.hub.(ipc.Attacher)
	if !ok {
		writeError(w, http.StatusNotFound, "attachment_not_found", "this hub keeps no attachments")
		return
	}
	ServeAttachment(w, r, att, r.PathValue("id"), a.writeAttachmentError)
}

// writeAttachmentError maps upload and read errors to HTTP.
func (a *API) writeAttachmentError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ipc.ErrTooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", err.Error())
	case errors.Is(err, ipc.ErrAttachmentNotFound):
		writeError(w, http.StatusNotFound, "attachment_not_found", err.Error())
	default:
		a.writeHubError(w, err)
	}
}

// ServeAttachment writes attachment id of att: its bytes with the stored
// media type, cacheable for good (the id is the content's hash), under a
// policy that lets nothing in it run. fail answers errors. The window's
// asset server serves /attachments/{id} with it too (app/desktop.go).
func ServeAttachment(w http.ResponseWriter, r *http.Request, att ipc.Attacher, id string, fail func(http.ResponseWriter, error)) {
	info, data, err := att.ReadAttachment(r.Context(), id)
	if err != nil {
		fail(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", info.MediaType)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", attachmentCSP)
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	h.Set("Content-Disposition", "inline")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}
