package tool

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// capture consumes a command's output once, in linear time and bounded
// memory: it keeps the first HeadBytes and a ring of the last TailBytes for
// the model, writes the output to a log file (at most FileMaxBytes: its
// first half as written, then a ring over the second half that finish
// puts back in order behind an omission marker), and streams the first
// LogBytes to an Output callback throttled to FlushInterval/FlushBytes
// without dropping bytes; past that, finish streams one "truncated" marker
// and the tail.
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
	// The file: its first fileHead bytes written sequentially (fileSeq so
	// far), then a ring of fileRing bytes at offset fileHead.
	fileHead, fileRing int64
	fileSeq            int64
	fileAt             int64 // next write offset within the ring
	fileWrapped        bool

	streamed int64 // bytes handed to pending (at most LogBytes)
	cut      bool  // LogBytes reached: nothing more is streamed until finish

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
		// Private, as the rest of the data dir: a command's output may
		// hold anything it printed.
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("output dir: %w", err)
		}
		f, err := os.OpenFile(dir+string(os.PathSeparator)+name+".log", os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
		if err != nil {
			return nil, fmt.Errorf("output log: %w", err)
		}
		c.file, c.bw, c.path = f, bufio.NewWriterSize(f, 64<<10), f.Name()
		c.fileHead = opts.FileMaxBytes / 2
		c.fileRing = opts.FileMaxBytes - c.fileHead
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
		if err := c.writeFile(p); err != nil {
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
	if c.out != nil && !c.cut {
		q := p
		if room := c.opts.LogBytes - c.streamed; int64(len(q)) > room {
			q = q[:completeUTF8(q[:room])] // cut on a rune boundary
			c.cut = true
		}
		c.streamed += int64(len(q))
		c.mu.Lock()
		c.pending = append(c.pending, q...)
		if len(c.pending) >= c.opts.FlushBytes {
			c.flushLocked(false)
		}
		c.mu.Unlock()
	}
	return len(p), nil
}

// writeFile appends p to the output file: sequentially up to half of
// FileMaxBytes, then into the ring over the other half.
func (c *capture) writeFile(p []byte) error {
	if c.fileSeq < c.fileHead {
		k := min(int64(len(p)), c.fileHead-c.fileSeq)
		if _, err := c.bw.Write(p[:k]); err != nil {
			return err
		}
		c.fileSeq += k
		if p = p[k:]; len(p) == 0 {
			return nil
		}
		if err := c.bw.Flush(); err != nil {
			return err
		}
	}
	for len(p) > 0 {
		k := min(int64(len(p)), c.fileRing-c.fileAt)
		if _, err := c.file.WriteAt(p[:k], c.fileHead+c.fileAt); err != nil {
			return err
		}
		p = p[k:]
		if c.fileAt += k; c.fileAt == c.fileRing {
			c.fileAt, c.fileWrapped = 0, true
		}
	}
	return nil
}

// unwrapFile rewrites a file whose ring wrapped into head + omission
// marker + the ring's bytes in order (through a temp file and a rename).
// It closes c.file before the rename (Windows renames no open file) and
// sets it to nil.
func (c *capture) unwrapFile() error {
	tmp, err := os.CreateTemp(filepath.Dir(c.path), "."+filepath.Base(c.path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename: a no-op
	omitted := c.total - c.fileHead - c.fileRing
	marker := fmt.Sprintf("\n[… %d bytes omitted: the output file keeps the first and last %d bytes (--tool-output-max) …]\n", omitted, c.fileHead)
	parts := []io.Reader{
		io.NewSectionReader(c.file, 0, c.fileHead),
		strings.NewReader(marker),
		io.NewSectionReader(c.file, c.fileHead+c.fileAt, c.fileRing-c.fileAt),
		io.NewSectionReader(c.file, c.fileHead, c.fileAt),
	}
	_, cerr := io.Copy(tmp, io.MultiReader(parts...))
	if err := errors.Join(cerr, tmp.Close()); err != nil {
		return err
	}
	ferr := c.file.Close()
	c.file = nil
	if ferr != nil {
		return ferr
	}
	return os.Rename(tmp.Name(), c.path)
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
		if c.cut {
			c.out(c.stream, c.truncatedTail())
		}
	}
	if c.file != nil {
		if err := c.bw.Flush(); err != nil && c.ioErr == nil {
			c.ioErr = err
		}
		if c.fileWrapped && c.ioErr == nil {
			c.ioErr = c.unwrapFile()
		}
		if c.file != nil {
			if err := c.file.Close(); err != nil && c.ioErr == nil {
				c.ioErr = err
			}
		}
		if c.ioErr != nil {
			slog.Warn("tool: writing full output failed", "path", c.path, "err", c.ioErr)
		}
	}
}

// truncatedTail is what the stream gets at the end when LogBytes cut it:
// one marker saying how much was not streamed, then the output's last
// bytes (at most TailBytes, none of them already streamed).
func (c *capture) truncatedTail() string {
	rest := c.total - c.streamed
	tail := c.tail()
	if int64(len(tail)) > rest {
		tail = tail[int64(len(tail))-rest:]
	}
	text := validSuffix(string(tail))
	skipped := rest - int64(len(text))
	return fmt.Sprintf("\n[… truncated: %s more not streamed (--tool-output-log %s); the last %d bytes follow …]\n%s",
		humanBytes(skipped), humanBytes(c.opts.LogBytes), len(text), text)
}

// humanBytes renders n as "12.3 MB", "4.0 KB" or "512 bytes".
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
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
