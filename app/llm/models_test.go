package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"agenthub/app/llm"
)

func TestListModels(t *testing.T) {
	var auth, path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, path = r.Header.Get("Authorization"), r.URL.Path
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"llama3.1:8b"},{"id":"  "},{"id":"qwen3"}]}`))
	}))
	defer srv.Close()
	ids, err := llm.ListModels(context.Background(), llm.Config{OpenAIBaseURL: srv.URL + "/v1/", OpenAIAPIKey: "k"})
	if err != nil || len(ids) != 2 || ids[0] != "llama3.1:8b" || ids[1] != "qwen3" {
		t.Fatalf("ids %q, err %v", ids, err)
	}
	if path != "/v1/models" || auth != "Bearer k" {
		t.Fatalf("GET %s with Authorization %q", path, auth)
	}
	if _, err := llm.ListModels(context.Background(), llm.Config{OpenAIBaseURL: srv.URL}); err != nil || auth != "" {
		t.Fatalf("without a key: Authorization %q, err %v", auth, err)
	}
}

func TestListModelsFailures(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{http.StatusInternalServerError, `{}`, "HTTP 500"},
		{http.StatusOK, `<html>`, "not a model list"},
		{http.StatusOK, `{"data":[]}`, "the list is empty"},
		{http.StatusOK, `{"data":[{"id":""}]}`, "the list is empty"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			_, _ = w.Write([]byte(c.body))
		}))
		ids, err := llm.ListModels(context.Background(), llm.Config{OpenAIBaseURL: srv.URL})
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), srv.URL+"/models") {
			t.Errorf("%d %s: ids %q, err %v; want an error naming the URL and %q", c.status, c.body, ids, err, c.want)
		}
	}
}
