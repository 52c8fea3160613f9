package tool

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
)

// TestCaptureHeadTail checks the head/ring bookkeeping against the full data
// for many sizes and chunkings, and that the log file holds everything.
func TestCaptureHeadTail(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	opts := Options{HeadBytes: 16, TailBytes: 32, FlushBytes: 7}.withDefaults()
	dir := t.TempDir()
	for size := 0; size <= 200; size += 3 {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte('a' + rng.Intn(26))
		}
		var streamed strings.Builder
		c, err := newCapture(opts, dir, "c", "stdout", func(_, s string) { streamed.WriteString(s) })
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < size; {
			n := min(1+rng.Intn(40), size-off)
			c.Write(data[off : off+n])
			off += n
		}
		c.finish()
		got, trunc := c.modelText()
		var want string
		if size <= 48 {
			want = string(data)
		} else {
			want = string(data[:16]) + "\n" + fmt.Sprintf("[… %d bytes omitted; full output at %s …]\n", size-48, c.path) + string(data[size-32:])
		}
		if got != want || trunc != (size > 48) {
			t.Fatalf("size %d: got %q want %q", size, got, want)
		}
		if streamed.String() != string(data) {
			t.Fatalf("size %d: streamed %q", size, streamed.String())
		}
		if b, _ := os.ReadFile(c.path); string(b) != string(data) {
			t.Fatalf("size %d: file %q", size, b)
		}
	}
}

// TestCaptureUTF8Boundaries feeds multi-byte text one byte at a time: every
// streamed piece must be valid UTF-8 and the model text must not contain
// broken sequences at the cut points.
func TestCaptureUTF8Boundaries(t *testing.T) {
	text := strings.Repeat("é漢🙂x", 50)
	opts := Options{HeadBytes: 17, TailBytes: 23, FlushBytes: 5}.withDefaults()
	var pieces []string
	c, err := newCapture(opts, "", "", "stdout", func(_, s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(text); i++ {
		c.Write([]byte{text[i]})
	}
	c.finish()
	if strings.Join(pieces, "") != text {
		t.Fatal("streamed text differs")
	}
	for _, p := range pieces {
		if strings.ContainsRune(p, '\uFFFD') || !isValid(p) {
			t.Fatalf("piece %q splits a UTF-8 sequence", p)
		}
	}
	got, _ := c.modelText()
	if strings.ContainsRune(got, '\uFFFD') || !strings.Contains(got, "the full output was not kept") {
		t.Errorf("model text %q", got)
	}
}

func isValid(s string) bool { return strings.ToValidUTF8(s, "") == s }

// TestCaptureBounds: past LogBytes nothing more is streamed until the end,
// which brings one "truncated" marker and the last bytes; the output file
// keeps at most FileMaxBytes (its first and last halves around a marker).
func TestCaptureBounds(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	opts := Options{HeadBytes: 16, TailBytes: 32, FlushBytes: 7, LogBytes: 100, FileMaxBytes: 64}.withDefaults()
	dir := t.TempDir()
	for size := 0; size <= 400; size += 7 {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte('a' + rng.Intn(26))
		}
		var streamed strings.Builder
		c, err := newCapture(opts, dir, "b", "stdout", func(_, s string) { streamed.WriteString(s) })
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < size; {
			n := min(1+rng.Intn(90), size-off)
			c.Write(data[off : off+n])
			off += n
		}
		c.finish()
		want := string(data)
		if size > 100 {
			tail := min(size-100, 32)
			want = string(data[:100]) + fmt.Sprintf("\n[… truncated: %d bytes more not streamed (--tool-output-log 100 bytes); the last %d bytes follow …]\n", size-100-tail, tail) + string(data[size-tail:])
		}
		if streamed.String() != want {
			t.Fatalf("size %d: streamed\n%q\nwant\n%q", size, streamed.String(), want)
		}
		file, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		want = string(data)
		if size > 64 {
			want = string(data[:32]) + fmt.Sprintf("\n[… %d bytes omitted: the output file keeps the first and last 32 bytes (--tool-output-max) …]\n", size-64) + string(data[size-32:])
		}
		if string(file) != want {
			t.Fatalf("size %d: file\n%q\nwant\n%q", size, file, want)
		}
		if c.total != int64(size) {
			t.Fatalf("size %d: total %d", size, c.total)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("output dir holds %d entries (temp files left?)", len(entries))
	}
}
