package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"agenthub/app/llm"
	"agenthub/ipc"
	"agenthub/store"
)

// ExportSession renders the session's messages as "markdown" (text/markdown)
// or "json" (application/json: {"session", "messages"}).
func (h *Hub) ExportSession(ctx context.Context, sessionID, format string) ([]byte, string, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return nil, "", err
	}
	rec := s.record()
	msgs, _, err := h.db.Messages(sessionID, 0, 0)
	if err != nil {
		return nil, "", fmt.Errorf("export: reading messages: %w", err)
	}
	if msgs == nil {
		msgs = []store.Message{}
	}
	switch format {
	case "json":
		b, err := json.MarshalIndent(struct {
			Session  store.Session   `json:"session"`
			Messages []store.Message `json:"messages"`
		}{rec, msgs}, "", "  ")
		if err != nil {
			return nil, "", fmt.Errorf("export: %w", err)
		}
		return b, "application/json", nil
	case "markdown", "md", "":
		return []byte(exportMarkdown(rec, msgs)), "text/markdown; charset=utf-8", nil
	default:
		return nil, "", fmt.Errorf("export format %q (use markdown or json): %w", format, ipc.ErrInvalidInput)
	}
}

func exportMarkdown(s store.Session, msgs []store.Message) string {
	var b strings.Builder
	turns := "—"
	if s.TurnCount > 0 {
		turns = fmt.Sprint(s.TurnCount)
	}
	fmt.Fprintf(&b, "# %s\n\n- Session: `%s`\n- Workspace: `%s`\n- Model: `%s`\n- Turns: %s\n- Cost: %s\n\n",
		s.Title, s.ID, s.WorkspacePath, s.ActiveModel, turns, exportCost(s.CostSoFarUSD))
	for _, m := range msgs {
		switch m.Role {
		case store.RoleUser:
			b.WriteString("## User\n\n")
		case store.RoleAssistant:
			fmt.Fprintf(&b, "## Assistant")
			if m.Status != store.StatusComplete {
				fmt.Fprintf(&b, " (%s)", m.Status)
			}
			b.WriteString("\n\n")
		case store.RoleToolResult:
			fmt.Fprintf(&b, "### Result of %s", m.ToolName)
			if m.IsError {
				b.WriteString(" (error)")
			}
			b.WriteString("\n\n")
		}
		for _, c := range m.Content {
			switch c.Type {
			case store.BlockText:
				if m.Role == store.RoleToolResult {
					b.WriteString(fence(c.Text))
				} else {
					b.WriteString(c.Text)
					b.WriteString("\n\n")
				}
			case store.BlockThinking:
				b.WriteString("> _thinking:_ ")
				b.WriteString(strings.ReplaceAll(c.Thinking, "\n", "\n> "))
				b.WriteString("\n\n")
			case store.BlockToolCall:
				fmt.Fprintf(&b, "**Tool call** `%s`\n\n%s", c.Name, fence(string(c.Arguments)))
			case store.BlockImage:
				if c.Source != nil {
					fmt.Fprintf(&b, "_Attached image %q (%s, %d×%d)_\n\n", c.Source.Name, c.Source.MediaType, c.Source.Width, c.Source.Height)
				}
			}
		}
	}
	return b.String()
}

// exportCost is a cost as the window shows it: "—" when none is known
// (nothing priced ran in this session: a fork, an unpriced model), four
// decimals under a dollar, two from one.
func exportCost(usd float64) string {
	switch {
	case usd <= 0:
		return "—"
	case usd < 1:
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// fence wraps text in a code fence longer than any backtick run inside it.
func fence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n\n"
}

// GetSettings returns the settings with secrets masked.
func (h *Hub) GetSettings(ctx context.Context) (json.RawMessage, error) {
	if h.settings == nil {
		return json.RawMessage(`{}`), nil
	}
	return h.settings.Masked()
}

// UpdateSettings merges a partial settings object and returns the result, masked.
func (h *Hub) UpdateSettings(ctx context.Context, patch json.RawMessage) (json.RawMessage, error) {
	if h.settings == nil {
		return nil, errors.New("settings are not available")
	}
	if !json.Valid(patch) {
		return nil, fmt.Errorf("settings patch is not valid JSON: %w", ipc.ErrInvalidInput)
	}
	return h.settings.Update(patch)
}

// ListModels lists the configured defaults, an OpenAI-compatible server's
// models (its GET /models), and the models with a known price or context
// window, each with whether its provider is configured (the picker offers
// only those).
func (h *Hub) ListModels(ctx context.Context) ([]ipc.ModelInfo, error) {
	h.mu.Lock()
	providers := h.providers
	h.mu.Unlock()
	seen := map[string]bool{}
	var out []ipc.ModelInfo
	add := func(id string) {
		prov, name, err := llm.ParseModel(id)
		if err != nil || seen[id] {
			return
		}
		seen[id] = true
		_, perr := providers.Provider(prov)
		out = append(out, ipc.ModelInfo{ID: prov + ":" + name, Provider: prov, ContextWindow: llm.ContextWindow(id), Configured: perr == nil})
	}
	if h.settings != nil {
		add(h.settings.DefaultModel())
	}
	add(h.cfg.DefaultModel)
	add(h.DefaultModel())
	// An OpenAI-compatible server's own models, from its list API.
	if cfg := providers.Config(); cfg.OpenAIBaseURL != "" && !isOfficialOpenAI(cfg.OpenAIBaseURL) {
		if ids, err := llm.ListModels(ctx, cfg); err == nil {
			for _, id := range ids {
				add(llm.ProviderOpenAI + ":" + id)
			}
		}
	}
	names := make([]string, 0)
	for name := range llm.Prices() {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prov := llm.ProviderOpenAI
		if strings.HasPrefix(name, "claude") {
			prov = llm.ProviderAnthropic
		}
		add(prov + ":" + name)
	}
	return out, nil
}
