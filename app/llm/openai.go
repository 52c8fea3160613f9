package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"agenthub/ipc/errclass"
	"agenthub/store"
)

// openaiProvider streams any OpenAI-compatible Chat Completions endpoint
// (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio) through the official
// SDK's chat-completions service (no environment autoload, no retries; the
// service alone, not an openai.Client, for the reason anthropicProvider gives).
var _ Provider = (*openaiProvider)(nil)

type openaiProvider struct {
	cfg      Config
	official bool // api.openai.com: max_completion_tokens, reasoning_effort
	chat     openai.ChatCompletionService
}

func newOpenAI(cfg Config) *openaiProvider {
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	}
	if cfg.OpenAIAPIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.OpenAIAPIKey))
	}
	official := true
	if cfg.OpenAIBaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.OpenAIBaseURL))
		u, err := url.Parse(cfg.OpenAIBaseURL)
		official = err == nil && u.Hostname() == "api.openai.com"
	}
	return &openaiProvider{cfg: cfg, official: official, chat: openai.NewChatCompletionService(opts...)}
}

// oaTool is one streamed tool call, keyed by its wire index.
type oaTool struct {
	block int
	id    string
}

// Stream implements Provider.
func (p *openaiProvider) Stream(ctx context.Context, req Request, sink Sink) (Result, error) {
	params, err := p.params(req)
	if err != nil {
		return Result{StopReason: StopError}, err
	}
	callCtx, watch, stop := watchIdle(ctx, p.cfg.IdleTimeout)
	defer stop()
	// Chat.Completions.NewStreaming hands over the raw response
	// (WithResponseBodyInto) and the SDK's SSE stream decodes our
	// openaiChunk instead of its ChatCompletionChunk (see openaiChunk).
	var raw *http.Response
	err = p.chat.NewStreaming(callCtx, params, option.WithMiddleware(watch.middleware), option.WithResponseBodyInto(&raw)).Err()
	stream := ssestream.NewStream[openaiChunk](ssestream.NewDecoder(raw), err)
	defer stream.Close()

	c := &openaiCall{sink: sink, b: newBuilder(), textBlock: -1, thinkBlock: -1, tools: map[int64]*oaTool{}}
	var e *Error
	for e == nil && stream.Next() {
		chunk := stream.Current()
		if chunk.fast {
			c.begin()
			c.delta(chunk.content, chunk.reasoning)
			continue
		}
		e = c.chunk(&chunk.full)
	}
	switch {
	case e != nil:
	case stream.Err() != nil:
		e = p.classify(ctx, callCtx, watch.failed, stream.Err())
	case callCtx.Err() != nil:
		e = classifyTransport("OpenAI", ctx, callCtx, p.cfg.IdleTimeout, callCtx.Err())
	case c.finish == "":
		e = newError(errclass.Network, "OpenAI-compatible endpoint: stream ended without a finish_reason", 0, nil)
	default:
		e = c.closeTools()
	}
	if e != nil {
		return partial(c.b, req.Model, c.usage, e), e
	}
	c.usage.CostUSD = Cost(req.Model, c.usage)
	stopReason := openaiStop(c.finish)
	if c.b.hasToolCalls() && stopReason == StopEndTurn {
		stopReason = StopToolUse // Ollama and others say "stop" after tool calls
	}
	return Result{Content: c.b.content(), StopReason: stopReason, Usage: c.usage}, nil
}

// openaiCall is what one streamed Chat Completions call has received so
// far. Only choice 0 counts; its text and its reasoning each go into one
// block, opened by their first delta.
type openaiCall struct {
	sink                  Sink
	b                     *builder
	usage                 store.Usage
	textBlock, thinkBlock int // -1 until opened
	tools                 map[int64]*oaTool
	started               bool   // MessageStart was called
	finish                string // choice 0's finish_reason
}

// chunk folds one streamed chunk into the call and tells the sink; an
// error ends the call.
func (c *openaiCall) chunk(chunk *openai.ChatCompletionChunk) *Error {
	c.begin()
	if chunk.JSON.Usage.Valid() {
		c.usage = openaiUsage(chunk.Usage)
	}
	for i := range chunk.Choices {
		ch := &chunk.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		c.delta(d.Content, reasoningText(d.JSON.ExtraFields))
		for j := range d.ToolCalls {
			if e := c.toolCall(&d.ToolCalls[j]); e != nil {
				return e
			}
		}
		if ch.FinishReason != "" {
			c.finish = ch.FinishReason
		}
	}
	return nil
}

// begin tells the sink the message started, once.
func (c *openaiCall) begin() {
	if !c.started {
		c.started = true
		c.sink.MessageStart()
	}
}

// delta folds choice 0's reasoning and text fragments.
func (c *openaiCall) delta(content, reasoning string) {
	if reasoning != "" {
		if c.thinkBlock < 0 {
			c.thinkBlock = c.b.add(store.ContentBlock{Type: store.BlockThinking})
		}
		c.b.appendThinking(c.thinkBlock, reasoning)
		c.sink.ThinkingDelta(c.thinkBlock, reasoning, nil)
	}
	if content != "" {
		if c.textBlock < 0 {
			c.textBlock = c.b.add(store.ContentBlock{Type: store.BlockText})
		}
		c.b.appendText(c.textBlock, content)
		c.sink.TextDelta(c.textBlock, content)
	}
}

// openaiChunk is one Chat Completions stream chunk as the SDK's SSE stream
// decodes it. A chunk that only carries choice 0's text or reasoning —
// nearly every chunk of a long answer — is decoded by encoding/json into
// those fields (fast); every other chunk (tool calls, a finish_reason,
// usage, several choices, anything unexpected) through the SDK's own
// ChatCompletionChunk, whose reflective decoder costs several times more.
type openaiChunk struct {
	fast               bool
	content, reasoning string
	full               openai.ChatCompletionChunk
}

// UnmarshalJSON implements json.Unmarshaler.
func (ch *openaiChunk) UnmarshalJSON(b []byte) error {
	var f struct {
		Choices []struct {
			Index int64 `json:"index"`
			Delta struct {
				Content          *string         `json:"content"`
				ReasoningContent *string         `json:"reasoning_content"`
				Reasoning        *string         `json:"reasoning"`
				ToolCalls        json.RawMessage `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(b, &f) == nil && len(f.Choices) == 1 && f.Choices[0].Index == 0 &&
		(f.Choices[0].FinishReason == nil || *f.Choices[0].FinishReason == "") && isJSONNull(f.Usage) && isJSONNull(f.Choices[0].Delta.ToolCalls) {
		d := f.Choices[0].Delta
		ch.fast = true
		if d.Content != nil {
			ch.content = *d.Content
		}
		// As reasoningText: reasoning_content first, then reasoning.
		switch {
		case d.ReasoningContent != nil && *d.ReasoningContent != "":
			ch.reasoning = *d.ReasoningContent
		case d.Reasoning != nil:
			ch.reasoning = *d.Reasoning
		}
		return nil
	}
	return ch.full.UnmarshalJSON(b)
}

// isJSONNull reports an absent or null JSON value.
func isJSONNull(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || string(b) == "null"
}

// toolCall folds one tool-call fragment: a new call (a new index, or a new
// id on an index in use, which closes the old call first), or more of a
// call's name and arguments.
func (c *openaiCall) toolCall(tc *openai.ChatCompletionChunkChoiceDeltaToolCall) *Error {
	t, ok := c.tools[tc.Index]
	if !ok || (tc.ID != "" && tc.ID != t.id) {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", len(c.tools))
		}
		if ok { // a new call reusing the index: close the old one
			if e := c.endTool(t); e != nil {
				return e
			}
		}
		t = &oaTool{id: id, block: c.b.add(store.ContentBlock{Type: store.BlockToolCall, ID: id, Name: tc.Function.Name})}
		c.tools[tc.Index] = t
		c.sink.ToolUseStart(t.block, id, tc.Function.Name)
	} else if tc.Function.Name != "" && c.b.blocks[t.block].Name == "" {
		c.b.blocks[t.block].Name = tc.Function.Name
	}
	if frag := tc.Function.Arguments; frag != "" {
		c.b.appendToolJSON(t.block, frag)
		c.sink.ToolUseInputDelta(t.block, t.id, frag)
	}
	return nil
}

// closeTools closes the tool calls still open, in content order.
func (c *openaiCall) closeTools() *Error {
	open := make([]*oaTool, 0, len(c.tools))
	for _, t := range c.tools {
		if c.b.open[t.block] {
			open = append(open, t)
		}
	}
	sort.Slice(open, func(i, j int) bool { return open[i].block < open[j].block })
	for _, t := range open {
		if e := c.endTool(t); e != nil {
			return e
		}
	}
	return nil
}

func (c *openaiCall) endTool(t *oaTool) *Error {
	in, err := c.b.closeTool(t.block)
	if err != nil {
		return newError(errclass.Server, "OpenAI-compatible endpoint: "+err.Error(), 0, err)
	}
	c.sink.ToolUseEnd(t.block, t.id, in)
	return nil
}

// reasoningText returns the reasoning delta of OpenAI-compatible servers
// (reasoning_content: vLLM, DeepSeek, llama.cpp; reasoning: Ollama,
// OpenRouter) from a delta's extra fields.
func reasoningText(extra map[string]respjson.Field) string {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[k]
		if !ok {
			continue
		}
		var s *string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != nil && *s != "" {
			return *s
		}
	}
	return ""
}

// openaiUsage normalises usage: prompt_tokens include cached (and reported
// cache-write) tokens and completion_tokens include reasoning tokens, so
// input = prompt - cached - cache_write and output stays as is.
func openaiUsage(u openai.CompletionUsage) store.Usage {
	cached := u.PromptTokensDetails.CachedTokens
	written := u.PromptTokensDetails.CacheWriteTokens
	return store.Usage{
		InputTokens:      max(0, u.PromptTokens-cached-written),
		OutputTokens:     u.CompletionTokens,
		CacheReadTokens:  cached,
		CacheWriteTokens: written,
		ReasoningTokens:  u.CompletionTokensDetails.ReasoningTokens,
	}
}

func openaiStop(s string) string {
	switch s {
	case "length":
		return StopMaxTokens
	case "tool_calls", "function_call":
		return StopToolUse
	default: // stop, content_filter, eos …
		return StopEndTurn
	}
}

func (p *openaiProvider) classify(parent, callCtx context.Context, failed *httpFailure, err error) *Error {
	if callCtx.Err() != nil {
		return classifyTransport("OpenAI", parent, callCtx, p.cfg.IdleTimeout, err)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		typ, msg := errorBody(apiErr.RawJSON())
		if apiErr.Message != "" {
			msg = apiErr.Message
		}
		if t := pickType(apiErr.Type, apiErr.Code); t != "" {
			typ = t
		}
		var header = apiErr.Response
		if header != nil {
			return classifyAPI(p.name(), apiErr.StatusCode, typ, msg, header.Header, err)
		}
		return classifyAPI(p.name(), apiErr.StatusCode, typ, msg, nil, err)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) { // a mid-stream {"error": …} chunk
		typ, msg := errorBody(string(streamErr.Event.Data))
		return classifyAPI(p.name(), 200, typ, msg, nil, err)
	}
	if failed != nil { // an error body the SDK could not decode (e.g. Ollama's {"error":"..."})
		typ, msg := errorBody(failed.body)
		return classifyAPI(p.name(), failed.status, typ, msg, failed.header, err)
	}
	return classifyTransport(p.name(), parent, callCtx, p.cfg.IdleTimeout, err)
}

func (p *openaiProvider) name() string {
	if p.official {
		return "OpenAI"
	}
	return "OpenAI-compatible endpoint"
}

// params converts a Request to Chat Completions parameters.
func (p *openaiProvider) params(req Request) (openai.ChatCompletionNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		Messages:      openaiMessages(req.System, req.Messages),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if p.official {
		params.MaxCompletionTokens = openai.Int(int64(maxTokens))
	} else {
		params.MaxTokens = openai.Int(int64(maxTokens))
	}
	if req.ThinkingBudget > 0 && p.official && isOpenAIReasoningModel(req.Model) {
		switch {
		case req.ThinkingBudget <= 2048:
			params.ReasoningEffort = shared.ReasoningEffortLow
		case req.ThinkingBudget <= 16384:
			params.ReasoningEffort = shared.ReasoningEffortMedium
		default:
			params.ReasoningEffort = shared.ReasoningEffortHigh
		}
	}
	for _, t := range req.Tools {
		m, err := schemaObject(t)
		if err != nil {
			return params, err
		}
		if _, ok := m["type"]; !ok {
			m["type"] = "object"
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(m)}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	return params, nil
}

func isOpenAIReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if model == p || strings.HasPrefix(model, p+"-") {
			return true
		}
	}
	return false
}

// openaiMessages converts history: system first, user text/images,
// assistant text + tool_calls (thinking is not sent back), and one
// role:"tool" message per tool result.
func openaiMessages(system string, msgs []store.Message) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if system != "" {
		out = append(out, openai.SystemMessage(system))
	}
	for _, m := range providerIDs(RepairToolPairs(msgs)) {
		switch m.Role {
		case store.RoleUser:
			var parts []openai.ChatCompletionContentPartUnionParam
			var texts []string
			hasImage := false
			for _, b := range m.Content {
				switch {
				case b.Type == store.BlockText && b.Text != "":
					parts = append(parts, openai.TextContentPart(b.Text))
					texts = append(texts, b.Text)
				case b.Type == store.BlockImage && b.Source != nil:
					hasImage = true
					parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
						URL: "data:" + b.Source.MediaType + ";base64," + b.Source.Data,
					}))
				}
			}
			switch {
			case len(parts) == 0:
			case hasImage:
				out = append(out, openai.UserMessage(parts))
			default:
				out = append(out, openai.UserMessage(strings.Join(texts, "\n")))
			}
		case store.RoleAssistant:
			am := openai.ChatCompletionAssistantMessageParam{}
			var texts []string
			for _, b := range m.Content {
				switch b.Type {
				case store.BlockText:
					if b.Text != "" {
						texts = append(texts, b.Text)
					}
				case store.BlockToolCall:
					am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
						OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
							ID:       b.ID,
							Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: string(toolArgs(b))},
						},
					})
				}
			}
			if len(texts) > 0 {
				am.Content.OfString = openai.String(strings.Join(texts, ""))
			}
			if len(texts) == 0 && len(am.ToolCalls) == 0 {
				continue
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case store.RoleToolResult:
			text := resultText(m)
			if m.IsError {
				text = "[tool error] " + text // Chat Completions has no is_error flag
			}
			out = append(out, openai.ToolMessage(text, m.ToolCallID))
		}
	}
	return out
}
