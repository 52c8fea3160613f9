package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ModelListTimeout bounds ListModels: routing asks within it when nothing
// names a model.
const ModelListTimeout = 2 * time.Second

// ListModels asks the OpenAI-compatible server of cfg for its models (GET
// {OpenAIBaseURL}/models, OpenAI's list format, with the API key when set)
// and returns their ids in the server's order, blank ones left out. No
// answer within ModelListTimeout, a status other than 200, an answer that
// is not a model list, or an empty list is an error naming the URL.
func ListModels(ctx context.Context, cfg Config) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, ModelListTimeout)
	defer cancel()
	endpoint := strings.TrimRight(cfg.OpenAIBaseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("bad base URL: %w", err)
	}
	if cfg.OpenAIAPIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.OpenAIAPIKey)
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("GET %s: no answer within %v", endpoint, ModelListTimeout)
		}
		return nil, fmt.Errorf("GET %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the answer: %w", endpoint, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", endpoint, resp.StatusCode)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("GET %s: not a model list: %w", endpoint, err)
	}
	var ids []string
	for _, m := range list.Data {
		if id := strings.TrimSpace(m.ID); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("GET %s: the list is empty", endpoint)
	}
	return ids, nil
}
