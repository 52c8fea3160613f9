package hub

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"agenthub/app/attachment"
	"agenthub/app/mention"
	"agenthub/ipc"
	"agenthub/store"
)

// MaxAttachments is the most uploads one message carries.
const MaxAttachments = 10

var _ ipc.Attacher = (*Hub)(nil)

// PutAttachment implements ipc.Attacher: it stores an upload
// (content-addressed under DATA_DIR/attachments; images resized to the
// providers' limits).
func (h *Hub) PutAttachment(_ context.Context, name, mediaType string, data []byte) (ipc.AttachmentInfo, error) {
	info, err := h.attachments.Put(name, mediaType, data)
	switch {
	case errors.Is(err, attachment.ErrTooLarge):
		return ipc.AttachmentInfo{}, refusal{err, ipc.ErrTooLarge}
	case errors.Is(err, attachment.ErrUnsupported):
		return ipc.AttachmentInfo{}, refusal{err, ipc.ErrInvalidInput}
	case err != nil:
		return ipc.AttachmentInfo{}, err
	}
	h.log.Info("hub: attachment stored", "id", info.ID, "kind", info.Kind, "bytes", info.Bytes, "resized", info.Resized)
	return info, nil
}

// refusal is a refused upload: its text is the store's reason alone (what
// the user reads), and it matches both that error and the protocol's kind.
type refusal struct {
	err  error
	kind error
}

func (r refusal) Error() string   { return r.err.Error() }
func (r refusal) Unwrap() []error { return []error{r.err, r.kind} }

// ReadAttachment implements ipc.Attacher.
func (h *Hub) ReadAttachment(_ context.Context, id string) (ipc.AttachmentInfo, []byte, error) {
	info, data, err := h.attachments.Get(id)
	if errors.Is(err, attachment.ErrNotFound) {
		return ipc.AttachmentInfo{}, nil, fmt.Errorf("%w: %w", err, ipc.ErrAttachmentNotFound)
	}
	if err != nil {
		return ipc.AttachmentInfo{}, nil, err
	}
	return info, data, nil
}

// attachmentBlocks are the content blocks of a submission's uploads: an
// image block naming the stored image (its bytes are read per request,
// withImageData), or a text file's whole content as a file block.
func (h *Hub) attachmentBlocks(refs []ipc.AttachmentRef) ([]store.ContentBlock, error) {
	if len(refs) > MaxAttachments {
		return nil, fmt.Errorf("%d attachments; a message carries at most %d: %w", len(refs), MaxAttachments, ipc.ErrInvalidInput)
	}
	var out []store.ContentBlock
	for _, r := range refs {
		info, data, err := h.attachments.Get(r.ID)
		if errors.Is(err, attachment.ErrNotFound) {
			return nil, fmt.Errorf("attachment %q was not uploaded (upload it first): %w", r.ID, ipc.ErrInvalidInput)
		}
		if err != nil {
			return nil, fmt.Errorf("reading attachment %s: %w", r.ID, err)
		}
		name := displayName(r.Name, info)
		switch info.Kind {
		case attachment.KindImage:
			out = append(out, store.ContentBlock{Type: store.BlockImage, Source: &store.ImageSource{
				Type: store.ImageAttachment, MediaType: info.MediaType, Attachment: info.ID, Name: name,
				Width: info.Width, Height: info.Height, Bytes: info.Bytes,
			}})
		default:
			out = append(out, mention.UploadBlock(name, data))
		}
	}
	return out, nil
}

// displayName is the client's name for an upload (attachment.CleanName),
// or a default that says what it is.
func displayName(name string, info attachment.Info) string {
	if name = attachment.CleanName(name); name != "" {
		return name
	}
	if info.Kind == attachment.KindImage {
		return "image." + strings.TrimPrefix(info.MediaType, "image/")
	}
	return "file.txt"
}

// withImageData returns msgs with every attachment image replaced by an
// inline base64 copy of its stored bytes (what the provider adapters
// send); msgs itself is not changed. An image whose blob is gone becomes
// a text block saying so, so the request stays valid. encoded caches the
// copies by attachment id across the calls of one turn (a tool loop sends
// the same images with every call).
func (h *Hub) withImageData(msgs []store.Message, encoded map[string]string) []store.Message {
	out := msgs
	copied := false
	for i, m := range msgs {
		var content []store.ContentBlock
		for j, b := range m.Content {
			if b.Type != store.BlockImage || b.Source == nil || b.Source.Type != store.ImageAttachment {
				continue
			}
			if content == nil {
				content = append([]store.ContentBlock(nil), m.Content...)
			}
			b64, ok := encoded[b.Source.Attachment]
			if !ok {
				_, data, err := h.attachments.Get(b.Source.Attachment)
				if err != nil {
					h.log.Warn("hub: attached image unavailable", "id", b.Source.Attachment, "err", err)
					content[j] = store.ContentBlock{Type: store.BlockText, Text: fmt.Sprintf("[the image %q is no longer available]", b.Source.Name)}
					continue
				}
				b64 = base64.StdEncoding.EncodeToString(data)
				encoded[b.Source.Attachment] = b64
			}
			src := *b.Source
			src.Type, src.Data = store.ImageBase64, b64
			content[j] = store.ContentBlock{Type: store.BlockImage, Source: &src}
		}
		if content == nil {
			continue
		}
		if !copied {
			out = append([]store.Message(nil), msgs...)
			copied = true
		}
		out[i].Content = content
	}
	return out
}

// imageTokens estimates an image's input tokens as Anthropic documents
// them (width × height / 750), for the compaction threshold; the usage the
// provider reports stays what is counted and charged. An image of unknown
// size counts as a full-size one.
func imageTokens(src *store.ImageSource) int64 {
	if src.Width > 0 && src.Height > 0 {
		return int64(src.Width) * int64(src.Height) / 750
	}
	return attachment.MaxEdge * attachment.MaxEdge / 750
}
