package ipc

import "fmt"

// Resume replays the running turn from its start through the encoder and
// sends what it showed, coalesced, as frames carrying the resume point's
// id: potpie-ui resumes a run into a fresh answer (runtime.ts's resume
// path starts from empty state), so a resuming client replaces the
// answer of the running turn with this one, whatever it held before.
func (e *seed004) Resume(r ResumePoint) ([][]byte, error) {
	if r.TurnEvents == nil {
		return nil, nil
	}
	var rs []chatAgentResponse
	err := r.TurnEvents(func(ev Event) error {
		got, _, err := e.encode(ev)
		rs = append(rs, got...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("ipc: seed004 resume: %w", err)
	}
	var out [][]byte
	for _, c := range coalesce004(rs) {
		fs, err := marshalFrame(c.frame(r.EventID))
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// s004CoalesceLimit bounds the text and stream parts one coalesced resume
// frame gathers.
const s004CoalesceLimit = 256 << 10

// coalesce004 merges a replayed turn's frames into as few as keep what a
// client shows: text and thinking gather until a tool part follows, tool
// parts gather until text follows (a client applies a frame's text before
// its parts), consecutive stream parts of one call join.
func coalesce004(rs []chatAgentResponse) []chatAgentResponse {
	var out []chatAgentResponse
	var cur *chatAgentResponse
	size := 0
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur, size = nil, 0
		}
	}
	for _, r := range rs {
		if r.End != nil {
			flush()
			out = append(out, r)
			continue
		}
		hasText := r.Message != "" || r.Thinking != ""
		if cur != nil && ((hasText && len(cur.ToolCalls) > 0) || size > s004CoalesceLimit) {
			flush()
		}
		if cur == nil {
			cur = &chatAgentResponse{ToolCalls: []toolCallResponse{}, Citations: []string{}}
		}
		cur.Message += r.Message
		cur.Response += r.Response
		cur.Thinking += r.Thinking
		size += len(r.Message) + len(r.Thinking)
		for _, tc := range r.ToolCalls {
			n := len(cur.ToolCalls)
			if n > 0 && tc.StreamPart != nil && !tc.IsComplete {
				prev := &cur.ToolCalls[n-1]
				if prev.CallID == tc.CallID && prev.EventType == tc.EventType && prev.StreamPart != nil && !prev.IsComplete {
					joined := *prev.StreamPart + *tc.StreamPart
					prev.StreamPart = &joined
					size += len(*tc.StreamPart)
					continue
				}
			}
			cur.ToolCalls = append(cur.ToolCalls, tc)
			if tc.StreamPart != nil {
				size += len(*tc.StreamPart)
			}
		}
	}
	flush()
	return out
}
