package permission

import "strings"

// SplitCommands splits a bash command line into its simple commands at
// the unquoted control operators (; & && || | and newlines), trimmed, empty
// ones dropped. ok is false when the line holds something a command prefix
// cannot vouch for: command or process substitution ($( ), backquotes,
// <( ), >( )), a subshell or group, a redirection other than to /dev/null
// or between descriptors (2>&1), an unterminated quote, or a here-document.
func SplitCommands(line string) (cmds []string, ok bool) {
	ok = true
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			cmds = append(cmds, s)
		}
		cur.Reset()
	}
	var quote byte // 0, '\'' or '"'
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
			cur.WriteByte(c)
			continue
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(c)
			cur.WriteByte(line[i+1])
			i++
			continue
		case quote == '"':
			if c == '"' {
				quote = 0
			} else if c == '`' || c == '$' && i+1 < len(line) && line[i+1] == '(' {
				ok = false
			}
			cur.WriteByte(c)
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
			cur.WriteByte(c)
		case ';', '\n', '&', '|':
			if c == '&' && cur.Len() > 0 && strings.HasSuffix(cur.String(), ">") { // >&2
				cur.WriteByte(c)
				continue
			}
			flush()
			if i+1 < len(line) && (line[i+1] == c) && (c == '&' || c == '|') {
				i++
			}
		case '`', '(', ')', '{', '}':
			ok = false
			cur.WriteByte(c)
		case '$':
			if i+1 < len(line) && line[i+1] == '(' {
				ok = false
			}
			cur.WriteByte(c)
		case '<', '>':
			n, safe := redirection(line[i:])
			if !safe {
				ok = false
			}
			cur.WriteString(line[i : i+n])
			i += n - 1
		default:
			cur.WriteByte(c)
		}
	}
	if quote != 0 {
		ok = false
	}
	flush()
	return cmds, ok
}

// redirection measures the redirection at the start of s (s[0] is < or >)
// and says whether a prefix rule may still vouch for its command: only
// descriptor duplication (>&2, <&0) and /dev/null qualify.
func redirection(s string) (n int, safe bool) {
	n = 1
	if n < len(s) && (s[n] == '>' || s[n] == '<') { // >> or << (here-doc)
		if s[0] == '<' {
			return n + 1, false
		}
		n++
	}
	if n < len(s) && s[n] == '(' { // process substitution
		return n, false
	}
	if n < len(s) && s[n] == '&' { // >&2, >&-
		n++
		start := n
		for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '-') {
			n++
		}
		return n, n > start
	}
	for n < len(s) && s[n] == ' ' {
		n++
	}
	start := n
	for n < len(s) && !strings.ContainsRune(" \t;&|<>()\n", rune(s[n])) {
		n++
	}
	return n, s[start:n] == "/dev/null"
}
