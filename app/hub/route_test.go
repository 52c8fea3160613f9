package hub_test

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"agenthub/app/hub"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
)

// redirect is a RoundTripper sending every request to the fake server,
// keeping the path (so "https://api.openai.com/v1/..." reaches it).
type redirect struct{ to *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.to.Scheme, r.to.Host
	return http.DefaultTransport.RoundTrip(req)
}

// routeTurn runs one turn of a session created without a model, with no
// settings and no --model, under providers cfg, and returns route.decided,
// the turn's end and the session afterwards.
func routeTurn(t *testing.T, cfg func(srvURL string) llm.Config, replies ...llmtest.Response) (ipc.RouteDecided, ev, *harness, string) {
	t.Helper()
	h := newHarness(t, func(c *hub.Config) { c.DefaultModel = "" })
	h.reg = llm.New(cfg(h.srv.URL))
	h.hub.SetProviders(h.reg)
	h.srv.Enqueue(replies...)
	s := h.session()
	if s.ActiveModel != "" {
		t.Fatalf("session created with model %q", s.ActiveModel)
	}
	w := h.watch(s.ID, false)
	h.submit(s.ID, "hi")
	var rd ipc.RouteDecided
	w.untilType(ipc.TypeRouteDecided).decode(t, &rd)
	end := w.turnEnd(s.ID)
	return rd, end, h, s.ID
}

func assertCompleted(t *testing.T, end ev) {
	t.Helper()
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if end.Type != ipc.TypeTurnCompleted || tc.Status != ipc.TurnStatusCompleted {
		t.Fatalf("turn ended %s %+v", end.Type, tc)
	}
}

func TestRouteByAnthropicKey(t *testing.T) {
	rd, end, h, sid := routeTurn(t, func(u string) llm.Config {
		return llm.Config{AnthropicAPIKey: "k", AnthropicBaseURL: u, OpenAIAPIKey: "o", IgnoreEnv: true}
	}, textReply("hello"))
	if rd.Model != hub.DefaultAnthropicModel || rd.Reason != hub.ReasonAnthropicKey {
		t.Fatalf("route.decided %+v", rd)
	}

	assertCompleted(t, end)
	sess, _ := h.db.Session(sid)
	if sess.ActiveModel != hub.DefaultAnthropicModel {
		t.Fatalf("session model after the first turn: %q", sess.ActiveModel)
	}
	got, _ := h.hub.GetSession(t.Context(), sid)
	if got.ActiveModel != hub.DefaultAnthropicModel {
		t.Fatalf("GetSession model %q", got.ActiveModel)
	}
}

func TestRouteByOpenAIKey(t *testing.T) {
	rd, end, h, sid := routeTurn(t, func(u string) llm.Config {
		to, _ := url.Parse(u)
		return llm.Config{OpenAIAPIKey: "sk-test", OpenAIBaseURL: "https://api.openai.com/v1", IgnoreEnv: true,
			HTTPClient: &http.Client{Transport: redirect{to}}}
	}, llmtest.NewOpenAIStream("gpt-4.1").Text("hi there").Finish("stop").Usage(10, 2, 0, 0).Done().Response())
	if rd.Model != hub.DefaultOpenAIModel || rd.Reason != hub.ReasonOpenAIKey {
		t.Fatalf("route.decided %+v", rd)
	}
	assertCompleted(t, end)
	if sess, _ := h.db.Session(sid); sess.ActiveModel != hub.DefaultOpenAIModel {
		t.Fatalf("session model %q", sess.ActiveModel)
	}
	if r := h.srv.Requests()[0]; r.Path != "/v1/chat/completions" {
		t.Fatalf("request path %s", r.Path)
	}
}

func TestRouteByListedModel(t *testing.T) {
	list := llmtest.Response{Status: 200, Body: `{"object":"list","data":[{"id":"llama3.1:8b","object":"model"},{"id":"qwen3","object":"model"}]}`}
	rd, end, h, sid := routeTurn(t, func(u string) llm.Config {
		return llm.Config{OpenAIBaseURL: u + "/v1", IgnoreEnv: true}
	}, list, llmtest.NewOpenAIStream("llama3.1:8b").Text("local hi").Finish("stop").Usage(10, 2, 0, 0).Done().Response())
	if rd.Model != "openai:llama3.1:8b" || rd.Reason != hub.ReasonServerListed {
		t.Fatalf("route.decided %+v", rd)
	}
	assertCompleted(t, end)
	reqs := h.srv.Requests()
	if reqs[0].Method != http.MethodGet || reqs[0].Path != "/v1/models" {
		t.Fatalf("probe %s %s", reqs[0].Method, reqs[0].Path)
	}
	var body struct {
		Model string `json:"model"`
	}
	if err := reqs[1].Decode(&body); err != nil || body.Model != "llama3.1:8b" {
		t.Fatalf("chat request model %q (%v)", body.Model, err)
	}
	if sess, _ := h.db.Session(sid); sess.ActiveModel != "openai:llama3.1:8b" {
		t.Fatalf("session model %q", sess.ActiveModel)
	}
}

func TestRouteServerListsNothing(t *testing.T) {
	// The fake answers the probe with HTTP 500 (nothing scripted).
	rd, end, h, sid := routeTurn(t, func(u string) llm.Config {
		return llm.Config{OpenAIBaseURL: u + "/v1", IgnoreEnv: true, IdleTimeout: 5 * time.Second}
	})
	if rd.Model != "" || rd.Reason != hub.ReasonServerNoModels {
		t.Fatalf("route.decided %+v", rd)
	}
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if tc.Status != ipc.TurnStatusFailed || tc.ErrorClass != ipc.ErrClassNotConfigured || !contains(tc.Error, "choose a model") || !contains(tc.Error, "HTTP 500") {
		t.Fatalf("turn.completed %+v", tc)
	}
	if sess, _ := h.db.Session(sid); sess.ActiveModel != "" {
		t.Fatalf("session model %q after a failed route", sess.ActiveModel)
	}
}

func TestRouteNothingConfigured(t *testing.T) {
	rd, end, _, _ := routeTurn(t, func(string) llm.Config { return llm.Config{IgnoreEnv: true} })
	if rd.Model != "" || rd.Reason != hub.ReasonNotConfigured {
		t.Fatalf("route.decided %+v", rd)
	}
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if tc.ErrorClass != ipc.ErrClassNotConfigured || !contains(tc.Error, "--model") {
		t.Fatalf("turn.completed %+v", tc)
	}
}

// TestCurrentModelBeforeFirstTurn: before any turn pins a model, the
// session reports the model routing would choose now (ipc.ModelRouter, used
// for active_model), without pinning it; a session's own model wins.
func TestCurrentModelBeforeFirstTurn(t *testing.T) {
	h := newHarness(t, func(c *hub.Config) { c.DefaultModel = "" })
	h.reg = llm.New(llm.Config{AnthropicAPIKey: "k", AnthropicBaseURL: h.srv.URL, IgnoreEnv: true})
	h.hub.SetProviders(h.reg)
	s := h.session()
	got, err := ipc.SessionWithCurrentModel(t.Context(), h.hub, s.ID)
	if err != nil || got.ActiveModel != hub.DefaultAnthropicModel {
		t.Fatalf("current model %q, %v; want %q", got.ActiveModel, err, hub.DefaultAnthropicModel)
	}
	if stored, _ := h.db.Session(s.ID); stored.ActiveModel != "" {
		t.Fatalf("asking for the current model pinned %q", stored.ActiveModel)
	}
	if _, err := ipc.SessionWithCurrentModel(t.Context(), h.hub, "01NOSUCHSESSION0000000000"); !errors.Is(err, ipc.ErrSessionNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}
