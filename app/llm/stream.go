package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"agenthub/ipc/errclass"
	"agenthub/store"
)

// idleWatch cancels a call's context with errIdle when no bytes arrive for
// d: the timer starts before the request and every received chunk of the
// response body resets it. It owns no goroutine (time.AfterFunc).
type idleWatch struct {
	d     time.Duration
	timer *time.Timer
	// failed is the HTTP error response (status >= 400) of the call, kept so
	// that errors the SDK cannot decode are still classified by status.
	failed *httpFailure
}

// httpFailure is an HTTP error response as received.
type httpFailure struct {
	status int
	header http.Header
	body   string
}

// watchIdle returns the call context (child of parent) and its watchdog;
// the caller must call stop when the call ends.
func watchIdle(parent context.Context, d time.Duration) (context.Context, *idleWatch, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &idleWatch{d: d}
	w.timer = time.AfterFunc(d, func() { cancel(errIdle) })
	return ctx, w, func() {
		w.timer.Stop()
		cancel(context.Canceled)
	}
}

func (w *idleWatch) touch() { w.timer.Reset(w.d) }

// middleware is an SDK middleware (both SDKs use the same func shape) that
// wraps the response body so every read that returns data resets the timer.
func (w *idleWatch) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	w.touch()
	if resp.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		_ = resp.Body.Close()
		w.failed = &httpFailure{status: resp.StatusCode, header: resp.Header, body: string(body)}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	resp.Body = &touchBody{ReadCloser: resp.Body, w: w}
	return resp, nil
}

type touchBody struct {
	io.ReadCloser
	w *idleWatch
}

func (b *touchBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.touch()
	}
	return n, err
}

// builder accumulates the content blocks of one streamed message. Text and
// thinking grow in per-block strings.Builders (amortised O(1) per delta;
// `Text += delta` copied the whole text every time, quadratic in a long
// answer) and become the blocks' strings in content().
type builder struct {
	blocks   []store.ContentBlock
	text     map[int]*strings.Builder // block index → text (or thinking) so far
	toolJSON map[int]*strings.Builder
	open     map[int]bool // tool blocks not yet closed
}

func newBuilder() *builder {
	return &builder{text: map[int]*strings.Builder{}, toolJSON: map[int]*strings.Builder{}, open: map[int]bool{}}
}

// grow returns block i's text builder.
func (b *builder) grow(i int) *strings.Builder {
	sb := b.text[i]
	if sb == nil {
		sb = &strings.Builder{}
		b.text[i] = sb
	}
	return sb
}

// add appends a block and returns its index.
func (b *builder) add(block store.ContentBlock) int {
	b.blocks = append(b.blocks, block)
	i := len(b.blocks) - 1
	if block.Type == store.BlockToolCall {
		b.toolJSON[i] = &strings.Builder{}
		b.open[i] = true
	}
	return i
}

func (b *builder) appendText(i int, s string)     { b.grow(i).WriteString(s) }
func (b *builder) appendThinking(i int, s string) { b.grow(i).WriteString(s) }
func (b *builder) setSignature(i int, s string)   { b.blocks[i].Signature = s }
func (b *builder) appendToolJSON(i int, s string) { b.toolJSON[i].WriteString(s) }

// closeTool parses the accumulated input of tool block i: {} when empty,
// an error when it is not a JSON object.
func (b *builder) closeTool(i int) (json.RawMessage, error) {
	delete(b.open, i)
	raw := strings.TrimSpace(b.toolJSON[i].String())
	if raw == "" {
		b.blocks[i].Arguments = json.RawMessage(`{}`)
		return b.blocks[i].Arguments, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
		b.blocks[i].Arguments = json.RawMessage(`{}`)
		if err == nil {
			err = fmt.Errorf("not a JSON object")
		}
		return nil, fmt.Errorf("tool call %s (%s): invalid JSON input %q: %w", b.blocks[i].ID, b.blocks[i].Name, truncate(raw, 200), err)
	}
	b.blocks[i].Arguments = json.RawMessage(raw)
	return b.blocks[i].Arguments, nil
}

// closePartial closes every open tool block for a partial result: the input
// if it parses (after closing unterminated strings/brackets), else {}.
func (b *builder) closePartial() {
	for i := range b.open {
		delete(b.open, i)
		b.blocks[i].Arguments = json.RawMessage(`{}`)
		raw := strings.TrimSpace(b.toolJSON[i].String())
		for _, cand := range []string{raw, repairJSON(raw)} {
			var obj map[string]json.RawMessage
			if cand != "" && json.Unmarshal([]byte(cand), &obj) == nil && obj != nil {
				b.blocks[i].Arguments = json.RawMessage(cand)
				break
			}
		}
	}
}

// content returns the blocks, with nil Arguments of tool blocks set to {}.
func (b *builder) content() []store.ContentBlock {
	out := make([]store.ContentBlock, len(b.blocks))
	copy(out, b.blocks)
	for i := range out {
		if sb := b.text[i]; sb != nil {
			switch out[i].Type {
			case store.BlockThinking:
				out[i].Thinking += sb.String()
			default:
				out[i].Text += sb.String()
			}
		}
		if out[i].Type == store.BlockToolCall && len(out[i].Arguments) == 0 {
			out[i].Arguments = json.RawMessage(`{}`)
		}
	}
	return out
}

func (b *builder) hasToolCalls() bool {
	for _, bl := range b.blocks {
		if bl.Type == store.BlockToolCall {
			return true
		}
	}
	return false
}

// repairJSON closes an unterminated string and the open brackets of a
// truncated JSON text; the result may still be invalid (e.g. `{"a":`).
func repairJSON(s string) string {
	var stack []byte
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			stack = append(stack, '}')
		case c == '[':
			stack = append(stack, ']')
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	var sb strings.Builder
	sb.WriteString(s)
	if esc {
		sb.WriteString(`\`)
	}
	if inStr {
		sb.WriteByte('"')
	}
	for i := len(stack) - 1; i >= 0; i-- {
		sb.WriteByte(stack[i])
	}
	return sb.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// partial builds the Result that accompanies a mid-stream failure.
func partial(b *builder, model string, u store.Usage, err *Error) Result {
	b.closePartial()
	stop := StopError
	if err.Class == errclass.Cancelled {
		stop = StopCancelled
	}
	u.CostUSD = Cost(model, u)
	return Result{Content: b.content(), StopReason: stop, Usage: u}
}

// syntheticToolResult is the text of a result RepairToolPairs inserts.
const syntheticToolResult = "Tool call was not completed (interrupted or cancelled); no result is available."

// RepairToolPairs returns msgs with every tool call answered: a toolResult
// whose ToolCallID matches no call of the preceding assistant message is
// dropped, and each call of an assistant message left without a result
// before the next user/assistant message (or the end) gets a synthetic
// error result. Both providers reject histories that break this pairing.
// msgs is not modified.
func RepairToolPairs(msgs []store.Message) []store.Message {
	out := make([]store.Message, 0, len(msgs))
	var pending []store.ContentBlock // calls of the last assistant message still unanswered
	flush := func() {
		for _, c := range pending {
			out = append(out, store.Message{
				Role: store.RoleToolResult, ToolCallID: c.ID, ToolName: c.Name, IsError: true,
				Content: []store.ContentBlock{{Type: store.BlockText, Text: syntheticToolResult}},
			})
		}
		pending = nil
	}
	for _, m := range msgs {
		switch m.Role {
		case store.RoleToolResult:
			found := -1
			for i, c := range pending {
				if c.ID == m.ToolCallID {
					found = i
					break
				}
			}
			if found < 0 {
				continue // orphan result: no matching call
			}
			pending = append(pending[:found:found], pending[found+1:]...)
			out = append(out, m)
		case store.RoleAssistant:
			flush()
			out = append(out, m)
			for _, b := range m.Content {
				if b.Type == store.BlockToolCall {
					pending = append(pending, b)
				}
			}
		default:
			flush()
			out = append(out, m)
		}
	}
	flush()
	return out
}

// providerIDs returns msgs with every tool call and its result under the
// id the provider gets back: the provider's own (ContentBlock.ProviderID)
// for a call the app renamed, unless another call of the same message goes
// back under it (a provider that gave two calls one id), else the app's id
// (agent.CallIDs). So a strict server (Mistral accepts only its own 9-char
// ids) sees its ids again, and no message holds one id twice. Run it after
// RepairToolPairs, which pairs by the app's ids. msgs is not modified.
func providerIDs(msgs []store.Message) []store.Message {
	wire := map[string]string{}
	for _, m := range msgs {
		if m.Role != store.RoleAssistant {
			continue
		}
		taken := map[string]bool{}
		for _, b := range m.Content {
			if b.Type == store.BlockToolCall && b.ProviderID == "" {
				taken[b.ID] = true
			}
		}
		for _, b := range m.Content {
			if b.Type != store.BlockToolCall || b.ProviderID == "" {
				continue
			}
			w := b.ID
			if !taken[b.ProviderID] {
				w = b.ProviderID
			}
			taken[w] = true
			wire[b.ID] = w
		}
	}
	if len(wire) == 0 {
		return msgs
	}
	out := make([]store.Message, len(msgs))
	copy(out, msgs)
	for i := range out {
		m := &out[i]
		switch m.Role {
		case store.RoleAssistant:
			m.Content = append([]store.ContentBlock(nil), m.Content...)
			for j := range m.Content {
				if w, ok := wire[m.Content[j].ID]; ok && m.Content[j].Type == store.BlockToolCall {
					m.Content[j].ID = w
				}
			}
		case store.RoleToolResult:
			if w, ok := wire[m.ToolCallID]; ok {
				m.ToolCallID = w
			}
		}
	}
	return out
}

// toolArgs returns a tool call's arguments as a JSON object ({} when empty
// or invalid, which stored history should never hold).
func toolArgs(b store.ContentBlock) json.RawMessage {
	var obj map[string]json.RawMessage
	if len(b.Arguments) == 0 || json.Unmarshal(b.Arguments, &obj) != nil || obj == nil {
		return json.RawMessage(`{}`)
	}
	return b.Arguments
}

// resultText flattens a tool result's text blocks.
func resultText(m store.Message) string {
	var parts []string
	for _, b := range m.Content {
		switch b.Type {
		case store.BlockText:
			parts = append(parts, b.Text)
		case store.BlockImage:
			parts = append(parts, "[image omitted]")
		}
	}
	return strings.Join(parts, "\n")
}
