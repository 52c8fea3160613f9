package mcp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// The gate passes every byte on unchanged, in any read sizes, and hands
// each line to observe before a reader gets it: an SSE stream (HTTP), a
// JSON body without a final newline, a line too long to hold back.
func TestLineGate(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{}},{"name":"b","inputSchema":{},"execution":{"taskSupport":"required"}},{"name":"c","inputSchema":{},"execution":{"taskSupport":"optional"}}]}}`
	long := `{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"d","execution":{"taskSupport":"required"}}],"pad":"` + strings.Repeat("x", maxObservedLine+128<<10) + `"}}`
	for _, in := range []string{
		"event: message\ndata: " + list + "\n\n",
		list, // an application/json body
		long + "\n" + list + "\n",
	} {
		var tt taskTools
		var out bytes.Buffer
		from := 0
		g := newLineGate(iotest.HalfReader(strings.NewReader(in)), func(line []byte) {
			// Nothing of the line has been read out yet.
			at := strings.Index(in[from:], string(line)) + from
			if at < from || out.Len() > at {
				t.Errorf("observed a line at %d after reading %d bytes", at, out.Len())
			}
			from = at + len(line)
			tt.observe(line)
		})
		buf := make([]byte, 4096)
		for {
			n, err := g.Read(buf)
			out.Write(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if out.String() != in {
			t.Fatalf("the gate changed the stream (%d bytes in, %d out)", len(in), out.Len())
		}
		if !tt.requires("b") || tt.requires("a") || tt.requires("c") || tt.requires("d") {
			t.Fatalf("required: %v (the over-long line is not read)", tt.required)
		}
	}
}
