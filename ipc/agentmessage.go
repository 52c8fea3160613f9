package ipc

import (
	"encoding/json"
	"strings"

	"agenthub/store"
)

// AgentMessage is a stored message in the history shape of seeds 000 and
// 003 (getAgentMessages): a UserMessage, an AssistantMessage or a
// ToolResultMessage told apart by Role. Timestamps are Unix milliseconds;
// ID and Status are additive (the store's id and status).
type AgentMessage struct {
	ID      string `json:"id"`
	Role    string `json:"role"` // "user" | "assistant" | "toolResult"
	Content any    `json:"content"`
	// Timestamp is the creation time in Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
	// Status is "complete", "cancelled", "interrupted" or "error".
	Status string `json:"status"`

	// Assistant messages.
	Model      string      `json:"model,omitempty"`
	Provider   string      `json:"provider,omitempty"`
	Usage      *AgentUsage `json:"usage,omitempty"`
	StopReason string      `json:"stopReason,omitempty"`
	// ErrorMessage says why an errored assistant message failed (pi-ai's
	// AssistantMessage.errorMessage); set by the seed000 history only.
	ErrorMessage string `json:"errorMessage,omitempty"`

	// Tool results.
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	IsError    *bool  `json:"isError,omitempty"`
}

// AgentUsage is seed 003's usage: input, output and their sum, plus the
// cache counts and the cost (additive).
type AgentUsage struct {
	Input       int64   `json:"input"`
	Output      int64   `json:"output"`
	CacheRead   int64   `json:"cacheRead"`
	CacheWrite  int64   `json:"cacheWrite"`
	TotalTokens int64   `json:"totalTokens"`
	Cost        float64 `json:"cost"`
}

// The content blocks of seed 000: every field of a block is present
// (text "" stays "text": "", arguments of a call without input are {}).
type (
	agentText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	agentThinking struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature,omitempty"`
	}
	agentToolCall struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	agentImage struct {
		Type   string             `json:"type"`
		Source *store.ImageSource `json:"source"`
	}
)

// AgentContent converts stored content blocks to seed 000's ContentBlock
// shapes. An image stays as stored: inline base64, or a stored attachment
// (source.type "attachment", readable at GET /attachments/{id}).
func AgentContent(blocks []store.ContentBlock) []any {
	out := make([]any, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case store.BlockThinking:
			out = append(out, agentThinking{Type: b.Type, Thinking: b.Thinking, Signature: b.Signature})
		case store.BlockToolCall:
			args := b.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			out = append(out, agentToolCall{Type: b.Type, ID: b.ID, Name: b.Name, Arguments: args})
		case store.BlockImage:
			out = append(out, agentImage{Type: b.Type, Source: b.Source})
		default:
			out = append(out, agentText{Type: store.BlockText, Text: b.Text})
		}
	}
	return out
}

// SplitModel splits "provider:model" into its parts; a bare model name has
// no provider.
func SplitModel(m string) (provider, model string) {
	if p, rest, ok := strings.Cut(m, ":"); ok {
		return p, rest
	}
	return "", m
}

// ToAgentMessage converts one stored message. A user message whose content
// is text only has its text as a plain string (as seed 003's example).
func ToAgentMessage(m store.Message) AgentMessage {
	am := AgentMessage{ID: m.ID, Role: m.Role, Timestamp: m.CreatedAt.UnixMilli(), Status: m.Status}
	switch m.Role {
	case store.RoleUser:
		if text, ok := textOnly(m.Content); ok {
			am.Content = text
		} else {
			am.Content = AgentContent(m.Content)
		}
	case store.RoleAssistant:
		am.Content = AgentContent(m.Content)
		am.Provider, am.Model = SplitModel(m.Model)
		am.StopReason = m.StopReason
		if u := m.Usage; u != nil {
			am.Usage = &AgentUsage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens,
				CacheWrite: u.CacheWriteTokens, Cost: u.CostUSD,
				TotalTokens: u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens}
		}
	default:
		am.Content = AgentContent(m.Content)
		am.ToolCallID, am.ToolName = m.ToolCallID, m.ToolName
		isErr := m.IsError
		am.IsError = &isErr
	}
	return am
}

// ToAgentMessages converts a page of stored messages.
func ToAgentMessages(ms []store.Message) []AgentMessage {
	out := make([]AgentMessage, len(ms))
	for i, m := range ms {
		out[i] = ToAgentMessage(m)
	}
	return out
}

// textOnly returns the concatenated text when every block is text.
func textOnly(blocks []store.ContentBlock) (string, bool) {
	var sb strings.Builder
	for _, b := range blocks {
		if b.Type != store.BlockText {
			return "", false
		}
		sb.WriteString(b.Text)
	}
	return sb.String(), true
}
