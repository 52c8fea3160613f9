package dialect

import (
	"fmt"
	"strings"

	"agenthub/ipc"
)

// Resume replays the running turn from its start through the encoder and
// sends what it showed, coalesced, as frames carrying the resume point's
// id: potpie-ui resumes a run into a fresh answer (runtime.ts's resume
// path starts from empty state), so a resuming client replaces the
// answer of the running turn with this one, whatever it held before.
func (e *seed004) Resume(r ipc.ResumePoint) ([][]byte, error) {
	if r.TurnEvents == nil {
		return nil, nil
	}
	var rs []chatAgentResponse
	err := r.TurnEvents(func(ev ipc.Event) error {
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
// its parts), consecutive stream parts of one call join; a frame holds
// about s004CoalesceLimit bytes at most. Linear in the bytes replayed.
func coalesce004(rs []chatAgentResponse) []chatAgentResponse {
	var out []chatAgentResponse
	var c coalescing
	for _, r := range rs {
		if r.End != nil {
			out = c.flush(out)
			out = append(out, r)
			continue
		}
		if (r.Message != "" || r.Thinking != "") && len(c.calls) > 0 || c.size > s004CoalesceLimit {
			out = c.flush(out)
		}
		c.add(r)
	}
	return c.flush(out)
}

// coalescing is the frame coalesce004 is gathering.
type coalescing struct {
	text, thinking strings.Builder
	calls          []toolCallResponse
	streams        []*strings.Builder // per call: its joined stream part (nil: not a stream part)
	size           int
	used           bool
}

func (c *coalescing) add(r chatAgentResponse) {
	c.used = true
	c.text.WriteString(r.Message)
	c.thinking.WriteString(r.Thinking)
	c.size += len(r.Message) + len(r.Thinking)
	for _, tc := range r.ToolCalls {
		streaming := tc.StreamPart != nil && !tc.IsComplete
		if streaming {
			c.size += len(*tc.StreamPart)
		}
		if n := len(c.calls); streaming && n > 0 && c.streams[n-1] != nil &&
			c.calls[n-1].CallID == tc.CallID && c.calls[n-1].EventType == tc.EventType {
			c.streams[n-1].WriteString(*tc.StreamPart)
			continue
		}
		var joined *strings.Builder
		if streaming {
			joined = &strings.Builder{}
			joined.WriteString(*tc.StreamPart)
		}
		c.calls, c.streams = append(c.calls, tc), append(c.streams, joined)
	}
}

// flush appends the gathered frame to out (if any) and starts anew.
func (c *coalescing) flush(out []chatAgentResponse) []chatAgentResponse {
	if !c.used {
		return out
	}
	f := chatAgentResponse{Message: c.text.String(), Response: c.text.String(), Thinking: c.thinking.String(),
		ToolCalls: c.calls, Citations: []string{}}
	for i, b := range c.streams {
		if b != nil {
			part := b.String()
			f.ToolCalls[i].StreamPart = &part
		}
	}
	*c = coalescing{}
	return append(out, f)
}
