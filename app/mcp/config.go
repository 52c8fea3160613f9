// Package mcp connects Agent Hub to MCP servers (Model Context Protocol)
// through the official Go SDK and offers their tools to the model beside
// the built-ins, as tool.Tool values named server__tool.
//
// A Manager owns one supervisor goroutine per configured server. A stdio
// server runs in its own process group, dies with the app (Pdeathsig, and a
// pid file swept at the next start after a kill -9) and is restarted with
// backoff when it exits; a streamable-HTTP server is reconnected the same
// way. Every change of a server's state is reported through
// Options.OnStatus (the hub turns it into mcp.server_status events).
package mcp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// ServerConfig is one server as written in settings.json under
// "mcp_servers" (keyed by its name). Exactly one of Command (stdio) and URL
// (streamable HTTP) is set.
type ServerConfig struct {
	// Command, Args, Env and Cwd start a stdio server. The server gets an
	// explicit environment (sandbox.BaseEnv: PATH, HOME, locale, TERM,
	// USER, LOGNAME, SHELL, TMPDIR) plus Env — never the rest of the
	// app's, so no provider key; Cwd defaults to the app's working
	// directory.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// URL and Headers reach a streamable-HTTP server.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Workspace limits the server to sessions whose workspace is this
	// directory or inside it; "" serves every session.
	Workspace string `json:"workspace,omitempty"`
	// Disabled keeps the entry without running the server.
	Disabled bool `json:"disabled,omitempty"`
}

// Transport is "stdio" or "http".
func (c ServerConfig) Transport() string {
	if c.URL != "" {
		return "http"
	}
	return "stdio"
}

// NameSeparator joins a server's name and a tool's name (server__tool).
const NameSeparator = "__"

// maxToolName is the longest tool name both providers accept (OpenAI: 64).
const maxToolName = 64

var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,29}$`)

// ValidName reports whether name may name a server: 1–30 letters, digits
// and dashes, starting with a letter or digit (no underscores, so
// server__tool splits unambiguously).
func ValidName(name string) bool { return serverName.MatchString(name) }

// Validate checks every entry of servers and returns the first problem,
// naming the server.
func Validate(servers map[string]ServerConfig) error {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := servers[n].validate(n); err != nil {
			return fmt.Errorf("mcp_servers.%s: %w", n, err)
		}
	}
	return nil
}

func (c ServerConfig) validate(name string) error {
	if !ValidName(name) {
		return fmt.Errorf("the name must be 1-30 letters, digits or dashes")
	}
	switch {
	case c.Command == "" && c.URL == "":
		return fmt.Errorf("set command (a stdio server) or url (a streamable-HTTP server)")
	case c.Command != "" && c.URL != "":
		return fmt.Errorf("set command or url, not both")
	case c.URL != "":
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q: want an http or https URL", c.URL)
		}
		if len(c.Args) > 0 || len(c.Env) > 0 || c.Cwd != "" {
			return fmt.Errorf("args, env and cwd are for stdio servers")
		}
	default:
		if len(c.Headers) > 0 {
			return fmt.Errorf("headers are for http servers")
		}
		for k := range c.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return fmt.Errorf("env name %q is not valid", k)
			}
		}
	}
	for k := range c.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n") {
			return fmt.Errorf("header name %q is not valid", k)
		}
	}
	if c.Workspace != "" && !filepath.IsAbs(c.Workspace) {
		return fmt.Errorf("workspace %q must be an absolute path", c.Workspace)
	}
	if c.Cwd != "" && !filepath.IsAbs(c.Cwd) {
		return fmt.Errorf("cwd %q must be an absolute path", c.Cwd)
	}
	return nil
}

// serves reports whether the server applies to a session in workspace.
func (c ServerConfig) serves(workspace string) bool {
	if c.Workspace == "" {
		return true
	}
	rel, err := filepath.Rel(filepath.Clean(c.Workspace), filepath.Clean(workspace))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// equal reports whether two configurations start the same server.
func (c ServerConfig) equal(o ServerConfig) bool {
	return reflect.DeepEqual(c, o)
}

var badToolChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// toolName is the model-facing name of a server's tool: server__tool with
// every character outside [A-Za-z0-9_-] replaced by '_', cut to 64 bytes —
// what both providers accept, and safe anywhere it is shown.
func toolName(server, remote string) string {
	n := server + NameSeparator + badToolChars.ReplaceAllString(remote, "_")
	if len(n) > maxToolName {
		n = n[:maxToolName]
	}
	return n
}

// uniqueName returns name, or when taken holds it, name cut to make room
// for a suffix _2, _3, … that taken does not hold; it records the result.
func uniqueName(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		suffix := fmt.Sprintf("_%d", i)
		out = name[:min(len(name), maxToolName-len(suffix))] + suffix
	}
	taken[out] = true
	return out
}
