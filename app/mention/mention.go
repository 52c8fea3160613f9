// Package mention lists a workspace's files for @-completion and expands
// the @path mentions of a user message into file blocks: the file's
// current content, bounded, appended to the message so the model reads it.
package mention

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"agenthub/app/confine"
	"agenthub/app/tool"
	"agenthub/store"
)

// Bounds.
const (
	// MaxListed is the most paths List returns.
	MaxListed = 20000
	// MaxFileBytes is the most of one mentioned file attached.
	MaxFileBytes = 64 << 10
	// MaxMentions is the most files one message attaches.
	MaxMentions = 10
	// listTimeout bounds List's walk.
	listTimeout = 5 * time.Second
)

// skipDirs are not walked when the workspace is not in a git work tree.
var skipDirs = map[string]bool{"node_modules": true, "vendor": true, "target": true, "dist": true, "build": true, "__pycache__": true}

// Match returns at most limit paths matching query, best first: the
// query's characters in order (case-insensitive), scored higher when they
// run together, fall in the file name, and the path is short. An empty
// query returns the shallowest paths.
func Match(paths []string, query string, limit int) []string {
	q := strings.ToLower(strings.TrimSpace(query))
	type hit struct {
		path  string
		score int
	}
	var hits []hit
	for _, p := range paths {
		if s, ok := score(strings.ToLower(p), q); ok {
			hits = append(hits, hit{p, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].path < hits[j].path
	})
	out := make([]string, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.path)
	}
	return out
}

// score rates p for q (both lower case); false when q is not a subsequence of p.
func score(p, q string) (int, bool) {
	base := p[strings.LastIndexByte(p, '/')+1:]
	s := -len(p) - 10*strings.Count(p, "/")
	if q == "" {
		return s, true
	}
	switch {
	case strings.HasPrefix(base, q):
		return s + 3000, true
	case strings.Contains(base, q):
		return s + 2000, true
	case strings.Contains(p, q):
		return s + 1000, true
	}
	i, run := 0, 0
	for k := 0; k < len(p) && i < len(q); k++ {
		if p[k] == q[i] {
			i++
			run++
			s += 5 * run
		} else {
			run = 0
		}
	}
	return s, i == len(q)
}

var mentionRe = regexp.MustCompile(`(?:^|\s)@([^\s@]+)`)

// Expand returns a file block for each distinct @path in text that names a
// regular file inside workspace (at most MaxMentions): its content up to
// MaxFileBytes, in a <file path=… bytes=…> wrapper the model reads. Trailing
// punctuation is tried off a mention that names no file. Paths outside the
// workspace or inside a protected directory (the data dir), missing files,
// directories, FIFOs, devices and binary files attach nothing, at once.
func Expand(workspace, text string, protected ...string) []store.ContentBlock {
	var out []store.ContentBlock
	seen := map[string]bool{}
	for _, m := range mentionRe.FindAllStringSubmatch(text, -1) {
		if len(out) >= MaxMentions {
			break
		}
		name := m[1]
		for {
			if b, ok := fileBlock(workspace, name, protected); ok {
				if !seen[name] {
					seen[name] = true
					out = append(out, b)
				}
				break
			}
			trimmed := strings.TrimRight(name, ".,;:!?)]}'\"")
			if trimmed == name || trimmed == "" {
				break
			}
			name = trimmed
		}
	}
	return out
}

// FilePrefix starts the text of a mentioned file's block, UploadPrefix
// that of an uploaded text file (the UI shows both as attachments).
const (
	FilePrefix   = "<file path="
	UploadPrefix = "<file name="
)

var fileHead = regexp.MustCompile(`^<file (path|name)=("(?:[^"\\]|\\.)*") bytes="(\d+)">`)

// Info reads a file block's path (or, for an uploaded file, name) and
// size, and whether it was cut; false when text is not a file block.
func Info(text string) (path string, size int64, cut bool, ok bool) {
	f, ok := Describe(text)
	return f.Path, f.Bytes, f.Cut, ok
}

// File describes a file block.
type File struct {
	// Path is the workspace path of a mentioned file, or the name of an
	// uploaded one.
	Path     string
	Bytes    int64
	Cut      bool
	Uploaded bool
}

// Describe reads a file block's head; false when text is not one.
func Describe(text string) (File, bool) {
	m := fileHead.FindStringSubmatch(text)
	if m == nil {
		return File{}, false
	}
	var f File
	if _, err := fmt.Sscanf(m[3], "%d", &f.Bytes); err != nil {
		return File{}, false
	}
	p, err := strconv.Unquote(m[2])
	if err != nil {
		return File{}, false
	}
	f.Path, f.Uploaded = p, m[1] == "name"
	f.Cut = strings.Contains(text, " bytes were cut: read the file for the rest]\n</file>")
	return f, true
}

// UploadBlock is the text block of an uploaded text file: its whole
// content (the upload bounds its size) in a <file name=… bytes=…> wrapper.
func UploadBlock(name string, content []byte) store.ContentBlock {
	var t strings.Builder
	fmt.Fprintf(&t, "%s%q bytes=\"%d\">\n", UploadPrefix, name, len(content))
	t.WriteString(strings.ToValidUTF8(string(content), "\uFFFD"))
	if len(content) > 0 && content[len(content)-1] != '\n' {
		t.WriteByte('\n')
	}
	t.WriteString("</file>")
	return store.ContentBlock{Type: store.BlockText, Text: t.String()}
}

// fileBlock reads the mentioned file name through the workspace
// (app/confine): checked by tool.Resolve, never in a protected directory,
// its type checked before a non-blocking open (a FIFO never blocks).
func fileBlock(workspace, name string, protected []string) (store.ContentBlock, bool) {
	real, err := tool.Resolve(workspace, name)
	if err != nil {
		return store.ContentBlock{}, false
	}
	d, err := confine.Open(workspace, protected)
	if err != nil {
		return store.ContentBlock{}, false
	}
	defer d.Close()
	rel, err := filepath.Rel(d.Path(), real)
	if err != nil || d.Protected(real) {
		return store.ContentBlock{}, false
	}
	f, fi, err := d.Open(rel)
	if err != nil {
		return store.ContentBlock{}, false
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return store.ContentBlock{}, false
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes))
	if err != nil || bytes.IndexByte(b, 0) >= 0 {
		return store.ContentBlock{}, false
	}
	for len(b) > 0 && int64(len(b)) < fi.Size() {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size > 1 {
			break
		}
		b = b[:len(b)-1]
	}
	var t strings.Builder
	fmt.Fprintf(&t, "%s%q bytes=\"%d\">\n", FilePrefix, name, fi.Size())
	t.WriteString(strings.ToValidUTF8(string(b), "\uFFFD"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.WriteByte('\n')
	}
	if int64(len(b)) < fi.Size() {
		fmt.Fprintf(&t, "[… %d of its %d bytes were cut: read the file for the rest]\n", fi.Size()-int64(len(b)), fi.Size())
	}
	t.WriteString("</file>")
	return store.ContentBlock{Type: store.BlockText, Text: t.String()}, true
}
