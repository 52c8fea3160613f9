package hub_test

// Reference clients of the seed004 dialect, written for these tests (read,
// not copied): potpieClient behaves as the client of the project that
// wrote seed 004 — potpie-ui's services/ChatService.ts (streamWithRetry /
// resumeWithCursor / loadMessages), app/(main)/chat/[chatId]/runtime.ts
// (onMessageUpdate, upsertStreamingToolCall, convertToThreadMessage) and
// components/assistant-ui/tool-fallback.tsx (what a card shows); s004Doc
// behaves as the seed document's own frontend guide
// (processStreamChunk / updateStreamingToolCall / addCompleteToolCall).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// potpieCard is what tool-fallback.tsx shows of a tool-call part.
type potpieCard struct {
	ID, Name  string
	Args      string // the part's args, as JSON
	Running   bool   // no result yet
	IsError   bool
	Preview   string // the header: tool response ?? command ?? argument preview
	Command   string
	Summary   string
	Stream    string // the "Stream" section (argsText while nothing else shows)
	Output    string // the accumulated delta stream (in the result's JSON)
	EventType string
}

// potpieMsg is a thread message as the user sees it.
type potpieMsg struct {
	Role      string
	Text      string
	Reasoning string
	Cards     []potpieCard
}

// potpieResult is runtime.ts's ToolCallResult (a part's stream state).
type potpieResult struct {
	eventType, response, latest string
	details                     map[string]any
	accumulated                 string
}

// potpieTool is runtime.ts's StreamingToolCallPart.
type potpieTool struct {
	id, name string
	args     any
	argsText string
	state    *potpieResult
	result   *potpieResult
	isError  bool
}

// potpieRun is one run of the chat adapter: ChatService's locals (the
// accumulated message, the list of every tool_calls part received,
// thinking) and the runtime's (chronological parts, the tool map).
type potpieRun struct {
	message     string
	toolCalls   []any
	thinking    *string
	insideThink bool
	pendingTag  string
	lastLen     int
	parts       []potpiePart
	tools       map[string]*potpieTool
	accThinking *string
}

type potpiePart struct {
	text   string
	toolID string // "" for a text part
}

// potpieClient is the thread: finished messages and the running run.
type potpieClient struct {
	thread  []potpieMsg
	run     *potpieRun
	dropped int // frames the client's JSON handling throws away
}

// send is the composer: a user message, then a run.
func (c *potpieClient) send(text string) {
	c.thread = append(c.thread, potpieMsg{Role: "user", Text: text})
	c.run = &potpieRun{tools: map[string]*potpieTool{}}
}

// resume is the runtime's resume path: a run with a fresh state (the
// answer the client showed before is not kept).
func (c *potpieClient) resume() { c.run = &potpieRun{tools: map[string]*potpieTool{}} }

func (c *potpieClient) apply(m map[string]any) error {
	if c.run == nil {
		return nil
	}
	if !c.run.process(m) {
		c.dropped++
	}
	if m["end"] != nil { // the HTTP stream of the run ends: the answer is final
		c.endRun()
	}
	return nil
}

// endRun ends the running run: its answer joins the thread.
func (c *potpieClient) endRun() {
	if c.run != nil {
		c.thread = append(c.thread, c.run.answer())
		c.run = nil
	}
}

// escapedUnicode is ChatService's emoji fix-up of literal \uXXXX.
var escapedUnicode = regexp.MustCompile(`(?i)\\u[\dA-F]{4}`)

// textKey is where the client reads the answer's text: "message", as
// potpie-ui does. SEED004_TEXT_KEY=response makes it read the document's
// key instead — how issue 41 checked its other rows against a hub that
// sent only "response" (P1 corrected).
func textKey() string {
	if k := os.Getenv("SEED004_TEXT_KEY"); k != "" {
		return k
	}
	return "message"
}

// process is ChatService's processJsonSegment; false when the client's
// handling throws (the frame's remaining fields are lost).
func (r *potpieRun) process(data map[string]any) bool {
	updated := false
	if raw, ok := data[textKey()]; ok {
		msg, isString := raw.(string)
		if !isString {
			return false // data.message.replace is not a function
		}
		msg = escapedUnicode.ReplaceAllStringFunc(msg, func(s string) string {
			n, _ := strconv.ParseUint(s[2:], 16, 32)
			return string(rune(n))
		})
		text, think := r.splitThink(msg)
		r.message += text
		if think != "" {
			r.thinking = ptr(deref(r.thinking) + think)
		}
		updated = true
	}
	if raw, ok := data["tool_calls"]; ok {
		list, isList := raw.([]any)
		if !isList {
			return false // currentToolCalls.push(...data.tool_calls) throws
		}
		r.toolCalls = append(r.toolCalls, list...)
		updated = true
	}
	if _, ok := data["citations"]; ok {
		updated = true
	}
	if raw, ok := data["thinking"]; ok {
		if t, isString := raw.(string); isString && t != "" && t != "None" {
			r.thinking = ptr(deref(r.thinking) + t)
			updated = true
		}
	}
	if updated {
		r.onUpdate()
	}
	return true
}

// splitThink is ChatService's parseThinkTaggedChunk: <think>…</think>
// inside the message stream goes to thinking.
func (r *potpieRun) splitThink(chunk string) (text, think string) {
	in := r.pendingTag + chunk
	r.pendingTag = ""
	for in != "" {
		tag := "<think>"
		if r.insideThink {
			tag = "</think>"
		}
		i := strings.Index(in, tag)
		if i < 0 {
			cut := len(in)
			for k := min(len(tag)-1, len(in)); k > 0; k-- {
				if strings.HasSuffix(in, tag[:k]) {
					cut = len(in) - k
					break
				}
			}
			if r.insideThink {
				think += in[:cut]
			} else {
				text += in[:cut]
			}
			r.pendingTag = in[cut:]
			break
		}
		if r.insideThink {
			think += in[:i]
		} else {
			text += in[:i]
		}
		in = in[i+len(tag):]
		r.insideThink = !r.insideThink
	}
	return text, think
}

var thinkBlock = regexp.MustCompile(`(?i)<think>([\s\S]*?)</think>`)

// onUpdate is the runtime's onMessageUpdate callback.
func (r *potpieRun) onUpdate() {
	clean := regexp.MustCompile(`(?i)</?think>`).ReplaceAllString(thinkBlock.ReplaceAllString(r.message, ""), "")
	if len(clean) > r.lastLen {
		delta := clean[r.lastLen:]
		r.lastLen = len(clean)
		if n := len(r.parts); n > 0 && r.parts[n-1].toolID == "" {
			r.parts[n-1].text += delta
		} else {
			r.parts = append(r.parts, potpiePart{text: delta})
		}
	} else {
		r.lastLen = len(clean)
	}
	r.accThinking = r.thinking
	for _, tc := range r.toolCalls {
		if id, isNew := r.upsert(tc); isNew {
			r.parts = append(r.parts, potpiePart{toolID: id})
		}
	}
}

func nonBlank(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", false
	}
	return strings.TrimSpace(s), true
}

// jsonIndent is JSON.stringify(v, null, 2).
func jsonIndent(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// upsert is runtime.ts's upsertStreamingToolCall.
func (r *potpieRun) upsert(raw any) (string, bool) {
	p, ok := raw.(map[string]any)
	if !ok {
		return "", false
	}
	id, _ := p["call_id"].(string)
	name, _ := p["tool_name"].(string)
	if id == "" || name == "" {
		return "", false
	}
	details, _ := p["tool_call_details"].(map[string]any)
	rawArgs, hasArgs := details["arguments"]
	if rawArgs == nil {
		hasArgs = false
	}
	var streamPart *string
	if s, ok := p["stream_part"].(string); ok {
		streamPart = &s
	}
	isComplete, hasComplete := p["is_complete"].(bool)
	command, hasCommand := nonBlank(details["command"])
	prev, had := r.tools[id]
	if !had {
		prev = &potpieTool{id: id, name: name}
		switch a := rawArgs.(type) {
		case map[string]any:
			prev.args = a
		default:
			prev.args = map[string]any{}
			if hasCommand {
				prev.args = map[string]any{"command": command}
			}
		}
		switch {
		case hasArgs && isString(rawArgs):
			prev.argsText = rawArgs.(string)
		case hasCommand:
			prev.argsText = command
		case streamPart != nil && *streamPart != "":
			prev.argsText = *streamPart
		default:
			prev.argsText = jsonIndent(orEmpty(rawArgs))
		}
	}
	eventType, _ := p["event_type"].(string)
	isDelta := strings.Contains(strings.ToLower(eventType), "delta")
	prevWasDelta := prev.state != nil && strings.Contains(strings.ToLower(prev.state.eventType), "delta")
	accumulate := isDelta && streamPart != nil && strings.TrimSpace(*streamPart) != "" && !(hasComplete && isComplete)
	reset := accumulate && !prevWasDelta
	next := *prev
	switch {
	case !hasArgs && hasCommand:
		next.args = map[string]any{"command": command}
	case !hasArgs:
	case isMap(rawArgs):
		next.args = rawArgs
	default:
		next.args = map[string]any{}
	}
	switch {
	case hasArgs && isString(rawArgs):
		next.argsText = rawArgs.(string)
	case hasArgs:
		next.argsText = jsonIndent(rawArgs)
	case hasCommand:
		next.argsText = command
	case streamPart != nil && *streamPart != "" && accumulate:
		switch {
		case reset:
			next.argsText = *streamPart
		case had && prev.argsText == "{}":
			next.argsText = *streamPart
		case had:
			next.argsText = prev.argsText + *streamPart
		default:
			next.argsText = *streamPart
		}
	}
	acc := ""
	if prev.state != nil {
		acc = prev.state.accumulated
	}
	if accumulate {
		if reset {
			acc = *streamPart
		} else {
			acc += *streamPart
		}
	}
	latest, ok := nonBlank(p["tool_response"])
	if !ok && prev.state != nil {
		if latest, ok = nonBlank(prev.state.latest); !ok {
			latest, _ = nonBlank(prev.state.response)
		}
	}
	state := &potpieResult{eventType: eventType, response: latest, latest: latest, details: details, accumulated: acc}
	next.state, next.name = state, name
	next.result, next.isError = nil, false
	if eventType == "result" || eventType == "delegation_result" || eventType == "error" {
		next.result, next.isError = state, eventType == "error"
	}
	r.tools[id] = &next
	return id, !had
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isMap(v any) bool    { _, ok := v.(map[string]any); return ok }
func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}
func ptr(s string) *string { return &s }
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// answer is the run's assistant message (toThreadContent).
func (r *potpieRun) answer() potpieMsg {
	m := potpieMsg{Role: "assistant"}
	if t := deref(r.accThinking); strings.TrimSpace(t) != "" {
		m.Reasoning = t
	}
	for _, p := range r.parts {
		if p.toolID == "" {
			m.Text += p.text
			continue
		}
		if t := r.tools[p.toolID]; t != nil {
			m.Cards = append(m.Cards, t.card())
		}
	}
	return m
}

// card is what ToolFallback shows of t.
func (t *potpieTool) card() potpieCard {
	c := potpieCard{ID: t.id, Name: t.name, Args: jsonIndent(t.args), Running: t.result == nil, IsError: t.isError}
	if t.state != nil {
		c.Output, c.EventType = t.state.accumulated, t.state.eventType
	}
	argPreview := argumentPreview(t.argsText)
	var response string
	if t.result != nil {
		if _, ok := nonBlank(t.result.latest); ok {
			response = t.result.latest
		} else if _, ok := nonBlank(t.result.response); ok {
			response = t.result.response
		}
		c.Command, _ = nonBlankRaw(t.result.details["command"])
		c.Summary, _ = nonBlankRaw(t.result.details["summary"])
	}
	switch {
	case response != "":
		c.Preview = response
	case c.Command != "":
		c.Preview = c.Command
	default:
		c.Preview = argPreview
	}
	if c.Command == "" && c.Summary == "" && t.result == nil && strings.TrimSpace(t.argsText) != "" && argPreview != "No arguments" {
		c.Stream = strings.TrimSpace(t.argsText)
	}
	return c
}

func nonBlankRaw(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", false
	}
	return s, true
}

// argumentPreview is tool-fallback.tsx's getArgumentPreview.
func argumentPreview(argsText string) string {
	if argsText == "" {
		return "No arguments"
	}
	var parsed any
	if err := json.Unmarshal([]byte(argsText), &parsed); err != nil {
		compact := strings.Join(strings.Fields(argsText), " ")
		if len(compact) > 110 {
			return compact[:107] + "..."
		}
		if compact != "" {
			return compact
		}
		return "No arguments"
	}
	obj, _ := parsed.(map[string]any)
	sub := func(m any, keys ...string) any {
		for _, k := range keys {
			mm, ok := m.(map[string]any)
			if !ok {
				return nil
			}
			m = mm[k]
		}
		return m
	}
	for _, v := range []any{obj["path"], obj["file"], obj["target"], obj["query"], obj["prompt"], obj["search_term"], obj["url"],
		sub(obj, "parameters", "command"), sub(obj, "tool_call", "parameters", "command"), obj["command"], obj["explanation"]} {
		if s, ok := nonBlank(v); ok {
			return s
		}
	}
	return "No arguments"
}

// potpieHistory is loadMessages + convertToThreadMessage over the rows of
// GET /sessions/{id}/messages?dialect=seed004.
func potpieHistory(raw json.RawMessage) ([]potpieMsg, error) {
	var rows []struct {
		ID        string           `json:"id"`
		Content   *string          `json:"content"`
		Type      string           `json:"type"`
		ToolCalls []map[string]any `json:"tool_calls"`
		Thinking  *string          `json:"thinking"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil || rows == nil {
		return nil, fmt.Errorf("response.data.map: not an array (%v): %.200s", err, raw) // an object fails here
	}
	var out []potpieMsg
	for _, row := range rows {
		text := deref(row.Content)
		if row.Type == "HUMAN" {
			out = append(out, potpieMsg{Role: "user", Text: text})
			continue
		}
		var extracted []string
		clean := thinkBlock.ReplaceAllStringFunc(text, func(b string) string {
			if t := strings.TrimSpace(thinkBlock.FindStringSubmatch(b)[1]); t != "" {
				extracted = append(extracted, t)
			}
			return ""
		})
		clean = regexp.MustCompile(`(?i)</?think>`).ReplaceAllString(clean, "")
		m := potpieMsg{Role: "assistant", Text: clean}
		if t := strings.TrimSpace(deref(row.Thinking)); t != "" {
			m.Reasoning = t
		} else if len(extracted) > 0 {
			m.Reasoning = strings.Join(extracted, "\n\n")
		}
		for _, tc := range dedupeToolCalls(row.ToolCalls) {
			m.Cards = append(m.Cards, historyTool(tc).card())
		}
		out = append(out, m)
	}
	return out, nil
}

// dedupeToolCalls is runtime.ts's: one part per call_id in first-seen
// order, a result/delegation_result/error part winning.
func dedupeToolCalls(tcs []map[string]any) []map[string]any {
	var order []string
	by := map[string]map[string]any{}
	for _, tc := range tcs {
		id, _ := tc["call_id"].(string)
		if _, ok := by[id]; !ok {
			order = append(order, id)
			by[id] = tc
			continue
		}
		switch tc["event_type"] {
		case "result", "delegation_result", "error":
			merged := map[string]any{}
			for k, v := range by[id] {
				merged[k] = v
			}
			for k, v := range tc {
				merged[k] = v
			}
			by[id] = merged
		}
	}
	out := make([]map[string]any, len(order))
	for i, id := range order {
		out[i] = by[id]
	}
	return out
}

// historyTool is runtime.ts's apiToolCallToPart.
func historyTool(tc map[string]any) *potpieTool {
	details, _ := tc["tool_call_details"].(map[string]any)
	rawArgs := details["arguments"]
	t := &potpieTool{args: map[string]any{}}
	t.id, _ = tc["call_id"].(string)
	t.name, _ = tc["tool_name"].(string)
	if isMap(rawArgs) {
		t.args = rawArgs
	}
	if s, ok := rawArgs.(string); ok {
		t.argsText = s
	} else {
		t.argsText = jsonIndent(orEmpty(rawArgs))
	}
	eventType, _ := tc["event_type"].(string)
	response, _ := tc["tool_response"].(string)
	d := map[string]any{}
	for k, v := range details {
		d[k] = v
	}
	if _, ok := d["summary"]; !ok {
		d["summary"] = ""
	}
	t.result = &potpieResult{eventType: eventType, response: response, details: d}
	t.state, t.isError = t.result, eventType == "error"
	return t
}

// s004DocCall is the document's ToolCallState.
type s004DocCall struct {
	EventType, ToolName, ToolResponse, Summary, Stream string
	Complete, Streaming                                bool
}

// s004Doc is a client written from the seed document alone: the text of
// the answer (the interface's response), the tool calls by call_id with
// stream_part accumulated, one answer per turn.
type s004Doc struct {
	answers []s004DocAnswer
	cur     *s004DocAnswer
}

type s004DocAnswer struct {
	Text  string
	Calls map[string]*s004DocCall
	Order []string
}

func (c *s004Doc) begin() { c.cur = &s004DocAnswer{Calls: map[string]*s004DocCall{}} }

func (c *s004Doc) apply(m map[string]any) error {
	if c.cur == nil {
		return nil
	}
	if _, ok := m["tool_calls"]; !ok {
		return nil // not a ChatAgentResponse (ack, snapshot, RPC response)
	}
	text, ok := m["response"].(string)
	if !ok {
		return errFrame("response is not a string")
	}
	c.cur.Text += text
	calls, ok := m["tool_calls"].([]any)
	if !ok {
		return errFrame("tool_calls is not an array")
	}
	for _, x := range calls {
		tc, ok := x.(map[string]any)
		if !ok {
			return errFrame("a tool call is not an object")
		}
		id, _ := tc["call_id"].(string)
		typ, _ := tc["event_type"].(string)
		name, _ := tc["tool_name"].(string)
		resp, _ := tc["tool_response"].(string)
		details, ok := tc["tool_call_details"].(map[string]any)
		if !ok {
			return errFrame("tool_call_details is not an object")
		}
		summary, _ := details["summary"].(string)
		complete, _ := tc["is_complete"].(bool)
		existing := c.cur.Calls[id]
		if existing == nil {
			c.cur.Order = append(c.cur.Order, id)
		}
		if part, ok := tc["stream_part"].(string); ok { // updateStreamingToolCall
			if existing != nil {
				existing.Stream += part
				if summary != "" {
					existing.Summary = summary
				}
				if resp != "" {
					existing.ToolResponse = resp
				}
				existing.Complete, existing.Streaming = complete, !complete
				continue
			}
			c.cur.Calls[id] = &s004DocCall{EventType: typ, ToolName: name, ToolResponse: resp, Summary: summary, Stream: part,
				Complete: complete, Streaming: !complete}
			continue
		}
		c.cur.Calls[id] = &s004DocCall{EventType: typ, ToolName: name, ToolResponse: resp, Summary: summary, Complete: true} // addCompleteToolCall
	}
	if m["end"] != nil {
		c.endRun()
	}
	return nil
}

func (c *s004Doc) endRun() {
	if c.cur != nil {
		c.answers = append(c.answers, *c.cur)
		c.cur = nil
	}
}
