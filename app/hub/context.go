package hub

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"agenthub/app/agent"
	"agenthub/app/llm"
	"agenthub/app/tool"
	"agenthub/store"
)

// systemPrompt is the agent's system prompt for a session, with the
// compaction summary (if any) prepended.
func systemPrompt(s store.Session, tools []tool.Tool) string {
	var b strings.Builder
	if s.ContextSummary != "" {
		b.WriteString("Summary of the earlier part of this conversation (older messages were compacted):\n")
		b.WriteString(s.ContextSummary)
		b.WriteString("\n\n---\n\n")
	}
	b.WriteString("You are Agent Hub's coding agent, working for the user in the workspace directory ")
	b.WriteString(s.WorkspacePath)
	b.WriteString(".\nRelative paths resolve inside that directory and no tool can reach outside it.\n\nTools:\n")
	for _, t := range tools {
		desc, _, _ := strings.Cut(t.Description(), "\n")
		fmt.Fprintf(&b, "- %s: %s\n", t.Name(), desc)
	}
	b.WriteString("\nWork step by step: inspect before you change, prefer small precise edits (edit_file) over rewriting files, " +
		"and check the result of what you run. Independent tool calls may be issued together; they run in parallel. " +
		"Use delegate for a self-contained sub-task a fresh sub-agent can do on its own. " +
		"When you are done, answer concisely with what you did and anything the user must know.")
	if s.Depth > 0 {
		b.WriteString("\n\nYou are a sub-agent started by another agent: do the task you were given and finish with a clear, " +
			"self-contained answer — it is returned to that agent as your result.")
	}
	return b.String()
}

// contextFunc returns the agent's per-call context loader for run r: it
// compacts the session when the estimated context passes the threshold,
// then returns the system prompt (listing the tools offered now, and what
// plan mode, skills and a named sub-agent add) and the messages from the
// session's ContextStartOffset, with a note of the user's todo edit.
func (h *Hub) contextFunc(s *session, r *run, model string, tools []tool.Tool, offered func(string) bool) agent.ContextFunc {
	turnID := r.turn.ID
	// The project's instructions are read once per turn, at its first call:
	// a change to AGENTS.md applies from the next turn.
	var project string
	var once sync.Once
	images := map[string]string{} // base64 copies of attached images, for this turn's calls
	return func(ctx context.Context) (string, []store.Message, error) {
		rec := s.record()
		once.Do(func() { project = h.instructionsPrompt(rec) })
		msgs, _, err := h.db.Messages(rec.ID, int(rec.ContextStartOffset), 0)
		if err != nil {
			return "", nil, fmt.Errorf("reading messages: %w", err)
		}
		window := h.contextWindow(model)
		prompt := func(rec store.Session) string {
			return withInstructions(systemPrompt(rec, offeredTools(tools, offered))+h.workflowPrompt(rec, r), project)
		}
		system := prompt(rec)
		est := estimateTokens(system, msgs)
		if float64(est) > h.cfg.CompactThreshold*float64(window) {
			if _, err := h.compact(ctx, s, turnID, model, "threshold", est); err != nil {
				h.log.Warn("hub: compaction failed", "session", rec.ID, "err", err)
			} else {
				rec = s.record()
				if msgs, _, err = h.db.Messages(rec.ID, int(rec.ContextStartOffset), 0); err != nil {
					return "", nil, fmt.Errorf("reading messages: %w", err)
				}
				system = prompt(rec)
			}
		}
		out := h.withImageData(requestMessages(msgs, turnID), images)
		if note := todoNote(rec); note != nil {
			out = append(out, *note)
		}
		return system, out, nil
	}
}

// withInstructions appends the project's instructions (instructions.Prompt) to a system prompt.
func withInstructions(system, project string) string {
	if project == "" {
		return system
	}
	return system + "\n\n" + project
}

// requestMessages is the provider history of stored messages, for the turn
// currentTurn. Assistant messages that failed (status error, superseded by a
// retry) or are empty are left out. A queued turn's user message is stored
// when the turn starts, so offsets are already in conversation order; builds
// before that stored it at submit time, among the running turn's messages, so
// for such records each user message is moved to just before the first
// message its turn produced, and the current turn's to the end. Tool calls
// without results and orphaned results are repaired by the llm adapters
// (llm.RepairToolPairs); the hub stores a result for every call it
// dispatched or cancelled, so that repair is only a safety net.
func requestMessages(msgs []store.Message, currentTurn string) []store.Message {
	first := map[string]int{} // turn id → index of its first non-user message
	for i, m := range msgs {
		if m.Role != store.RoleUser && m.TurnID != "" {
			if _, ok := first[m.TurnID]; !ok {
				first[m.TurnID] = i
			}
		}
	}
	users := map[int][]store.Message{} // index → user messages to insert before it
	var current []store.Message
	out := make([]store.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role != store.RoleUser || m.TurnID == "" {
			continue
		}
		if m.TurnID == currentTurn {
			if _, ok := first[m.TurnID]; !ok {
				current = append(current, m)
				continue
			}
		}
		if i, ok := first[m.TurnID]; ok {
			users[i] = append(users[i], m)
		}
	}
	for i, m := range msgs {
		out = append(out, users[i]...)
		switch {
		case m.Role == store.RoleUser && m.TurnID != "":
			if _, moved := first[m.TurnID]; moved || m.TurnID == currentTurn {
				continue
			}
		case m.Role == store.RoleAssistant && (m.Status == store.StatusError || len(m.Content) == 0):
			continue
		}
		out = append(out, m)
	}
	return append(out, current...)
}

// contextWindow is the model's context window in tokens.
func (h *Hub) contextWindow(model string) int64 {
	if h.cfg.ContextWindow > 0 {
		return h.cfg.ContextWindow
	}
	return llm.ContextWindow(model)
}

// estimateTokens is the chars/4 heuristic over the system prompt and messages.
func estimateTokens(system string, msgs []store.Message) int64 {
	n := int64(len(system))
	for _, m := range msgs {
		n += messageChars(m)
	}
	return (n + 3) / 4
}

// messageChars is the size of a message's content as the model sees it.
func messageChars(m store.Message) int64 {
	n := int64(16) // role and framing
	for _, c := range m.Content {
		n += int64(len(c.Text) + len(c.Thinking) + len(c.Name) + len(c.Arguments))
		if c.Type == store.BlockImage && c.Source != nil {
			n += 4 * imageTokens(c.Source)
		}
	}
	return n
}

// transcript renders messages as plain text for the summariser.
func transcript(msgs []store.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case store.RoleToolResult:
			fmt.Fprintf(&b, "[tool result %s]\n", m.ToolName)
		default:
			fmt.Fprintf(&b, "[%s]\n", m.Role)
		}
		for _, c := range m.Content {
			switch c.Type {
			case store.BlockText:
				b.WriteString(c.Text)
				b.WriteByte('\n')
			case store.BlockToolCall:
				fmt.Fprintf(&b, "(called %s %s)\n", c.Name, c.Arguments)
			case store.BlockImage:
				name := "an image"
				if c.Source != nil && c.Source.Name != "" {
					name = fmt.Sprintf("the image %q", c.Source.Name)
				}
				fmt.Fprintf(&b, "(attached %s)\n", name)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
