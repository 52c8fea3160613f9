package hub

import (
	"errors"
	"fmt"
	"time"

	"agenthub/store"
)

// AttachmentGrace is how long an uploaded blob that no message names is
// kept: the time a user has between pasting a file and sending it.
const AttachmentGrace = time.Hour

// sweepAttachments removes attachment blobs no stored message or queued
// turn names and that were uploaded before now - AttachmentGrace: images
// of deleted sessions and uploads never sent. (A text file's content is in
// its message, so its blob is only needed until the message is sent.) The
// messages are read only when some blob is old enough to go. It returns
// how many blobs it removed.
func (h *Hub) sweepAttachments(now time.Time) (int, error) {
	stale, err := h.attachments.Stale(now.Add(-AttachmentGrace))
	if err != nil || len(stale) == 0 {
		return 0, err
	}
	used, err := h.attachmentsInUse()
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, id := range stale {
		if used[id] {
			continue
		}
		if err := h.attachments.Remove(id); err != nil {
			errs = append(errs, err)
		} else {
			removed++
		}
	}
	return removed, errors.Join(errs...)
}

// attachmentsInUse is the set of attachment ids named by a stored message
// or a queued turn's content.
func (h *Hub) attachmentsInUse() (map[string]bool, error) {
	used := map[string]bool{}
	mark := func(blocks []store.ContentBlock) {
		for _, b := range blocks {
			if b.Type == store.BlockImage && b.Source != nil && b.Source.Attachment != "" {
				used[b.Source.Attachment] = true
			}
		}
	}
	sessions, err := h.db.Sessions()
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	for _, s := range sessions {
		msgs, err := h.db.StoredMessages(s.ID)
		if err != nil {
			return nil, fmt.Errorf("reading the messages of %s: %w", s.ID, err)
		}
		for _, m := range msgs {
			if m.Role == store.RoleUser {
				mark(m.Content)
			}
		}
	}
	queued, err := h.db.TurnsWithStatus(store.TurnQueued)
	if err != nil {
		return nil, fmt.Errorf("listing queued turns: %w", err)
	}
	for _, t := range queued {
		mark(t.Content)
	}
	return used, nil
}
