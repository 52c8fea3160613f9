package hub_test

// Reference clients of the seed002 dialect, written for these tests (read,
// not copied): indieClient behaves as the client of the project that
// wrote seed 002 — indie-dev-portal's lib/contexts/AgentChatContext.tsx
// (handleMessage, sendMessage, loadSessionMessages) with the frame types
// of types/websocket.ts; s002Doc behaves as the seed document's frontend
// handlers (start → placeholder, chunk → append, end → replace; a chunk or
// end without a start is ignored).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// indieMsg is one message of the client's list.
type indieMsg struct {
	ID, Role, Text string
	Streaming      bool
}

// indieClient is AgentChatContext's state for one session.
type indieClient struct {
	msgs      []indieMsg
	processed map[string]bool
	typing    bool
	err       string
	temps     int
}

func newIndieClient() *indieClient { return &indieClient{processed: map[string]bool{}} }

// send is sendMessage: an optimistic user message, the typing indicator.
func (c *indieClient) send(text string) {
	c.temps++
	c.msgs = append(c.msgs, indieMsg{ID: fmt.Sprintf("temp-%d", c.temps), Role: "user", Text: text})
	c.err, c.typing = "", true
}

// load is loadSessionMessages over GET /sessions/{id}/messages?dialect=seed002.
func (c *indieClient) load(raw json.RawMessage) error {
	var rows []struct {
		ID      string `json:"id"`
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil || rows == nil {
		return fmt.Errorf("messagesData.map is not a function (%v): %.200s", err, raw)
	}
	var msgs []indieMsg
	for _, r := range rows {
		var content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(r.Content), &content); err != nil {
			return fmt.Errorf("JSON.parse(msg.content): %w", err)
		}
		msgs = append(msgs, indieMsg{ID: r.ID, Role: r.Role, Text: content.Text})
	}
	c.msgs = msgs
	return nil
}

func (c *indieClient) find(id string) int {
	return slices.IndexFunc(c.msgs, func(m indieMsg) bool { return m.ID == id })
}

// apply is handleMessage.
func (c *indieClient) apply(m map[string]any) error {
	p, _ := m["payload"].(map[string]any)
	id, _ := p["messageId"].(string)
	text := func() string {
		ct, _ := p["content"].(map[string]any)
		s, _ := ct["text"].(string)
		return s
	}
	switch m["type"] {
	case "message.new":
		if c.processed[id] {
			return nil
		}
		c.processed[id] = true
		if c.find(id) >= 0 {
			return nil
		}
		role, _ := p["role"].(string)
		if role == "user" {
			if i := slices.IndexFunc(c.msgs, func(m indieMsg) bool { return strings.HasPrefix(m.ID, "temp-") }); i >= 0 {
				c.msgs[i].ID = id
				return nil
			}
		}
		c.msgs = append(c.msgs, indieMsg{ID: id, Role: role, Text: text()})
	case "message.start":
		c.typing = true
		c.msgs = append(c.msgs, indieMsg{ID: id, Role: "agent", Streaming: true}) // no look-up: a second start is a second bubble
	case "message.chunk":
		ct, _ := p["content"].(map[string]any)
		if ct["type"] != "text" {
			return nil
		}
		if i := c.find(id); i >= 0 {
			c.msgs[i].Text += text()
		}
	case "message.end":
		c.typing = false
		if i := c.find(id); i >= 0 {
			c.msgs[i].Text, c.msgs[i].Streaming = text(), false
		}
	case "error":
		if p == nil {
			return errFrame("error frame without payload: %v", m) // message.payload.message throws
		}
		msg, _ := p["message"].(string)
		if msg == "" {
			msg = "An error occurred"
		}
		c.err, c.typing = msg, false
		if p["code"] == "STREAMING_ERROR" && p["details"] != nil {
			d, _ := p["details"].(map[string]any)
			gone, _ := d["messageId"].(string)
			c.msgs = slices.DeleteFunc(c.msgs, func(m indieMsg) bool { return m.ID == gone })
		}
	}
	return nil
}

// view is what the chat shows: the messages, role and text, in order.
func (c *indieClient) view() string {
	var b strings.Builder
	for _, m := range c.msgs {
		fmt.Fprintf(&b, "%s: %q", m.Role, m.Text)
		if m.Streaming {
			b.WriteString(" (streaming)")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// s002Doc is a client written from the seed 002 document alone.
type s002Doc struct {
	msgs []indieMsg
}

func (c *s002Doc) find(id string) int {
	return slices.IndexFunc(c.msgs, func(m indieMsg) bool { return m.ID == id })
}

func (c *s002Doc) apply(m map[string]any) error {
	p, _ := m["payload"].(map[string]any)
	id, _ := p["messageId"].(string)
	ct, _ := p["content"].(map[string]any)
	text, _ := ct["text"].(string)
	switch m["type"] {
	case "message.new": // kept for user messages
		if c.find(id) < 0 {
			role, _ := p["role"].(string)
			c.msgs = append(c.msgs, indieMsg{ID: id, Role: role, Text: text})
		}
	case "message.start":
		c.msgs = append(c.msgs, indieMsg{ID: id, Role: "agent", Streaming: true})
	case "message.chunk":
		if i := c.find(id); i >= 0 {
			c.msgs[i].Text += text
		}
	case "message.end":
		if i := c.find(id); i >= 0 {
			c.msgs[i].Text, c.msgs[i].Streaming = text, false
		}
	}
	return nil
}

func (c *s002Doc) view() string {
	ic := indieClient{msgs: c.msgs}
	return ic.view()
}
