package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of the human summaries (the model-visible Output has its own caps).
const (
	summaryExcerptLines = 30
	summaryExcerptBytes = 4 << 10
	statusMaxRunes      = 80
)

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			if cur > best {
				best = cur
			}
		} else {
			cur = 0
		}
	}
	return best
}

// CodeBlock renders content as a fenced markdown block no backtick run in
// content can close (for summaries written outside this package).
func CodeBlock(lang, content string) string { return codeBlock(lang, content) }

// codeBlock renders content as a fenced markdown block whose fence is longer
// than any backtick run in content, so content can never close it early.
func codeBlock(lang, content string) string {
	n := longestRun(content, '`') + 1
	if n < 3 {
		n = 3
	}
	fence := strings.Repeat("`", n)
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	return fence + lang + "\n" + content + fence + "\n"
}

// codeSpan renders s as inline code, safe for any backticks and newlines in s.
func codeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// firstLine returns s's first non-empty line, trimmed, cut to max runes with
// an ellipsis.
func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return truncRunes(s, max)
}

// truncRunes cuts s to at most max runes, marking a cut with "…".
func truncRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// excerptHead returns at most maxLines lines / maxBytes bytes from the start
// of s, and whether anything was left out.
func excerptHead(s string, maxLines, maxBytes int) (string, bool) {
	cut := false
	if len(s) > maxBytes {
		s, cut = validPrefix(s[:maxBytes]), true
	}
	lines := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			lines++
			if lines == maxLines && i+1 < len(s) {
				return s[:i+1], true
			}
		}
	}
	return s, cut
}

// excerptTail returns at most maxLines lines / maxBytes bytes from the end
// of s, and whether anything was left out.
func excerptTail(s string, maxLines, maxBytes int) (string, bool) {
	cut := false
	if len(s) > maxBytes {
		s, cut = validSuffix(s[len(s)-maxBytes:]), true
	}
	body := strings.TrimSuffix(s, "\n")
	lines := 0
	for i := len(body) - 1; i >= 0; i-- {
		if body[i] == '\n' {
			lines++
			if lines == maxLines {
				return s[i+1:], true
			}
		}
	}
	return s, cut
}

// validPrefix drops an incomplete UTF-8 sequence at the end of s.
func validPrefix(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}

// validSuffix drops continuation bytes at the start of s.
func validSuffix(s string) string {
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

// countLines counts lines the way editors do: a trailing newline does not
// start a new line, a final unterminated line counts.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// listingSummary is the summary of a listing-like output: head, then the
// output's first lines in a code block (announced when it is cut).
func listingSummary(head, out string) string {
	excerpt, cut := excerptHead(out, summaryExcerptLines, summaryExcerptBytes)
	if cut {
		head += fmt.Sprintf("First %d:\n\n", countLines(excerpt))
	}
	return head + codeBlock("", excerpt)
}

// invalidSummary is the call/result layer for input that does not decode.
func invalidSummary(tool string, input []byte) (string, string) {
	preview, _ := excerptHead(string(input), 10, 1<<10)
	return tool + " (invalid input)", "-> could not read the " + codeSpan(tool) + " input:\n\n" + codeBlock("json", preview)
}
