package llm

import "github.com/anthropics/anthropic-sdk-go"

// markCacheBreakpoints sets Anthropic's prompt-cache breakpoints (at most
// four per request) the way Anthropic documents for multi-turn agents: the
// last tool (caches the tool definitions), the system prompt (tools +
// system), the last cacheable block of the last message (the whole
// conversation so far: the next call of a tool loop reads it back from the
// cache and pays for only the new tail) and of the user message before it
// (so the entry written by the previous call is found). Thinking blocks
// cannot carry a breakpoint; the one before them is used. Prompts below
// the model's minimum cacheable length are simply not cached by the API.
func markCacheBreakpoints(p *anthropic.MessageNewParams) {
	cc := anthropic.NewCacheControlEphemeralParam()
	if n := len(p.Tools); n > 0 && p.Tools[n-1].OfTool != nil {
		p.Tools[n-1].OfTool.CacheControl = cc
	}
	if n := len(p.System); n > 0 {
		p.System[n-1].CacheControl = cc
	}
	marked := 0
	for i := len(p.Messages) - 1; i >= 0 && marked < 2; i-- {
		m := &p.Messages[i]
		if marked == 1 && m.Role != anthropic.MessageParamRoleUser {
			continue
		}
		if markLastBlock(m.Content, cc) {
			marked++
		}
	}
}

// markLastBlock sets cc on the last block that can carry a breakpoint.
func markLastBlock(blocks []anthropic.ContentBlockParamUnion, cc anthropic.CacheControlEphemeralParam) bool {
	for j := len(blocks) - 1; j >= 0; j-- {
		if c := blocks[j].GetCacheControl(); c != nil {
			*c = cc
			return true
		}
	}
	return false
}
