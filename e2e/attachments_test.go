package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/png" // decodes the pasted screenshot
	"strings"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
)

// TestAttachmentsInBrowser pastes a screenshot and picks a text file in
// chromium (attachments.e2e.mjs), once per provider wire format, and checks
// that the fake provider got a valid image block holding the pasted image
// and the file's content; the scenario then has the binary restarted on the
// same data dir and finds both attachments in the reloaded history.
func TestAttachmentsInBrowser(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) { attachmentsWith(t, provider) })
	}
}

func attachmentsWith(t *testing.T, provider string) {
	root, node, ctx := browserTest(t, 3*time.Minute)
	srv := llmtest.NewServer(t)
	var env, extra []string
	switch provider {
	case "anthropic":
		srv.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 1700, Output: 12}).
			Text("A small red square, and notes about milk.").Finish("end_turn", 12).Response())
		env = []string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test-key"}
	case "openai":
		srv.Enqueue(llmtest.NewOpenAIStream("gpt-4.1").Text("A small red square, and notes about milk.").
			Finish("stop").Usage(1700, 12, 0, 0).Done().Response())
		srv.ServeModels("gpt-4.1") // the window's model picker lists the server's models
		env = []string{"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=test-key"}
		extra = []string{"--model", "openai:gpt-4.1"}
	}
	bin := headlessBin(t, ctx, root)
	dataDir, workspace := apptest.Dirs(t)
	info, stop := launchHeadless(t, ctx, bin, dataDir, workspace, env, extra...)
	t.Cleanup(func() { stop() })
	restart := func() string {
		stop()
		var again dashboardInfo
		again, stop = launchHeadless(t, ctx, bin, dataDir, workspace, env, extra...)
		return again.URL
	}
	t.Setenv("E2E_WIDTH", "800")
	runScenarioWith(t, ctx, root, node, "attachments.e2e.mjs", info, nil, actions{"restart": restart})

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the fake provider got %d requests, want 1", len(reqs))
	}
	mediaType, data, text := userImage(t, provider, reqs[0].Body)
	if mediaType != "image/png" {
		t.Errorf("the image block's media type is %q", mediaType)
	}
	img, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || format != "png" || img.Width != 64 || img.Height != 48 {
		t.Errorf("the image block holds %s %dx%d (%v), want the pasted 64x48 PNG", format, img.Width, img.Height, err)
	}
	for _, want := range []string{"What is in this picture?", `notes.md`, "remember the milk"} {
		if !strings.Contains(text, want) {
			t.Errorf("the user message's text lacks %q:\n%s", want, text)
		}
	}
}

// userImage reads the last user message of a provider request: its image
// (media type and decoded bytes) and its text parts joined.
func userImage(t *testing.T, provider string, body []byte) (string, []byte, string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var parts []llmtest.RequestBlock
	for _, m := range req.Messages {
		if m.Role == "user" {
			parts = nil
			_ = json.Unmarshal(m.Content, &parts)
		}
	}
	var mediaType, text string
	var data []byte
	for _, p := range parts {
		switch {
		case p.Type == "text":
			text += p.Text + "\n"
		case provider == "anthropic" && p.Type == "image" && p.Source != nil && p.Source.Type == "base64":
			mediaType = p.Source.MediaType
			data, _ = base64.StdEncoding.DecodeString(p.Source.Data)
		case provider == "openai" && p.Type == "image_url" && p.ImageURL != nil:
			head, b64, ok := strings.Cut(p.ImageURL.URL, ";base64,")
			if ok {
				mediaType = strings.TrimPrefix(head, "data:")
				data, _ = base64.StdEncoding.DecodeString(b64)
			}
		}
	}
	if data == nil {
		t.Fatalf("no %s image block in the user message: %s", provider, body)
	}
	return mediaType, data, text
}
