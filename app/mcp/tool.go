package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/ipc/errclass"
)

// remoteTool is one tool of an MCP server as the model sees it
// (tool.Tool): named server__tool, run through the server's live session.
type remoteTool struct {
	srv    *server
	name   string // server__tool, provider-safe
	remote string // the server's own name for it
	desc   string
	schema json.RawMessage
}

var _ tool.Tool = (*remoteTool)(nil)

func newRemoteTool(s *server, t *sdk.Tool) *remoteTool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	if desc == "" {
		desc = t.Name
	}
	return &remoteTool{
		srv: s, name: toolName(s.name, t.Name), remote: t.Name,
		desc:   fmt.Sprintf("%s (MCP server %q, tool %q)", desc, s.name, t.Name),
		schema: objectSchema(t.InputSchema),
	}
}

// objectSchema is the tool's input schema as JSON, an empty object schema
// when the server gave none (both providers require an object schema).
func objectSchema(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || len(b) == 0 || string(b) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
		b, _ = json.Marshal(m)
	}
	return b
}

// Name implements tool.Tool.
func (t *remoteTool) Name() string { return t.name }

// Description implements tool.Tool.
func (t *remoteTool) Description() string { return t.desc }

// Schema implements tool.Tool.
func (t *remoteTool) Schema() json.RawMessage { return t.schema }

// Describe implements tool.Tool. Names and arguments come from the app's
// own records, never from Markdown the server wrote: the status line is
// plain text with the server's tool name made inert (inertName); the
// summary states the server (a validated name) and the model-facing name
// in code spans, the server's own name for the tool verbatim in a fenced
// block no backtick run in it can close, and the whole structured input as
// JSON. The UI renders the summary as Markdown.
func (t *remoteTool) Describe(input json.RawMessage) (string, string) {
	status := fmt.Sprintf("MCP %s: %s", t.srv.name, oneLine(inertName(t.remote)))
	var pretty bytes.Buffer
	if json.Indent(&pretty, input, "", "  ") != nil || pretty.Len() == 0 {
		pretty.Reset()
		pretty.WriteString("{}")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Calls `%s` on MCP server `%s` with these arguments:\n\n", t.name, t.srv.name)
	b.WriteString(tool.CodeBlock("json", pretty.String()))
	if t.remote != strings.TrimPrefix(t.name, t.srv.name+NameSeparator) {
		b.WriteString("\nThe server's own name for the tool:\n\n")
		b.WriteString(tool.CodeBlock("text", inertName(t.remote)))
	}
	return status, b.String()
}

// maxShownName bounds how much of a server's tool name a card shows.
const maxShownName = 512

// inertName is a server's tool name as shown to the user: control and
// format characters (newlines, bidi overrides, zero-width) as visible
// ⟨U+XXXX⟩ escapes, cut to maxShownName runes with a note of the rest.
func inertName(name string) string {
	var b strings.Builder
	n := 0
	for i, r := range name {
		if n == maxShownName {
			fmt.Fprintf(&b, "… (%d more bytes)", len(name)-i)
			break
		}
		n++
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// oneLine cuts s to 80 runes for a status line.
func oneLine(s string) string {
	if utf8.RuneCountInString(s) <= 80 {
		return s
	}
	r := []rune(s)
	return string(r[:79]) + "…"
}

// Run implements tool.Tool: tools/call with a progress token (progress
// notifications become live output); a cancelled ctx returns at once (the
// SDK sends notifications/cancelled) and the server is watched for the
// grace period; a server that crashed mid-call is an exec error naming how
// it ended.
func (t *remoteTool) Run(ctx context.Context, env tool.Env, input json.RawMessage) (tool.Result, error) {
	cs, st := t.srv.session()
	if cs == nil {
		return tool.Result{}, &tool.Error{Class: errclass.ToolExec, Message: notRunning(st)}
	}
	args := map[string]any{}
	if len(bytes.TrimSpace(input)) > 0 {
		if err := json.Unmarshal(input, &args); err != nil {
			return tool.Result{}, &tool.Error{Class: errclass.ToolInvalidInput, Message: "the input must be a JSON object: " + err.Error()}
		}
	}
	token := "agenthub-" + env.ToolUseID
	if env.ToolUseID == "" {
		token = "agenthub-" + newMarker()
	}
	stop := t.srv.watch(token, env.Output)
	res, err := cs.CallTool(reasonCtx{ctx}, &sdk.CallToolParams{Meta: sdk.Meta{"progressToken": token}, Name: t.remote, Arguments: args})
	stop()
	if ctx.Err() != nil {
		t.srv.afterCancel(cs, token)
		return tool.Result{}, tool.AsError(ctx.Err())
	}
	if err != nil {
		msg := fmt.Sprintf("MCP server %s failed during the call: %v", t.srv.name, err)
		if stderr, ended := t.srv.waitGone(cs, t.srv.m.opts.CrashWait); ended != nil {
			msg = fmt.Sprintf("MCP server %s failed during the call: %v", t.srv.name, ended)
			if stderr != "" {
				msg += "\nstderr (end):\n" + lastLines(stderr, 20)
			}
		}
		return tool.Result{}, &tool.Error{Class: errclass.ToolExec, Message: msg}
	}
	out := resultText(res)
	status := fmt.Sprintf("MCP %s: %s", t.srv.name, oneLine(inertName(t.remote)))
	if res.IsError {
		status = "Failed: " + status
	}
	return tool.Result{
		Output: out, IsError: res.IsError, OutputBytes: int64(len(out)),
		StatusText: status, Summary: tool.CodeBlock("text", lastLines(out, 40)),
	}, nil
}

// reasonCtx is a call's context as the SDK sees it: once it ends, Err says
// why in words. The SDK sends ctx.Err()'s text as the reason of
// notifications/cancelled, which the server may log or show; "context
// canceled" tells its user nothing. The error still matches
// context.Canceled (or DeadlineExceeded) with errors.Is.
type reasonCtx struct{ context.Context }

// Err implements context.Context.
func (c reasonCtx) Err() error {
	err := c.Context.Err()
	if err == nil {
		return nil
	}
	return &cancelReason{text: cancelText(context.Cause(c.Context)), err: err}
}

// cancelReason is a cancelled call's reason; it unwraps to the context's error.
type cancelReason struct {
	text string
	err  error
}

func (r *cancelReason) Error() string { return r.text }
func (r *cancelReason) Unwrap() error { return r.err }

// cancelText words a turn's cancel cause (app/hub's: user_cancel, timeout,
// shutdown; or the reason a client gave) for an MCP server.
func cancelText(cause error) string {
	switch {
	case cause == nil, errors.Is(cause, context.Canceled):
		return "cancelled by the user"
	case errors.Is(cause, context.DeadlineExceeded):
		return "cancelled: timed out"
	}
	switch c := cause.Error(); c {
	case "user_cancel":
		return "cancelled by the user"
	case "timeout":
		return "cancelled: the turn timed out"
	case "shutdown":
		return "cancelled: Agent Hub is shutting down"
	default:
		return "cancelled: " + c
	}
}

// notRunning is the error a call to a server that is not ready gets.
func notRunning(st ipc.MCPServerStatus) string {
	msg := fmt.Sprintf("MCP server %s is not running (%s)", st.Server, st.Status)
	if st.Error != "" {
		msg += ": " + st.Error
	}
	if st.RetryInMS > 0 {
		msg += fmt.Sprintf("; next start attempt in %d ms", st.RetryInMS)
	}
	if st.StderrTail != "" {
		msg += "\nstderr (end):\n" + lastLines(st.StderrTail, 20)
	}
	return msg
}

// resultText renders a tools/call result for the model: text as is, other
// content described in one line; structured content as JSON when there is
// no text.
func resultText(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch v := c.(type) {
		case *sdk.TextContent:
			b.WriteString(v.Text)
		case *sdk.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", v.MIMEType, len(v.Data))
		case *sdk.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", v.MIMEType, len(v.Data))
		case *sdk.ResourceLink:
			fmt.Fprintf(&b, "[resource %s %s]", v.Name, v.URI)
		case *sdk.EmbeddedResource:
			if v.Resource != nil {
				fmt.Fprintf(&b, "[resource %s]\n%s", v.Resource.URI, v.Resource.Text)
			}
		default:
			j, _ := json.Marshal(c)
			b.Write(j)
		}
	}
	if b.Len() == 0 && r.StructuredContent != nil {
		j, _ := json.Marshal(r.StructuredContent)
		b.Write(j)
	}
	return b.String()
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
