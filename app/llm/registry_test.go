package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// rewriteClient sends every request to target, whatever its URL says.
func rewriteClient(t *testing.T, target string) *http.Client {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = u.Scheme, u.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
}

// assertBody fails the test unless the request's JSON body equals want.
func assertBody(t *testing.T, r llmtest.Request, want string) {
	t.Helper()
	var got, w map[string]any
	if err := r.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("the wanted body: %v", err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("request body:\n%s", g)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRegistryNotConfigured(t *testing.T) {
	r := llm.New(llm.Config{IgnoreEnv: true})
	_, err := r.Provider("anthropic")
	e := mustErr(t, err, errclass.NotConfigured)
	if !strings.Contains(e.Message, "ANTHROPIC_API_KEY") || !strings.Contains(e.Message, "Settings") || e.Retriable {
		t.Fatalf("message = %q", e.Message)
	}
	_, err = r.Provider("openai")
	e = mustErr(t, err, errclass.NotConfigured)
	if !strings.Contains(e.Message, "OPENAI_API_KEY") || !strings.Contains(e.Message, "OPENAI_BASE_URL") {
		t.Fatalf("message = %q", e.Message)
	}
	_, err = r.Provider("gemini")
	mustErr(t, err, errclass.InvalidRequest)
	res, err := r.Stream(context.Background(), "anthropic:claude-sonnet-4-6", llm.Request{}, &llmtest.Recorder{})
	mustErr(t, err, errclass.NotConfigured)
	if res.StopReason != llm.StopError {
		t.Fatalf("stop = %q", res.StopReason)
	}
}

func TestRegistryEnvOverridesSettings(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewOpenAIStream("llama3.1").Text("ok").Finish("stop").Done().Response())
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "from-env")
	r := llm.New(llm.Config{OpenAIAPIKey: "from-settings", OpenAIBaseURL: "http://127.0.0.1:1"})
	res, err := r.Stream(context.Background(), "openai:llama3.1", llm.Request{Messages: nil}, &llmtest.Recorder{})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if res.Content[0].Text != "ok" || srv.Requests()[0].Header.Get("Authorization") != "Bearer from-env" {
		t.Fatalf("res %+v auth %q", res, srv.Requests()[0].Header.Get("Authorization"))
	}
}

func TestParseModel(t *testing.T) {
	for in, want := range map[string][2]string{
		"anthropic:claude-sonnet-4-6": {"anthropic", "claude-sonnet-4-6"},
		"openai:gpt-4.1":              {"openai", "gpt-4.1"},
		"openai:llama3.1:8b":          {"openai", "llama3.1:8b"},
	} {
		p, m, err := llm.ParseModel(in)
		if err != nil || p != want[0] || m != want[1] {
			t.Fatalf("ParseModel(%q) = %q %q %v", in, p, m, err)
		}
	}
	for _, bad := range []string{"", "claude", "anthropic:", "gemini:pro", ":x"} {
		if _, _, err := llm.ParseModel(bad); err == nil {
			t.Fatalf("ParseModel(%q) accepted", bad)
		} else {
			mustErr(t, err, errclass.InvalidRequest)
		}
	}
}

func TestDeadlineIsTimeout(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 1}).Text("never read").Finish("end_turn", 1).Response())
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0)) // already expired
	defer cancel()
	res, err := anthropicProvider(t, srv, 0).Stream(ctx, llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}, &llmtest.Recorder{})
	e := mustErr(t, err, errclass.Timeout)
	if !e.Retriable || res.StopReason != llm.StopError {
		t.Fatalf("error %+v result %+v", e, res)
	}
}
