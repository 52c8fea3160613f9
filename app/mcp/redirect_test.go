package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"agenthub/app/mcp"
	"agenthub/app/mcp/mcptest"
	"agenthub/ipc"
)

// A server configured with credentials that redirects elsewhere: the other
// origin never receives them (the redirect is refused; the server is
// reported failed, saying why).
func TestHeadersStayWithTheConfiguredOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	seen := 0
	other := mcptest.NewHTTP() // a real MCP server, so a followed redirect would work
	t.Cleanup(other.Close)
	spy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen++
		if v := r.Header.Get("Authorization"); v != "" {
			leaked = append(leaked, v)
		}
		mu.Unlock()
		other.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(spy.Close)
	configured := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, spy.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(configured.Close)

	m, sts := newManager(t, "")
	m.Configure(map[string]mcp.ServerConfig{"tickets": {URL: configured.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer secret-token"}}})
	st, _ := sts.wait(t, 0, func(st ipc.MCPServerStatus) bool { return st.Status == ipc.MCPFailed || st.Status == ipc.MCPReady })
	if st.Status != ipc.MCPFailed || !strings.Contains(st.Error, "refusing a redirect") {
		t.Errorf("failed status %q does not say why", st.Error)
	}
	m.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 || seen > 0 {
		t.Fatalf("the other origin got %d requests, %d with the credentials: %v", seen, len(leaked), leaked)
	}
}
