package hub

import "time"

// PruneOutputs runs one pass of tool-output retention at now.
func (h *Hub) PruneOutputs(now time.Time) (int, error) { return h.pruneOutputs(now) }

// SweepAttachments runs one attachment sweep at now.
func (h *Hub) SweepAttachments(now time.Time) (int, error) { return h.sweepAttachments(now) }
