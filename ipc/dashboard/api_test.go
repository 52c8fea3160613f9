package dashboard_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/dashboard"
	"agenthub/ipc/rpc"
	"agenthub/store"
)

func TestHTTPSessionsLifecycle(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	resp, b := f.do("GET", "/sessions", "")
	if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != "[]" {
		t.Fatalf("empty list: %d %s", resp.StatusCode, b)
	}
	resp, b = f.do("POST", "/sessions", `{"workspace_path":"/tmp","model":"openai:gpt-4.1","title":"hello"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create %d %s", resp.StatusCode, b)
	}
	s := decode[map[string]any](t, b)
	for _, k := range []string{"session_id", "title", "workspace_path", "active_model", "parent_session_id", "created_at", "turn_count", "cost_so_far_usd"} {
		if _, ok := s[k]; !ok {
			t.Errorf("session object lacks %s: %s", k, b)
		}
	}
	id := s["session_id"].(string)
	// An empty body takes the defaults.
	if resp, b := f.do("POST", "/sessions", ""); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create with defaults %d %s", resp.StatusCode, b)
	}
	resp, b = f.do("GET", "/sessions", "")
	if list := decode[[]store.Session](t, b); resp.StatusCode != 200 || len(list) != 2 {
		t.Fatalf("list %s", b)
	}
	_, b = f.do("GET", "/sessions/"+id, "")
	at := decode[dashboard.AttachResponse](t, b)
	if at.SessionID != id || at.ActiveModel != "openai:gpt-4.1" || !strings.HasPrefix(at.AttachToken, "atk_") ||
		at.WSURL != "ws://"+strings.TrimPrefix(f.base, "http://")+"/sessions/"+id+"/stream?attach="+at.AttachToken {
		t.Fatalf("attach %s", b)
	}

	resp, b = f.do("POST", "/sessions/"+id+"/turns", `{"content":"one two three"}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("turn %d %s", resp.StatusCode, b)
	}
	turn := decode[ipc.SubmitResult](t, b)
	if turn.TurnID == "" {
		t.Fatalf("turn %s", b)
	}
	resp, b = f.do("POST", "/sessions/"+id+"/cancel", `{"turn_id":"`+turn.TurnID+`","reason":"user_cancel"}`)
	if resp.StatusCode != 200 {
		t.Fatalf("cancel %d %s", resp.StatusCode, b)
	}
	if resp, b := f.do("POST", "/sessions/"+id+"/cancel", ""); resp.StatusCode != 200 {
		t.Fatalf("cancel running %d %s", resp.StatusCode, b)
	}
	if c := f.hub.Cancels(); len(c) != 2 || c[0] != id+"/"+turn.TurnID+"/user_cancel" {
		t.Fatalf("cancels %v", c)
	}
	resp, b = f.do("POST", "/sessions/"+id+"/cancel", `{"turn_id":"01NOSUCHTURN"}`)
	f.wantError(resp, b, 404, "turn_not_found")

	resp, b = f.do("GET", "/sessions/"+id+"/messages?limit=1", "")
	page := decode[rpc.MessagesBeforePage](t, b)
	if resp.StatusCode != 200 || len(page.Messages) != 1 {
		t.Fatalf("messages %s", b)
	}
	resp, b = f.do("GET", "/sessions/"+id+"/messages?before="+page.Messages[0].ID, "")
	if older := decode[rpc.MessagesBeforePage](t, b); resp.StatusCode != 200 || older.HasMore {
		t.Fatalf("older %s", b)
	}
	resp, b = f.do("GET", "/sessions/"+id+"/messages?limit=abc", "")
	f.wantError(resp, b, 400, "invalid_input")
	resp, b = f.do("GET", "/sessions/"+id+"/messages?before=nope", "")
	f.wantError(resp, b, 400, "invalid_input")

	if resp, b := f.do("POST", "/sessions/"+id+"/compact", ""); resp.StatusCode != 200 {
		t.Fatalf("compact %d %s", resp.StatusCode, b)
	}
	if resp, b := f.do("DELETE", "/sessions/"+id, ""); resp.StatusCode != 200 {
		t.Fatalf("delete %d %s", resp.StatusCode, b)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/sessions/" + id, ""},
		{"DELETE", "/sessions/" + id, ""},
		{"POST", "/sessions/" + id + "/turns", `{"content":"x"}`},
		{"POST", "/sessions/" + id + "/cancel", ""},
		{"POST", "/sessions/" + id + "/compact", ""},
		{"GET", "/sessions/" + id + "/messages", ""},
	} {
		resp, b := f.do(c.method, c.path, c.body)
		f.wantError(resp, b, 404, "session_not_found")
	}
}

func TestHTTPBadRequests(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	for _, c := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/sessions", `{"title":`, 400, "invalid_json"},
		{"POST", "/sessions", `[1,2]`, 400, "invalid_json"},
		{"POST", "/sessions", `{"title":5}`, 400, "invalid_json"},
		{"POST", "/sessions/" + id + "/turns", `{}`, 400, "invalid_input"},
		{"POST", "/sessions/" + id + "/turns", `{"content":"  "}`, 400, "invalid_input"},
		{"POST", "/sessions/" + id + "/turns", `not json`, 400, "invalid_json"},
		{"POST", "/sessions/" + id + "/turns", `{"content":"` + strings.Repeat("x", dashboard.MaxBodyBytes) + `"}`, 413, "body_too_large"},
		{"POST", "/rpc", strings.Repeat(" ", dashboard.MaxBodyBytes+1), 413, "body_too_large"},
		{"POST", "/rpc", `{"type":`, 400, "invalid_json"},
		{"PUT", "/sessions", ``, 405, "method_not_allowed"},
		{"POST", "/sessions/" + id, ``, 405, "method_not_allowed"},
		{"GET", "/sessions/" + id + "/turns", ``, 405, "method_not_allowed"},
		{"GET", "/sessions/" + id + "/cancel", ``, 405, "method_not_allowed"},
		{"POST", "/sessions/" + id + "/messages", ``, 405, "method_not_allowed"},
		{"GET", "/sessions/" + id + "/compact", ``, 405, "method_not_allowed"},
		{"POST", "/sessions/" + id + "/stream", ``, 405, "method_not_allowed"},
		{"GET", "/rpc", ``, 405, "method_not_allowed"},
	} {
		resp, b := f.do(c.method, c.path, c.body)
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d: %.200s", c.method, c.path, resp.StatusCode, c.status, b)
			continue
		}
		if e := decode[apiErr](t, b); e.Error.Code != c.code {
			t.Errorf("%s %s: code %q, want %q", c.method, c.path, e.Error.Code, c.code)
		}
		if c.status == 405 && resp.Header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", c.method, c.path)
		}
	}
}

func TestHTTPRPC(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	resp, b := f.do("POST", "/rpc", fmt.Sprintf(`{"type":"request","requestId":"r1","method":"getAgentMessages","params":{"agentId":%q,"offset":0,"limit":10}}`, id))
	var r struct {
		RequestID string `json:"requestId"`
		OK        bool
		Payload   rpc.MessagesPage
		Error     *rpc.Error
	}
	if err := json.Unmarshal(b, &r); err != nil || resp.StatusCode != 200 || !r.OK || r.RequestID != "r1" || r.Payload.Limit != 10 {
		t.Fatalf("rpc %d %s", resp.StatusCode, b)
	}
	for method, code := range map[string]string{
		`"nope","params":{}`:                           rpc.CodeMethodNotFound,
		`"getAgentMessages","params":{"agentId":"zz"}`: rpc.CodeAgentNotFound,
		`"getAgentMessages","params":{"limit":-1}`:     rpc.CodeInvalidParams,
	} {
		_, b := f.do("POST", "/rpc", `{"type":"request","requestId":"r2","method":`+method+`}`)
		r.Error = nil
		if err := json.Unmarshal(b, &r); err != nil || r.OK || r.Error == nil || r.Error.Code != code {
			t.Errorf("%s: %s", method, b)
		}
	}
}

func TestSecurityRefusals(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	port := fmt.Sprint(f.srv.Port())

	t.Run("loopback only", func(t *testing.T) {
		for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "192.0.2.1:0", "example.com:0"} {
			if s, err := dashboard.Listen(dashboard.Options{Addr: addr}); err == nil {
				_ = s.Close()
				t.Errorf("Listen(%q) accepted", addr)
			}
		}
	})
	t.Run("token required on every route", func(t *testing.T) {
		for _, r := range []struct{ method, path string }{
			{"GET", "/sessions"}, {"POST", "/sessions"}, {"GET", "/sessions/" + id}, {"POST", "/sessions/" + id + "/turns"},
			{"POST", "/sessions/" + id + "/cancel"}, {"GET", "/sessions/" + id + "/messages"}, {"POST", "/sessions/" + id + "/compact"},
			{"DELETE", "/sessions/" + id}, {"POST", "/rpc"}, {"POST", "/signed-urls"}, {"GET", "/healthz"},
			{"GET", "/sessions/" + id + "/tools/tu_1/output"}, {"GET", "/attachments/" + strings.Repeat("0", 64)},
		} {
			if resp, _ := f.do(r.method, r.path, "", "Authorization", ""); resp.StatusCode != 401 {
				t.Errorf("%s %s without token: %d", r.method, r.path, resp.StatusCode)
			}
			if resp, _ := f.do(r.method, r.path, "", "Authorization", "Bearer "+strings.Repeat("0", len(f.tok))); resp.StatusCode != 401 {
				t.Errorf("%s %s with a wrong token: %d", r.method, r.path, resp.StatusCode)
			}
		}
		if _, _, err := f.dial(f.attach(id), "Authorization", ""); err == nil {
			t.Error("WebSocket without any token accepted")
		}
		// The stream: a wrong bearer fails even with a good attach token and
		// the dashboard's own Origin; without both Origin and bearer, 403.
		if _, resp, err := f.dial(f.attach(id), "Authorization", "Bearer wrong", "Origin", "http://127.0.0.1:"+port); err == nil || resp.StatusCode != 401 {
			t.Errorf("stream with a wrong bearer: %v", err)
		}
		if resp, _ := f.do("GET", "/sessions/"+id+"/stream", "", "Authorization", ""); resp.StatusCode != 403 {
			t.Errorf("stream without Origin or token: %d", resp.StatusCode)
		}
	})
	t.Run("a browser's WebSocket: Origin and the attach token, no cookie, no header", func(t *testing.T) {
		c, _, err := f.dial(f.attach(id), "Authorization", "", "Origin", "http://127.0.0.1:"+port)
		if err != nil {
			t.Fatalf("own origin + attach token refused: %v", err)
		}
		_ = c.CloseNow()
		if _, resp, err := f.dial(strings.Split(f.attach(id), "?")[0], "Authorization", "", "Origin", "http://127.0.0.1:"+port,
			"Cookie", "agenthub_token_"+port+"="+f.tok); err == nil || resp.StatusCode != 401 {
			t.Errorf("own origin + the old cookie, no attach token: %v", err)
		}
	})
	t.Run("Host header (DNS rebinding)", func(t *testing.T) {
		for _, h := range []string{"evil.example:" + port, "127.0.0.1:1", "attacker.test"} {
			if resp, _ := f.do("GET", "/sessions", "", "Host", h); resp.StatusCode != 403 {
				t.Errorf("Host %s: %d", h, resp.StatusCode)
			}
		}
		if resp, _ := f.do("GET", "/sessions", "", "Host", "localhost:"+port); resp.StatusCode != 200 {
			t.Errorf("Host localhost: %d", resp.StatusCode)
		}
	})
	t.Run("no wildcard CORS", func(t *testing.T) {
		resp, _ := f.do("GET", "/sessions", "", "Origin", "http://127.0.0.1:"+port)
		if v := resp.Header.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("Access-Control-Allow-Origin: %q", v)
		}
		resp, _ = f.do("OPTIONS", "/sessions", "", "Origin", "http://evil.example", "Access-Control-Request-Method", "POST")
		if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight from evil origin: %d %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
		if resp, _ := f.do("POST", "/sessions", `{}`, "Origin", "http://evil.example"); resp.StatusCode != 403 {
			t.Errorf("cross-origin POST: %d", resp.StatusCode)
		}
	})
	t.Run("strict CSP on pages", func(t *testing.T) {
		resp, _ := f.do("GET", "/", "")
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %q", csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "*") {
			t.Errorf("CSP too loose: %q", csp)
		}
	})
	t.Run("WebSocket Origin", func(t *testing.T) {
		for _, o := range []string{"http://evil.example", "http://127.0.0.1:1", "null", "https://127.0.0.1:" + port} {
			_, resp, err := f.dial(f.attach(id), "Origin", o)
			if err == nil || resp == nil || resp.StatusCode != 403 {
				t.Errorf("Origin %s: err %v", o, err)
			}
		}
		for _, o := range []string{"http://127.0.0.1:" + port, "http://localhost:" + port} {
			c, _, err := f.dial(f.attach(id), "Origin", o)
			if err != nil {
				t.Errorf("own origin %s refused: %v", o, err)
				continue
			}
			_ = c.CloseNow()
		}
		// A browser-less client without Origin must use the Bearer header,
		// not the cookie a browser would carry.
		_, resp, err := f.dial(f.attach(id), "Authorization", "", "Cookie", "agenthub_token_"+port+"="+f.tok)
		if err == nil || resp == nil || resp.StatusCode != 403 {
			t.Errorf("no Origin + cookie only: %v", err)
		}
	})
	t.Run("attach tokens single use, bound, expiring", func(t *testing.T) {
		url := f.attach(id)
		c, _, err := f.dial(url)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.CloseNow()
		if _, resp, err := f.dial(url); err == nil || resp.StatusCode != 401 {
			t.Errorf("reused attach token: %v", err)
		}
		other := f.session()
		if _, resp, err := f.dial(strings.Replace(f.attach(id), "/sessions/"+id+"/", "/sessions/"+other+"/", 1)); err == nil || resp.StatusCode != 401 {
			t.Errorf("attach token of another session: %v", err)
		}
		stale := f.attach(id)
		f.advance(dashboard.AttachTTL + time.Second)
		if _, resp, err := f.dial(stale); err == nil || resp.StatusCode != 401 {
			t.Errorf("expired attach token: %v", err)
		}
		if _, resp, err := f.dial(strings.Split(stale, "?")[0]); err == nil || resp.StatusCode != 401 {
			t.Errorf("missing attach token: %v", err)
		}
	})
}

// approveTool over POST /rpc reaches the hub as answered by the dashboard;
// a second answer, or an unknown call, is INVALID_PARAMS.
func TestHTTPRPCApproveTool(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	id := f.session()
	f.hub.Await(id, "tu_1")
	req := fmt.Sprintf(`{"type":"request","requestId":"a1","method":"approveTool","params":{"session_id":%q,"tool_use_id":"tu_1","decision":"deny","message":"not now"}}`, id)
	if _, b := f.do("POST", "/rpc", req); !strings.Contains(string(b), `"ok":true`) {
		t.Fatalf("approveTool: %s", b)
	}
	got := f.hub.Approvals()
	if len(got) != 1 || got[0] != (ipc.ApproveToolRequest{SessionID: id, ToolUseID: "tu_1", Decision: "deny", Message: "not now", By: "dashboard"}) {
		t.Fatalf("the hub got %+v", got)
	}
	for _, params := range []string{
		fmt.Sprintf(`{"session_id":%q,"tool_use_id":"tu_1","decision":"once"}`, id), // already answered
		fmt.Sprintf(`{"session_id":%q,"decision":"once"}`, id),                      // no tool_use_id
	} {
		_, b := f.do("POST", "/rpc", `{"type":"request","requestId":"a2","method":"approveTool","params":`+params+`}`)
		if !strings.Contains(string(b), rpc.CodeInvalidParams) {
			t.Errorf("%s: %s", params, b)
		}
	}
}
