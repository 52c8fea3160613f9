package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"agenthub/ipc/errclass"
	"agenthub/store"
)

// anthropicProvider streams the Anthropic Messages API through the official
// SDK (environment autoload and SDK retries disabled). It holds the Messages
// service alone, not an anthropic.Client: a Client reaches every service of
// the API, and since Wails' bindings look methods up by name the linker then
// keeps all of their methods — with the OpenAI side, 26 MB more of the
// desktop binary mapped at idle (docs/benchmarks-desktop.md).
// The delta path's first seam: the adapters are Providers.
var _ Provider = (*anthropicProvider)(nil)

type anthropicProvider struct {
	cfg      Config
	messages anthropic.MessageService
}

func newAnthropic(cfg Config) *anthropicProvider {
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(), // NewClient's one default without the environment
		option.WithAPIKey(cfg.AnthropicAPIKey),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	}
	if cfg.AnthropicBaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.AnthropicBaseURL))
	}
	return &anthropicProvider{cfg: cfg, messages: anthropic.NewMessageService(opts...)}
}

// Stream implements Provider.
func (p *anthropicProvider) Stream(ctx context.Context, req Request, sink Sink) (Result, error) {
	params, err := anthropicParams(req)
	if err != nil {
		return Result{StopReason: StopError}, err
	}
	callCtx, watch, stop := watchIdle(ctx, p.cfg.IdleTimeout)
	defer stop()
	// Messages.NewStreaming hands over the raw response
	// (WithResponseBodyInto) and the SDK's SSE stream decodes our
	// anthropicEvent instead of its union (see anthropicEvent).
	var raw *http.Response
	err = p.messages.NewStreaming(callCtx, params, option.WithMiddleware(watch.middleware), option.WithResponseBodyInto(&raw)).Err()
	stream := ssestream.NewStream[anthropicEvent](ssestream.NewDecoder(raw), err)
	defer stream.Close()

	c := &anthropicCall{sink: sink, b: newBuilder(), blockOf: map[int64]int{}}
	var e *Error
	for e == nil && stream.Next() {
		ev := stream.Current()
		if ev.isDelta {
			if i, ok := c.blockOf[ev.index]; ok {
				c.blockDelta(i, &ev.delta)
			}
			continue
		}
		e = c.event(&ev.union)
	}
	switch {
	case e != nil:
	case stream.Err() != nil:
		e = anthropicError(ctx, callCtx, p.cfg, watch.failed, stream.Err())
	case !c.stopped && callCtx.Err() != nil:
		e = classifyTransport("Anthropic", ctx, callCtx, p.cfg.IdleTimeout, callCtx.Err())
	case !c.stopped:
		e = newError(errclass.Network, "Anthropic: stream ended before message_stop", 0, nil)
	}
	if e != nil {
		return partial(c.b, req.Model, c.usage, e), e
	}
	c.usage.CostUSD = Cost(req.Model, c.usage)
	return Result{Content: c.b.content(), StopReason: anthropicStop(c.stopReason), Usage: c.usage}, nil
}

// anthropicEvent is one event of an Anthropic stream as the SDK's SSE
// stream decodes it. content_block_delta — nearly every event of a long
// answer — is decoded by encoding/json into the few fields a delta has;
// every other event (and anything that does not decode that way) through
// the SDK's own MessageStreamEventUnion. The SDK's reflective decoder of
// the union was a fifth of the hub's CPU per streamed delta.
type anthropicEvent struct {
	isDelta bool
	index   int64
	delta   anthropicDelta
	union   anthropic.MessageStreamEventUnion
}

// anthropicDelta is a content_block_delta's delta: text_delta,
// thinking_delta, signature_delta or input_json_delta.
type anthropicDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (e *anthropicEvent) UnmarshalJSON(b []byte) error {
	if e.readCompactDelta(b) { // anthropic_delta.go
		return nil
	}
	var d struct {
		Type  string         `json:"type"`
		Index int64          `json:"index"`
		Delta anthropicDelta `json:"delta"`
	}
	if json.Unmarshal(b, &d) == nil && d.Type == "content_block_delta" {
		e.isDelta, e.index, e.delta = true, d.Index, d.Delta
		return nil
	}
	return e.union.UnmarshalJSON(b)
}

// anthropicCall is what one streamed Anthropic call has received so far.
type anthropicCall struct {
	sink       Sink
	b          *builder
	usage      store.Usage
	blockOf    map[int64]int // provider block index → our content index
	stopReason string
	stopped    bool // message_stop arrived
}

// event folds one stream event into the call and tells the sink; an error
// ends the call.
func (c *anthropicCall) event(ev *anthropic.MessageStreamEventUnion) *Error {
	switch ev.Type {
	case "message_start":
		u := &ev.Message.Usage
		mergeAnthropicUsage(&c.usage, u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens, u.OutputTokensDetails.ThinkingTokens)
		c.sink.MessageStart()
	case "content_block_start":
		c.blockStart(ev.Index, &ev.ContentBlock)
	case "content_block_delta": // decoded by anthropicEvent; here only if that changes
		if i, ok := c.blockOf[ev.Index]; ok {
			d := ev.Delta
			c.blockDelta(i, &anthropicDelta{Type: d.Type, Text: d.Text, Thinking: d.Thinking, Signature: d.Signature, PartialJSON: d.PartialJSON})
		}
	case "content_block_stop":
		i, ok := c.blockOf[ev.Index]
		if !ok || c.b.blocks[i].Type != store.BlockToolCall {
			return nil
		}
		in, err := c.b.closeTool(i)
		if err != nil {
			return newError(errclass.Server, "Anthropic: "+err.Error(), 0, err)
		}
		c.sink.ToolUseEnd(i, c.b.blocks[i].ID, in)
	case "message_delta":
		c.stopReason = string(ev.Delta.StopReason)
		u := &ev.Usage
		mergeAnthropicUsage(&c.usage, u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens, u.OutputTokensDetails.ThinkingTokens)
	case "message_stop":
		c.stopped = true
	}
	return nil
}

// blockStart opens the content block the provider numbers index. Block
// types other than text, thinking and tool_use (redacted_thinking, server
// tools) have no place in store.ContentBlock and are skipped.
func (c *anthropicCall) blockStart(index int64, cb *anthropic.ContentBlockStartEventContentBlockUnion) {
	switch cb.Type {
	case "text":
		i := c.b.add(store.ContentBlock{Type: store.BlockText})
		c.blockOf[index] = i
		if cb.Text != "" {
			c.b.appendText(i, cb.Text)
			c.sink.TextDelta(i, cb.Text)
		}
	case "thinking":
		i := c.b.add(store.ContentBlock{Type: store.BlockThinking})
		c.blockOf[index] = i
		if cb.Thinking != "" {
			c.b.appendThinking(i, cb.Thinking)
			c.sink.ThinkingDelta(i, cb.Thinking, nil)
		}
		if cb.Signature != "" {
			c.b.setSignature(i, cb.Signature)
		}
	case "tool_use":
		i := c.b.add(store.ContentBlock{Type: store.BlockToolCall, ID: cb.ID, Name: cb.Name})
		c.blockOf[index] = i
		c.sink.ToolUseStart(i, cb.ID, cb.Name)
	}
}

// blockDelta appends a delta to our content block i.
func (c *anthropicCall) blockDelta(i int, d *anthropicDelta) {
	switch d.Type {
	case "text_delta":
		c.b.appendText(i, d.Text)
		c.sink.TextDelta(i, d.Text)
	case "thinking_delta":
		c.b.appendThinking(i, d.Thinking)
		c.sink.ThinkingDelta(i, d.Thinking, nil)
	case "signature_delta":
		sig := d.Signature
		c.b.setSignature(i, sig)
		c.sink.ThinkingDelta(i, "", &sig)
	case "input_json_delta":
		if d.PartialJSON != "" {
			c.b.appendToolJSON(i, d.PartialJSON)
			c.sink.ToolUseInputDelta(i, c.b.blocks[i].ID, d.PartialJSON)
		}
	}
}

// mergeAnthropicUsage folds a usage report into u. Anthropic's input_tokens
// already exclude cache reads/writes; message_delta counts are cumulative, so
// non-zero values replace earlier ones. Thinking tokens are part of output.
func mergeAnthropicUsage(u *store.Usage, in, cacheRead, cacheWrite, out, thinking int64) {
	set := func(dst *int64, v int64) {
		if v > 0 {
			*dst = v
		}
	}
	set(&u.InputTokens, in)
	set(&u.CacheReadTokens, cacheRead)
	set(&u.CacheWriteTokens, cacheWrite)
	set(&u.OutputTokens, out)
	set(&u.ReasoningTokens, thinking)
}

// anthropicStop maps Anthropic stop reasons onto ours.
func anthropicStop(s string) string {
	switch s {
	case "max_tokens", "model_context_window_exceeded":
		return StopMaxTokens
	case "stop_sequence":
		return StopSequence
	case "tool_use":
		return StopToolUse
	default: // end_turn, pause_turn, refusal
		return StopEndTurn
	}
}

// anthropicError classifies a failed Anthropic call.
func anthropicError(parent context.Context, callCtx context.Context, cfg Config, failed *httpFailure, err error) *Error {
	if callCtx.Err() != nil {
		return classifyTransport("Anthropic", parent, callCtx, cfg.IdleTimeout, err)
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		typ, msg := errorBody(apiErr.RawJSON())
		if typ == "" {
			typ = string(apiErr.Type())
		}
		var header = apiErr.Response
		if header != nil {
			return classifyAPI("Anthropic", apiErr.StatusCode, typ, msg, header.Header, err)
		}
		return classifyAPI("Anthropic", apiErr.StatusCode, typ, msg, nil, err)
	}
	if failed != nil {
		typ, msg := errorBody(failed.body)
		return classifyAPI("Anthropic", failed.status, typ, msg, failed.header, err)
	}
	return classifyTransport("Anthropic", parent, callCtx, cfg.IdleTimeout, err)
}

// anthropicParams converts a Request to Messages API parameters.
func anthropicParams(req Request) (anthropic.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: int64(maxTokens),
		Messages:  anthropicMessages(req.Messages),
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if req.ThinkingBudget > 0 {
		budget := max(req.ThinkingBudget, 1024) // the API's minimum
		if maxTokens <= budget {
			p.MaxTokens = int64(budget + DefaultMaxTokens) // max_tokens must exceed the budget
		}
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(budget))
	}
	for _, t := range req.Tools {
		schema, err := anthropicSchema(t)
		if err != nil {
			return p, err
		}
		tp := &anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	markCacheBreakpoints(&p)
	return p, nil
}

// schemaObject parses a tool's input schema ({} when empty).
func schemaObject(t ToolSpec) (map[string]any, error) {
	m := map[string]any{}
	if len(t.InputSchema) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(t.InputSchema, &m); err != nil || m == nil {
		return nil, &Error{Class: errclass.InvalidRequest, Message: fmt.Sprintf("tool %q: input schema is not a JSON object: %v", t.Name, err), cause: err}
	}
	return m, nil
}

func anthropicSchema(t ToolSpec) (anthropic.ToolInputSchemaParam, error) {
	m, err := schemaObject(t)
	if err != nil {
		return anthropic.ToolInputSchemaParam{}, err
	}
	s := anthropic.ToolInputSchemaParam{Properties: m["properties"]}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range m {
		if k == "type" || k == "properties" || k == "required" {
			continue
		}
		if s.ExtraFields == nil {
			s.ExtraFields = map[string]any{}
		}
		s.ExtraFields[k] = v
	}
	return s, nil
}

// anthropicMessages converts history: tool results become user tool_result
// blocks, consecutive same-role messages merge into one, unsigned thinking
// and empty text are dropped, and empty messages are skipped.
func anthropicMessages(msgs []store.Message) []anthropic.MessageParam {
	var out []anthropic.MessageParam
	appendBlocks := func(role anthropic.MessageParamRole, blocks []anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, anthropic.MessageParam{Role: role, Content: blocks})
	}
	for _, m := range providerIDs(RepairToolPairs(msgs)) {
		var blocks []anthropic.ContentBlockParamUnion
		switch m.Role {
		case store.RoleUser:
			for _, b := range m.Content {
				switch {
				case b.Type == store.BlockText && b.Text != "":
					blocks = append(blocks, anthropic.NewTextBlock(b.Text))
				case b.Type == store.BlockImage && b.Source != nil:
					blocks = append(blocks, anthropic.NewImageBlockBase64(b.Source.MediaType, b.Source.Data))
				}
			}
			appendBlocks(anthropic.MessageParamRoleUser, blocks)
		case store.RoleAssistant:
			for _, b := range m.Content {
				switch {
				case b.Type == store.BlockThinking && b.Signature != "":
					blocks = append(blocks, anthropic.NewThinkingBlock(b.Signature, b.Thinking))
				case b.Type == store.BlockText && b.Text != "":
					blocks = append(blocks, anthropic.NewTextBlock(b.Text))
				case b.Type == store.BlockToolCall:
					blocks = append(blocks, anthropic.NewToolUseBlock(b.ID, toolArgs(b), b.Name))
				}
			}
			appendBlocks(anthropic.MessageParamRoleAssistant, blocks)
		case store.RoleToolResult:
			tr := &anthropic.ToolResultBlockParam{ToolUseID: m.ToolCallID}
			if m.IsError {
				tr.IsError = anthropic.Bool(true)
			}
			for _, b := range m.Content {
				switch {
				case b.Type == store.BlockText && b.Text != "":
					tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: b.Text}})
				case b.Type == store.BlockImage && b.Source != nil:
					img := anthropic.NewImageBlockBase64(b.Source.MediaType, b.Source.Data)
					tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: img.OfImage})
				}
			}
			appendBlocks(anthropic.MessageParamRoleUser, []anthropic.ContentBlockParamUnion{{OfToolResult: tr}})
		}
	}
	return out
}
