package ipc

import (
	"encoding/json"
	"strings"

	"agenthub/store"
)

// ContentBuilder accumulates a streamed message's content blocks from its
// streaming events (text.delta, thinking.delta, tool_use.*) in linear time:
// text, thinking and partial tool input grow in per-block strings.Builders
// (`Text += delta` copied the whole text on every delta, quadratic in a
// long answer) and become strings only in content(). The snapshot's partial
// message and the seed000 dialect share it.
type ContentBuilder struct {
	blocks  []store.ContentBlock
	text    map[int]*strings.Builder // text or thinking appended to blocks[i]
	partial map[int]*strings.Builder // tool-call argument JSON still streaming
	size    int                      // bytes of text, thinking and input appended
	// retries is what the newest message.reset said (nil before one).
	retries *store.Retries
}

// maxBlockIndex bounds a block index from an event (a hostile or corrupt
// index appends instead of allocating a huge slice).
const maxBlockIndex = 10_000

// NewContentBuilder starts from seed (a copy): the content of a message
// already streamed in part, or nil.
func NewContentBuilder(seed []store.ContentBlock) *ContentBuilder {
	c := &ContentBuilder{text: map[int]*strings.Builder{}, partial: map[int]*strings.Builder{}}
	c.blocks = append([]store.ContentBlock{}, seed...)
	return c
}

// block returns block i, creating it (and any before it) with typ.
func (c *ContentBuilder) block(i int, typ string) *store.ContentBlock {
	if i < 0 || i > maxBlockIndex {
		i = len(c.blocks)
	}
	for len(c.blocks) <= i {
		c.blocks = append(c.blocks, store.ContentBlock{Type: typ})
	}
	return &c.blocks[i]
}

func grow(m map[int]*strings.Builder, i int) *strings.Builder {
	sb := m[i]
	if sb == nil {
		sb = &strings.Builder{}
		m[i] = sb
	}
	return sb
}

// Apply folds one streaming event (type typ, JSON payload) into the
// content; message.reset empties it (a retried call streams the message
// again). Other event types are ignored; a payload that does not decode
// as its type is an error and changes nothing.
func (c *ContentBuilder) Apply(typ string, payload json.RawMessage) error {
	switch typ {
	case TypeMessageReset:
		p, err := decodePayload[MessageReset](typ, payload)
		if err != nil {
			return err
		}
		c.reset(p)
	case TypeTextDelta:
		p, err := decodePayload[TextDelta](typ, payload)
		if err != nil {
			return err
		}
		c.block(p.ContentBlockIndex, store.BlockText)
		grow(c.text, c.index(p.ContentBlockIndex)).WriteString(p.Text)
		c.size += len(p.Text)
	case TypeThinkingDelta:
		p, err := decodePayload[ThinkingDelta](typ, payload)
		if err != nil {
			return err
		}
		bl := c.block(p.ContentBlockIndex, store.BlockThinking)
		if p.Signature != nil {
			bl.Signature = *p.Signature
		}
		grow(c.text, c.index(p.ContentBlockIndex)).WriteString(p.Text)
		c.size += len(p.Text)
	case TypeToolUseStart:
		p, err := decodePayload[ToolUseStart](typ, payload)
		if err != nil {
			return err
		}
		bl := c.block(p.ContentBlockIndex, store.BlockToolCall)
		bl.Type, bl.ID, bl.Name = store.BlockToolCall, p.ToolUseID, p.ToolName
	case TypeToolUseInputDelta:
		p, err := decodePayload[ToolUseInputDelta](typ, payload)
		if err != nil {
			return err
		}
		grow(c.partial, c.index(p.ContentBlockIndex)).WriteString(p.PartialJSON)
		c.size += len(p.PartialJSON)
	case TypeToolUseEnd:
		p, err := decodePayload[ToolUseEnd](typ, payload)
		if err != nil {
			return err
		}
		c.block(p.ContentBlockIndex, store.BlockToolCall).Arguments = p.FinalInput
		delete(c.partial, c.index(p.ContentBlockIndex))
	}
	return nil
}

// reset drops the content so far (message.reset) and records the retry.
func (c *ContentBuilder) reset(p MessageReset) {
	c.blocks = c.blocks[:0]
	clear(c.text)
	clear(c.partial)
	c.size = 0
	c.retries = &store.Retries{Count: p.Attempt - 1, ErrorClass: p.ErrorClass, Error: p.Error}
}

// index maps an event's block index as block does (out of range: the last block).
func (c *ContentBuilder) index(i int) int {
	if i < 0 || i > maxBlockIndex {
		return len(c.blocks) - 1
	}
	return i
}

// Size is how many bytes of text, thinking and tool input the content has
// grown by since the start (or the last message.reset).
func (c *ContentBuilder) Size() int { return c.size }

// Content returns a copy of the blocks with their text so far and the
// streaming tool-call arguments filled in where they are already valid JSON.
func (c *ContentBuilder) Content() []store.ContentBlock {
	out := make([]store.ContentBlock, len(c.blocks))
	copy(out, c.blocks)
	for i, sb := range c.text {
		if i >= len(out) {
			continue
		}
		if out[i].Type == store.BlockThinking {
			out[i].Thinking += sb.String()
		} else {
			out[i].Text += sb.String()
		}
	}
	for i, sb := range c.partial {
		if pj := sb.String(); i < len(out) && json.Valid([]byte(pj)) {
			out[i].Arguments = json.RawMessage(pj)
		}
	}
	return out
}
