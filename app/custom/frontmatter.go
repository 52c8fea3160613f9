package custom

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// frontMatter is a file's YAML front matter, its keys as written.
type frontMatter map[string]any

// splitFrontMatter separates a Markdown file's YAML front matter — a first
// line "---", the YAML, a line "---" — from its body. A file without one
// is all body. A front matter that does not parse, or is not a mapping,
// is an error naming the problem.
func splitFrontMatter(b []byte) (frontMatter, string, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return frontMatter{}, text, nil
	}
	rest := text[len("---\n"):]
	var yamlText, body string
	switch {
	case strings.HasPrefix(rest, "---\n"), rest == "---":
		body = strings.TrimPrefix(strings.TrimPrefix(rest, "---"), "\n")
	default:
		end := strings.Index(rest, "\n---\n")
		if end < 0 {
			if !strings.HasSuffix(rest, "\n---") {
				return nil, "", errors.New("the front matter has no closing --- line")
			}
			end = len(rest) - len("\n---")
			yamlText, body = rest[:end], ""
		} else {
			yamlText, body = rest[:end], rest[end+len("\n---\n"):]
		}
	}
	fm := frontMatter{}
	if strings.TrimSpace(yamlText) != "" {
		var v any
		if err := yaml.Unmarshal([]byte(yamlText), &v); err != nil {
			return nil, "", fmt.Errorf("the front matter is not valid YAML: %w", err)
		}
		m, ok := v.(map[string]any)
		if !ok && v != nil {
			return nil, "", errors.New("the front matter is not a mapping of keys to values")
		}
		for k, val := range m {
			fm[strings.ToLower(k)] = val
		}
	}
	return fm, body, nil
}

// text returns key's value as one line of text ("" when absent or not a
// scalar), control characters dropped.
func (fm frontMatter) text(key string) string {
	v, ok := fm[key]
	if !ok || v == nil {
		return ""
	}
	switch v.(type) {
	case map[string]any, []any:
		return ""
	}
	return oneLine(fmt.Sprint(v))
}

// list returns key's value as a list of strings: a YAML list, or a string
// of comma-separated entries (commas inside parentheses kept, as in
// Bash(git add:*)). ok is false for another shape (a mapping).
func (fm frontMatter) list(key string) (items []string, present, ok bool) {
	v, present := fm[key]
	if !present || v == nil {
		return nil, present, true
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s := strings.TrimSpace(fmt.Sprint(e)); s != "" {
				items = append(items, s)
			}
		}
		return items, true, true
	case map[string]any:
		return nil, true, false
	}
	return splitList(fmt.Sprint(v)), true, true
}

// splitList splits s on commas outside parentheses (and, between
// entries written without commas, on spaces: "Read Grep").
func splitList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				out = appendEntry(out, s[start:i])
				start = i + 1
			}
		}
	}
	return appendEntry(out, s[start:])
}

// appendEntry appends the entries of part: one entry when it has
// parentheses (Bash(git add:*)), else each space-separated word.
func appendEntry(out []string, part string) []string {
	part = strings.TrimSpace(part)
	if part == "" {
		return out
	}
	if strings.Contains(part, "(") {
		return append(out, part)
	}
	return append(out, strings.Fields(part)...)
}

// oneLine is s trimmed, its control characters (newlines included) made
// spaces, at most 1024 bytes.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if len(s) > 1024 {
		s = strings.ToValidUTF8(s[:1024], "")
	}
	return s
}
