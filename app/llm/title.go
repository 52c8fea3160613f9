package llm

import (
	"strings"

	"agenthub/store"
)

// TitleSystemPrompt is the system prompt of the one call that names a
// session after its first completed turn. Fake providers recognise title
// requests by it (llmtest answers them without touching its script).
const TitleSystemPrompt = "You name chat sessions. Reply with only a short title (at most 6 words) " +
	"for the conversation below, in the language of the user's message: no quotes, no trailing punctuation, no preamble."

// TitleMaxTokens caps the title call's output.
const TitleMaxTokens = 32

// titleExcerpt bounds each side of the conversation sent for a title.
const titleExcerpt = 2000

// TitleRequest is the request that asks model for a title of a session
// whose first user message and first answer are user and answer.
func TitleRequest(model, user, answer string) Request {
	var b strings.Builder
	b.WriteString("User:\n")
	b.WriteString(excerpt(user))
	if answer = strings.TrimSpace(answer); answer != "" {
		b.WriteString("\n\nAssistant:\n")
		b.WriteString(excerpt(answer))
	}
	return Request{Model: model, System: TitleSystemPrompt, MaxTokens: TitleMaxTokens,
		Messages: []store.Message{{Role: store.RoleUser, Content: []store.ContentBlock{{Type: store.BlockText, Text: b.String()}}}}}
}

func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > titleExcerpt {
		return string(r[:titleExcerpt]) + "…"
	}
	return s
}

// CleanTitle turns a model's reply into a session title: its first
// non-empty line without quotes, a "Title:" prefix or trailing
// punctuation, at most 80 characters; "" when nothing usable is left.
func CleanTitle(reply string) string {
	line := ""
	for l := range strings.SplitSeq(reply, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(line, "Title:"), "title:"))
	for prev := ""; prev != line; {
		prev = line
		line = strings.Trim(line, "\"'`*#“”‘’ ")
		line = strings.TrimRight(line, ".!?:;, ")
	}
	if r := []rune(line); len(r) > 80 {
		line = strings.TrimSpace(string(r[:79])) + "…"
	}
	return line
}
