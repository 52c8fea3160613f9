package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// taskTools records the tools a server marks `execution.taskSupport:
// "required"` in its tools/list results: such a tool fails unless called
// as an MCP task, which Agent Hub does not do, so it is not offered.
// go-sdk v1.8.0's Tool type has no field for it, so the server's JSON-RPC
// messages are read raw on their way to the SDK (lineGate). Safe for
// concurrent use.
type taskTools struct {
	mu       sync.Mutex
	required map[string]bool
}

// observe reads one line the server sent: a JSON-RPC message (stdio, an
// HTTP JSON body) or an SSE line ("data: " and a message).
func (tt *taskTools) observe(line []byte) {
	if !bytes.Contains(line, []byte(`"taskSupport"`)) {
		return
	}
	line = bytes.TrimSpace(line)
	if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		line = bytes.TrimSpace(rest)
	}
	var msg struct {
		Result *struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution *struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Result == nil {
		return
	}
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.required == nil {
		tt.required = map[string]bool{}
	}
	for _, t := range msg.Result.Tools {
		tt.required[t.Name] = t.Execution != nil && t.Execution.TaskSupport == "required"
	}
}

// requires reports whether the server said the named tool must be called
// as a task.
func (tt *taskTools) requires(name string) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.required[name]
}

// maxObservedLine bounds the line a lineGate holds back to observe; a
// longer line passes through unobserved.
const maxObservedLine = 8 << 20

// lineGate passes on the bytes of r one complete line at a time, each
// handed to observe first (a last line without a newline at EOF too), so
// a reader behind it never sees a message before observe has.
type lineGate struct {
	r       *bufio.Reader
	observe func([]byte)
	acc     []byte // the start of a line longer than the buffer
	long    bool   // inside a line past maxObservedLine: pass it through
	pending []byte // bytes observed (or passed) and not yet read
	err     error
}

func newLineGate(r io.Reader, observe func([]byte)) *lineGate {
	return &lineGate{r: bufio.NewReaderSize(r, 64<<10), observe: observe}
}

// Read implements io.Reader.
func (g *lineGate) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		chunk, err := g.r.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull && g.long:
			g.pending = append([]byte(nil), chunk...)
		case err == bufio.ErrBufferFull:
			g.acc = append(g.acc, chunk...)
			if len(g.acc) > maxObservedLine {
				g.long, g.pending, g.acc = true, g.acc, nil
			}
		default: // a whole line, or the end of the stream (err set)
			line := append(g.acc, chunk...)
			g.acc = nil
			if !g.long && len(line) > 0 {
				g.observe(line)
			}
			g.long = false
			g.pending, g.err = line, err
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// gatedBody is a response body read through a lineGate.
type gatedBody struct {
	io.Reader
	io.Closer
}
