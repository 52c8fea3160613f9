package hubtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"agenthub/ipc"
)

// MaxAttachmentBytes bounds an upload to the test hub (ErrTooLarge above),
// small so transport tests can cross it cheaply.
const MaxAttachmentBytes = 64 << 10

var _ ipc.Attacher = (*Hub)(nil)

// PutAttachment keeps images (as sniffed) and UTF-8 text in memory, named
// by their SHA-256, like the product hub; anything else is ErrInvalidInput.
func (h *Hub) PutAttachment(_ context.Context, name, _ string, data []byte) (ipc.AttachmentInfo, error) {
	if len(data) > MaxAttachmentBytes {
		return ipc.AttachmentInfo{}, fmt.Errorf("%q is %d bytes: %w", name, len(data), ipc.ErrTooLarge)
	}
	info := ipc.AttachmentInfo{Name: name, Bytes: int64(len(data))}
	switch t := http.DetectContentType(data); {
	case strings.HasPrefix(t, "image/"):
		info.Kind, info.MediaType = "image", t
	case len(data) > 0 && utf8.Valid(data) && !strings.ContainsRune(string(data), 0):
		info.Kind, info.MediaType = "text", "text/plain; charset=utf-8"
	default:
		return ipc.AttachmentInfo{}, fmt.Errorf("%q is %s: %w", name, t, ipc.ErrInvalidInput)
	}
	sum := sha256.Sum256(data)
	info.ID = hex.EncodeToString(sum[:])
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.attachments == nil {
		h.attachments = map[string][]byte{}
	}
	h.attachments[info.ID] = data
	return info, nil
}

// ReadAttachment returns an upload's bytes.
func (h *Hub) ReadAttachment(_ context.Context, id string) (ipc.AttachmentInfo, []byte, error) {
	h.mu.Lock()
	data, ok := h.attachments[id]
	h.mu.Unlock()
	if !ok {
		return ipc.AttachmentInfo{}, nil, fmt.Errorf("%q: %w", id, ipc.ErrAttachmentNotFound)
	}
	info := ipc.AttachmentInfo{ID: id, Kind: "text", MediaType: "text/plain; charset=utf-8", Bytes: int64(len(data))}
	if t := http.DetectContentType(data); strings.HasPrefix(t, "image/") {
		info.Kind, info.MediaType = "image", t
	}
	return info, data, nil
}

// SubmitTurnWithAttachments records the ids (Attached) and submits the
// text (or the attachment names when there is none) as SubmitTurn does.
func (h *Hub) SubmitTurnWithAttachments(ctx context.Context, sessionID, content string, refs []ipc.AttachmentRef) (ipc.SubmitResult, error) {
	h.mu.Lock()
	for _, r := range refs {
		if _, ok := h.attachments[r.ID]; !ok {
			h.mu.Unlock()
			return ipc.SubmitResult{}, fmt.Errorf("attachment %q was not uploaded: %w", r.ID, ipc.ErrInvalidInput)
		}
	}
	h.attached = append(h.attached, refs...)
	h.mu.Unlock()
	if strings.TrimSpace(content) == "" {
		var names []string
		for _, r := range refs {
			names = append(names, r.Name)
		}
		content = "[attached " + strings.Join(names, ", ") + "]"
	}
	return h.SubmitTurn(ctx, sessionID, content)
}

// Attached returns the attachments submitted with turns, in order.
func (h *Hub) Attached() []ipc.AttachmentRef {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ipc.AttachmentRef(nil), h.attached...)
}
