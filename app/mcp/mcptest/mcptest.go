// Package mcptest is an MCP server built with the official Go SDK for the
// tests: over stdio (the test binary re-executed, see ServeIfAsked) and
// over streamable HTTP (NewHTTP). Its tools:
//
//   - fast {text}: answers "echo: text".
//   - slow {steps, ignore_cancel}: one progress notification ("step i of n")
//     every 50 ms, then "done after n steps"; it stops at a cancellation
//     unless ignore_cancel, when it keeps sending progress.
//   - fail {}: a tool error result ("it failed on purpose").
//   - crash {}: writes "crashing on purpose" to stderr and exits 3 (stdio).
//   - spawn {}: starts a child that sleeps 300 s (the server's binary
//     re-executed with EnvServe=sleep) in the server's process group and
//     answers its pid (orphan tests).
//   - pid {}: answers the server's own pid.
//   - add_tool {}: adds the tool "late" (notifications/tools/list_changed).
//   - header {name} (HTTP only): answers the request header's value, so a
//     test sees what headers the client sent.
//   - cancel_reason {}: the reason of the last notifications/cancelled the
//     server received ("" before any).
//   - task_only {} (stdio only): listed with execution.taskSupport
//     "required" — the go-sdk has no field for it, so the stdio server
//     amends its tools/list answers on the wire; it answers "ran without a
//     task" if called anyway.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvServe, set to "stdio" in the environment of a test binary that calls
// ServeIfAsked first, makes it serve MCP over stdin/stdout and exit; set to
// "sleep", it sleeps 300 s (the spawn tool's child, on every platform); set
// to "fail", it writes "cannot start: no config" to stderr and exits 7 (a
// server that cannot start).
const EnvServe = "AGENTHUB_MCPTEST"

// ServeIfAsked serves MCP over stdio and exits when EnvServe is "stdio";
// otherwise it returns at once. Call it first in TestMain.
func ServeIfAsked() {
	switch os.Getenv(EnvServe) {
	case "stdio":
	case "sleep":
		time.Sleep(300 * time.Second)
		os.Exit(0)
	case "fail":
		fmt.Fprintln(os.Stderr, "cannot start: no config")
		os.Exit(7)
	default:
		return
	}
	s := New()
	sdk.AddTool(s, &sdk.Tool{Name: TaskOnly, Description: "Must be called as an MCP task."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return text("ran without a task"), nil, nil
		})
	err := s.Run(context.Background(), &sdk.IOTransport{Reader: os.Stdin, Writer: &taskAmender{w: os.Stdout}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// NewHTTP serves New, plus the tool header, over streamable HTTP; close
// the server when done.
func NewHTTP() *httptest.Server {
	s := New()
	sdk.AddTool(s, &sdk.Tool{Name: "header", Description: "Answers an HTTP request header."},
		func(_ context.Context, req *sdk.CallToolRequest, in headerIn) (*sdk.CallToolResult, any, error) {
			if req.Extra == nil {
				return text(""), nil, nil
			}
			return text(req.Extra.Header.Get(in.Name)), nil, nil
		})
	return httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
}

type textIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type slowIn struct {
	Steps        int  `json:"steps" jsonschema:"how many 50 ms steps"`
	IgnoreCancel bool `json:"ignore_cancel,omitempty" jsonschema:"keep going after a cancellation"`
}

type headerIn struct {
	Name string `json:"name" jsonschema:"the header's name"`
}

type none struct{}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// New returns the test server with its tools.
func New() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, nil)
	var mu sync.Mutex
	lastCancel := ""
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if p, ok := req.GetParams().(*sdk.CancelledParams); ok && method == "notifications/cancelled" {
				mu.Lock()
				lastCancel = p.Reason
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	sdk.AddTool(s, &sdk.Tool{Name: "cancel_reason", Description: "The reason of the last cancellation received."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			return text(lastCancel), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fast", Description: "Echoes its text."},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Works in steps, reporting progress."}, slow)
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			r := text("it failed on purpose")
			r.IsError = true
			return r, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits the server process."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Starts a child process that sleeps."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			self, err := os.Executable()
			if err != nil {
				return nil, nil, err
			}
			c := exec.Command(self)
			c.Env = append(os.Environ(), EnvServe+"=sleep")
			if err := c.Start(); err != nil {
				return nil, nil, err
			}
			go func() { _ = c.Wait() }()
			return text(strconv.Itoa(c.Process.Pid)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "Answers the server's pid."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add_tool", Description: "Adds the tool late."},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "late", Description: "Added at run time."},
				func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
					return text("late tool here"), nil, nil
				})
			return text("added late"), nil, nil
		})
	return s
}

func slow(ctx context.Context, req *sdk.CallToolRequest, in slowIn) (*sdk.CallToolResult, any, error) {
	token := req.Params.GetProgressToken()
	work := ctx
	if in.IgnoreCancel {
		work = context.Background()
	}
	for i := 1; i <= in.Steps; i++ {
		select {
		case <-work.Done():
			return nil, nil, work.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if token != nil {
			_ = req.Session.NotifyProgress(context.Background(), &sdk.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(i), Total: float64(in.Steps),
				Message: fmt.Sprintf("step %d of %d", i, in.Steps),
			})
		}
	}
	return text(fmt.Sprintf("done after %d steps", in.Steps)), nil, nil
}

// TaskOnly names the stdio server's tool listed as requiring MCP tasks.
const TaskOnly = "task_only"

// taskAmender writes the server's JSON-RPC lines to w, adding
// execution.taskSupport "required" to TaskOnly in tools/list results.
type taskAmender struct {
	w   io.WriteCloser
	buf []byte
}

func (a *taskAmender) Write(p []byte) (int, error) {
	a.buf = append(a.buf, p...)
	for {
		i := bytes.IndexByte(a.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := amend(a.buf[:i])
		a.buf = a.buf[i+1:]
		if _, err := a.w.Write(append(line, '\n')); err != nil {
			return 0, err
		}
	}
}

func (a *taskAmender) Close() error { return a.w.Close() }

func amend(line []byte) []byte {
	var msg map[string]any
	if json.Unmarshal(line, &msg) != nil {
		return line
	}
	res, _ := msg["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	changed := false
	for _, t := range tools {
		if tm, ok := t.(map[string]any); ok && tm["name"] == TaskOnly {
			tm["execution"] = map[string]any{"taskSupport": "required"}
			changed = true
		}
	}
	if !changed {
		return line
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return out
}
