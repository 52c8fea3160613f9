package tool

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// capture consumes a command's output once, in linear time and bounded
// memory: it keeps the first HeadBytes and a ring of the last TailBytes for
// the model, writes everything to a log file, and streams it to an Output
// callback throttled to FlushInterval/FlushBytes without dropping bytes.
type capture struct {
	opts Options

	// Touched only by the reading goroutine until done.
	head   []byte
	ring   []byte
	ringAt int
	ringOK bool // ring has wrapped: all of it is valid
	total  int64
	lines  int64
	lastNL bool
	file   *os.File
	bw     *bufio.Writer
	path   string
	ioErr  error

	out     func(stream, text string)
	stream  string
	mu      sync.Mutex // guards pending; held while calling out, so calls are ordered
	pending []byte

	stop chan struct{}
	wg   sync.WaitGroup
}

var newline = []byte{'\n'}

// newCapture creates a capture. If dir is non-empty the full output goes to
// dir/<name>.log; out may be nil.
func newCapture(opts Options, dir, name, stream string, out func(stream, text string)) (*capture, error) {
	c := &capture{
		opts:   opts,
		head:   make([]byte, 0, opts.HeadBytes),
		ring:   make([]byte, opts.TailBytes),
		out:    out,
		stream: stream,
		stop:   make(chan struct{}),
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("output dir: %w", err)
		}
		f, err := os.OpenFile(dir+string(os.PathSeparator)+name+".log", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("output log: %w", err)
		}
		c.file, c.bw, c.path = f, bufio.NewWriterSize(f, 64<<10), f.Name()
	}
	if out != nil {
		c.pending = make([]byte, 0, 2*opts.FlushBytes)
		c.wg.Add(1)
		go c.flushLoop()
	}
	return c, nil
}

// flushLoop delivers pending output at least every FlushInterval until stop.
func (c *capture) flushLoop() {
	defer c.wg.Done()
	t := time.NewTicker(c.opts.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.mu.Lock()
			c.flushLocked(false)
			c.mu.Unlock()
		}
	}
}

// flushLocked hands pending to out. Unless final, an incomplete UTF-8
// sequence at the end is held back for the next flush.
func (c *capture) flushLocked(final bool) {
	if len(c.pending) == 0 {
		return
	}
	n := len(c.pending)
	if !final {
		n = completeUTF8(c.pending)
		if n == 0 {
			return
		}
	}
	text := string(c.pending[:n])
	rest := copy(c.pending, c.pending[n:])
	c.pending = c.pending[:rest]
	c.out(c.stream, text)
}

// completeUTF8 returns the length of the longest prefix of b that does not
// end inside a UTF-8 sequence.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// Write records p. It is called from one goroutine at a time.
func (c *capture) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.total += int64(len(p))
	c.lines += int64(bytes.Count(p, newline))
	c.lastNL = p[len(p)-1] == '\n'
	if c.bw != nil && c.ioErr == nil {
		if _, err := c.bw.Write(p); err != nil {
			c.ioErr = err
		}
	}
	rest := p
	if room := cap(c.head) - len(c.head); room > 0 {
		k := min(room, len(rest))
		c.head = append(c.head, rest[:k]...)
		rest = rest[k:]
	}
	c.writeRing(rest)
	if c.out != nil {
		c.mu.Lock()
		c.pending = append(c.pending, p...)
		if len(c.pending) >= c.opts.FlushBytes {
			c.flushLocked(false)
		}
		c.mu.Unlock()
	}
	return len(p), nil
}

func (c *capture) writeRing(p []byte) {
	size := len(c.ring)
	if len(p) == 0 || size == 0 {
		return
	}
	if len(p) >= size {
		copy(c.ring, p[len(p)-size:])
		c.ringAt, c.ringOK = 0, true
		return
	}
	n := copy(c.ring[c.ringAt:], p)
	if n < len(p) {
		copy(c.ring, p[n:])
		c.ringOK = true
	}
	c.ringAt = (c.ringAt + len(p)) % size
	if c.ringAt == 0 {
		c.ringOK = true
	}
}

// readFrom copies r into the capture until EOF or a read error.
func (c *capture) readFrom(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = c.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// finish stops the flusher, delivers the rest of the output, and closes the
// log file. It must be called once, after the last Write.
func (c *capture) finish() {
	close(c.stop)
	c.wg.Wait()
	if c.out != nil {
		c.mu.Lock()
		c.flushLocked(true)
		c.mu.Unlock()
	}
	if c.file != nil {
		if err := c.bw.Flush(); err != nil && c.ioErr == nil {
			c.ioErr = err
		}
		if err := c.file.Close(); err != nil && c.ioErr == nil {
			c.ioErr = err
		}
		if c.ioErr != nil {
			slog.Warn("tool: writing full output failed", "path", c.path, "err", c.ioErr)
		}
	}
}

// tail returns the bytes after the head, at most TailBytes of them, oldest first.
func (c *capture) tail() []byte {
	if !c.ringOK {
		return c.ring[:c.ringAt]
	}
	out := make([]byte, 0, len(c.ring))
	out = append(out, c.ring[c.ringAt:]...)
	return append(out, c.ring[:c.ringAt]...)
}

// lineCount is the number of lines of the full output.
func (c *capture) lineCount() int64 {
	if c.total > 0 && !c.lastNL {
		return c.lines + 1
	}
	return c.lines
}

// modelText is the model-visible output: everything if it fits in
// HeadBytes+TailBytes, else head + omission marker + tail.
func (c *capture) modelText() (text string, truncated bool) {
	tail := c.tail()
	omitted := c.total - int64(len(c.head)) - int64(len(tail))
	if omitted <= 0 {
		return strings.ToValidUTF8(string(c.head)+string(tail), "\uFFFD"), false
	}
	where := "the full output was not kept"
	if c.path != "" && c.ioErr == nil {
		where = "full output at " + c.path
	}
	var b strings.Builder
	b.Grow(len(c.head) + len(tail) + 128)
	b.WriteString(validPrefix(string(c.head)))
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[… %d bytes omitted; %s …]\n", omitted, where)
	b.WriteString(validSuffix(string(tail)))
	return strings.ToValidUTF8(b.String(), "\uFFFD"), true
}
