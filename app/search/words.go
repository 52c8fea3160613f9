package search

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxWordRunes skips longer "words" (hashes, base64) from the index.
const maxWordRunes = 40

// words yields the lower-cased words of s: runs of letters, digits and
// underscores of at most maxWordRunes runes. The words are substrings of
// one lower-cased copy of s (no allocation per word).
func words(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		lower := strings.ToLower(s)
		start, n := -1, 0
		for i, r := range lower {
			if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') ||
				r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				if start < 0 {
					start = i
				}
				n++
				continue
			}
			if start >= 0 && n <= maxWordRunes && !yield(lower[start:i]) {
				return
			}
			start, n = -1, 0
		}
		if start >= 0 && n <= maxWordRunes {
			yield(lower[start:])
		}
	}
}

// Snippet is about 200 characters of text around the first match of any of
// terms (case-insensitive), whitespace collapsed, "…" where cut; the start
// of text when none matches.
func Snippet(text string, terms []string) string {
	const before, after = 60, 140
	lower := strings.ToLower(text)
	at := -1
	if len(lower) == len(text) { // offsets agree (almost every text)
		for _, t := range terms {
			if i := strings.Index(lower, t); i >= 0 && (at < 0 || i < at) {
				at = i
			}
		}
	}
	if at < 0 {
		at = 0
	}
	start := at
	for k := 0; k < before && start > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	end := at
	for k := 0; k < after && end < len(text); k++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}
