package custom

import (
	"regexp"
	"strconv"
	"strings"
)

// shellRe finds a shell line of a command's body: !`command`, as Claude
// Code and opencode write them.
var shellRe = regexp.MustCompile("!`([^`\n]+)`")

// shellLines returns the commands of body's !`…` shell lines, in order.
func shellLines(body string) []string {
	var out []string
	for _, m := range shellRe.FindAllStringSubmatch(body, -1) {
		if cmd := strings.TrimSpace(m[1]); cmd != "" {
			out = append(out, cmd)
		}
	}
	return out
}

// argRe finds $ARGUMENTS and $1 … $9.
var argRe = regexp.MustCompile(`\$(ARGUMENTS|[1-9])`)

// Expand renders the user message of /name args: for a command, its
// template with $ARGUMENTS (args as typed) and $1 … $9 (args split as the
// shell splits words, quotes kept together; missing ones empty) put in,
// and each !`command` replaced by a pointer to its output (the shell
// lines run as bash calls before the model's first step, their results
// following the message); @path mentions stay, for the attachment
// machinery. For a skill, the skill's body with args after it.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	if c.Kind == KindSkill {
		var b strings.Builder
		b.WriteString("Use the skill " + c.Name + " for this.\n\n<skill name=\"" + c.Name + "\">\n")
		b.WriteString(strings.TrimSpace(c.Body))
		b.WriteString("\n</skill>")
		if args != "" {
			b.WriteString("\n\n" + args)
		}
		return b.String()
	}
	words := splitArgs(args)
	out := argRe.ReplaceAllStringFunc(c.Body, func(m string) string {
		if m == "$ARGUMENTS" {
			return args
		}
		n, _ := strconv.Atoi(m[1:])
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	out = shellRe.ReplaceAllStringFunc(out, func(m string) string {
		cmd := strings.TrimSpace(shellRe.FindStringSubmatch(m)[1])
		return "`" + cmd + "` (its output is in the bash result that follows)"
	})
	out = strings.TrimSpace(out)
	if out == "" {
		out = "/" + c.Name + " " + args
	}
	return out
}

// splitArgs splits s into words as a shell would: runs of spaces part
// them, single or double quotes keep spaces inside one (the quotes are
// dropped), a backslash keeps the next character.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(s[i])
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(s[i])
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
