package hub_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"agenthub/app/hub"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

// testPNG is an opaque w×h PNG.
func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	img.SetNRGBA(0, 0, color.NRGBA{R: 1, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// uploadAndSend uploads an image and a text file and submits a turn that
// carries both; it returns the image's upload info and the turn.started payload.
func uploadAndSend(t *testing.T, h *harness, sid string, img []byte) (ipc.AttachmentInfo, ipc.TurnStarted) {
	t.Helper()
	ctx := t.Context()
	pic, err := h.hub.PutAttachment(ctx, "screen shot.png", "image/png", img)
	if err != nil {
		t.Fatal(err)
	}
	notes, err := h.hub.PutAttachment(ctx, "notes.md", "text/markdown", []byte("# Notes\nremember the milk\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := h.watch(sid, false)
	if _, err := h.hub.SubmitTurnWithAttachments(ctx, sid, "What is in these?", []ipc.AttachmentRef{{ID: pic.ID, Name: pic.Name}, {ID: notes.ID, Name: "notes.md"}}); err != nil {
		t.Fatal(err)
	}
	var started ipc.TurnStarted
	w.untilType(ipc.TypeTurnStarted).decode(t, &started)
	w.turnEnd(sid)
	return pic, started
}

// TestAttachmentsReachAnthropic: an uploaded image reaches the Anthropic
// Messages API as an image block with the stored bytes, a text file as a
// file block; the stored message names the image (no bytes in the log).
func TestAttachmentsReachAnthropic(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	h.srv.Enqueue(textReply("A screenshot and notes."))
	img := testPNG(t, 64, 48)
	pic, started := uploadAndSend(t, h, s.ID, img)
	if started.Input != "What is in these?" || len(started.Attachments) != 2 {
		t.Fatalf("turn.started = %+v", started)
	}
	if a := started.Attachments[0]; a.Kind != ipc.AttachedImage || a.ID != pic.ID || a.Path != "screen shot.png" || a.Width != 64 || a.Height != 48 || a.MediaType != "image/png" {
		t.Fatalf("image attachment = %+v", a)
	}
	if a := started.Attachments[1]; a.Kind != ipc.AttachedUpload || a.Path != "notes.md" || a.Bytes != 26 {
		t.Fatalf("file attachment = %+v", a)
	}
	var body struct {
		Messages []struct {
			Role    string                 `json:"role"`
			Content []llmtest.RequestBlock `json:"content"`
		} `json:"messages"`
	}
	if err := h.srv.Requests()[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	user := body.Messages[0]
	if len(user.Content) != 3 {
		t.Fatalf("user content = %+v", user.Content)
	}
	if c := user.Content[1]; c.Type != "image" || c.Source == nil || c.Source.Type != "base64" || c.Source.MediaType != "image/png" {
		t.Fatalf("image block = %+v", c)
	} else if data, err := base64.StdEncoding.DecodeString(c.Source.Data); err != nil || !bytes.Equal(data, img) {
		t.Fatalf("the image block's data is not the upload (%v)", err)
	}
	if c := user.Content[2]; c.Type != "text" || !strings.HasPrefix(c.Text, `<file name="notes.md" bytes="26">`) || !strings.Contains(c.Text, "remember the milk") {
		t.Fatalf("file block = %+v", c)
	}
	stored := h.messages(s.ID)[0]
	raw, _ := json.Marshal(stored)
	if src := stored.Content[1].Source; src == nil || src.Type != store.ImageAttachment || src.Attachment != pic.ID || src.Data != "" {
		t.Fatalf("stored image block = %s", raw)
	}
	// The same bytes uploaded again are the same attachment.
	again, err := h.hub.PutAttachment(t.Context(), "copy.png", "", img)
	if err != nil || again.ID != pic.ID {
		t.Fatalf("re-upload = %+v %v", again, err)
	}
}

// TestAttachmentsReachOpenAI: the same message through the OpenAI Chat
// Completions format: an image_url part with a data URL.
func TestAttachmentsReachOpenAI(t *testing.T) {
	h := newHarness(t, func(c *hub.Config) { c.DefaultModel = "openai:gpt-4.1" })
	to, _ := url.Parse(h.srv.URL)
	h.reg = llm.New(llm.Config{OpenAIAPIKey: "sk-test", OpenAIBaseURL: "https://api.openai.com/v1", IgnoreEnv: true,
		HTTPClient: &http.Client{Transport: redirect{to}}})
	h.hub.SetProviders(h.reg)
	s := h.session()
	h.srv.Enqueue(llmtest.NewOpenAIStream("gpt-4.1").Text("Seen.").Finish("stop").Usage(900, 2, 0, 0).Done().Response())
	img := testPNG(t, 30, 20)
	uploadAndSend(t, h, s.ID, img)
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := h.srv.Requests()[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	user := body.Messages[len(body.Messages)-1]
	if err := json.Unmarshal(user.Content, &parts); err != nil || user.Role != "user" {
		t.Fatalf("user message %s: %v", user.Content, err)
	}
	var sawImage, sawFile bool
	for _, p := range parts {
		switch {
		case p.Type == "image_url" && p.ImageURL != nil:
			sawImage = p.ImageURL.URL == "data:image/png;base64,"+base64.StdEncoding.EncodeToString(img)
		case p.Type == "text" && strings.Contains(p.Text, "remember the milk"):
			sawFile = true
		}
	}
	if !sawImage || !sawFile {
		t.Fatalf("the OpenAI request lacks the image (%v) or the file (%v): %s", sawImage, sawFile, user.Content)
	}
	// The usage the provider reports (image tokens included) is what is counted.
	if sess, _ := h.db.Session(s.ID); sess.Usage.InputTokens != 900 {
		t.Fatalf("session usage = %+v", sess.Usage)
	}
}

// TestAttachmentLimits: unsupported and oversized uploads, unknown ids and
// too many attachments are refused with errors that say so, and store nothing.
func TestAttachmentLimits(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	ctx := t.Context()
	_, err := h.hub.PutAttachment(ctx, "a.pdf", "application/pdf", []byte("%PDF-1.4\n\x00\x00"))
	if want := `"a.pdf" is application/pdf, which cannot be attached: attach PNG, JPEG, GIF or WebP images or UTF-8 text files`; !errors.Is(err, ipc.ErrInvalidInput) || err.Error() != want {
		t.Fatalf("a PDF: %v\nwant the reason alone: %s", err, want)
	}
	if _, err := h.hub.PutAttachment(ctx, "big.log", "text/plain", bytes.Repeat([]byte("x"), 300<<10)); !errors.Is(err, ipc.ErrTooLarge) {
		t.Fatalf("a 300 KB text file: %v", err)
	}
	if _, err := h.hub.SubmitTurnWithAttachments(ctx, s.ID, "see", []ipc.AttachmentRef{{ID: strings.Repeat("a", 64)}}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("an unknown attachment: %v", err)
	}
	if _, err := h.hub.SubmitTurnWithAttachments(ctx, s.ID, "see", []ipc.AttachmentRef{{ID: "../../agenthub.db"}}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("a hostile id: %v", err)
	}
	one, err := h.hub.PutAttachment(ctx, "a.txt", "", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	many := make([]ipc.AttachmentRef, hub.MaxAttachments+1)
	for i := range many {
		many[i] = ipc.AttachmentRef{ID: one.ID}
	}
	if _, err := h.hub.SubmitTurnWithAttachments(ctx, s.ID, "see", many); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("%d attachments: %v", len(many), err)
	}
	if msgs := h.messages(s.ID); len(msgs) != 0 {
		t.Fatalf("refused submissions stored %d messages", len(msgs))
	}
	if _, _, err := h.hub.ReadAttachment(ctx, strings.Repeat("b", 64)); !errors.Is(err, ipc.ErrAttachmentNotFound) {
		t.Fatalf("ReadAttachment of an unknown id: %v", err)
	}
}

// TestQueuedTurnKeepsAttachments: a turn submitted while another runs
// carries its attachments when it starts.
func TestQueuedTurnKeepsAttachments(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	gate := llmtest.NewGate()
	h.srv.Enqueue(stalledReply(gate, "first"), textReply("second"))
	w := h.watch(s.ID, false)
	h.submit(s.ID, "first")
	w.untilType(ipc.TypeTurnStarted)
	pic, err := h.hub.PutAttachment(t.Context(), "q.png", "", testPNG(t, 8, 8))
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.hub.SubmitTurnWithAttachments(t.Context(), s.ID, "", []ipc.AttachmentRef{{ID: pic.ID, Name: "q.png"}})
	if err != nil || !res.Queued {
		t.Fatalf("queued submission = %+v %v", res, err)
	}
	gate.Release()
	var started ipc.TurnStarted
	w.until(func(e ev) bool { return e.Type == ipc.TypeTurnStarted && e.TurnID != nil && *e.TurnID == res.TurnID }).decode(t, &started)
	if started.Input != "" || len(started.Attachments) != 1 || started.Attachments[0].ID != pic.ID {
		t.Fatalf("the queued turn started with %+v", started)
	}
	w.until(func(e ev) bool { return e.Type == ipc.TypeTurnCompleted && e.TurnID != nil && *e.TurnID == res.TurnID })
	if !strings.Contains(string(h.srv.Requests()[1].Body), `"type":"image"`) {
		t.Fatal("the queued turn's request has no image block")
	}
}

// TestAttachmentsSurviveRestart: after a restart the stored message still
// names the image and its bytes are served.
func TestAttachmentsSurviveRestart(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	h.srv.Enqueue(textReply("ok"))
	img := testPNG(t, 10, 10)
	pic, _ := uploadAndSend(t, h, s.ID, img)
	h.close()
	h.open()
	info, data, err := h.hub.ReadAttachment(t.Context(), pic.ID)
	if err != nil || !bytes.Equal(data, img) || info.MediaType != "image/png" || info.Width != 10 {
		t.Fatalf("after a restart: %+v %d bytes %v", info, len(data), err)
	}
	if src := h.messages(s.ID)[0].Content[1].Source; src == nil || src.Attachment != pic.ID || src.Name != "screen shot.png" {
		t.Fatalf("stored image after a restart: %+v", src)
	}
}

// TestAttachmentSweep: a sweep removes blobs no message names once they are
// older than the grace period (uploads never sent, text files whose content
// is in their message, images of deleted sessions) and keeps the rest.
func TestAttachmentSweep(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	h.srv.Enqueue(textReply("ok"))
	sent, _ := uploadAndSend(t, h, s.ID, testPNG(t, 12, 12))
	unsent, err := h.hub.PutAttachment(t.Context(), "later.png", "", testPNG(t, 13, 13))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := h.hub.SweepAttachments(time.Now()); err != nil || n != 0 {
		t.Fatalf("a sweep within the grace period removed %d (%v)", n, err)
	}
	later := time.Now().Add(hub.AttachmentGrace + time.Minute)
	if n, err := h.hub.SweepAttachments(later); err != nil || n != 2 {
		t.Fatalf("the sweep removed %d blobs (%v), want 2: the unsent image and the sent text file", n, err)
	}
	if _, _, err := h.hub.ReadAttachment(t.Context(), unsent.ID); !errors.Is(err, ipc.ErrAttachmentNotFound) {
		t.Fatalf("the unsent upload is still there: %v", err)
	}
	if _, _, err := h.hub.ReadAttachment(t.Context(), sent.ID); err != nil {
		t.Fatalf("the sent image was swept: %v", err)
	}
	if err := h.hub.DeleteSession(t.Context(), s.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := h.hub.SweepAttachments(later); err != nil || n != 1 {
		t.Fatalf("after deleting the session the sweep removed %d (%v), want its image", n, err)
	}
}

// TestAttachmentNamesAreCleaned: the name a submission gives is reduced to
// a plain file name (attachment.CleanName); none at all gets a default
// that says what it is.
func TestAttachmentNamesAreCleaned(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	h.srv.Enqueue(textReply("ok"))
	pic, err := h.hub.PutAttachment(t.Context(), "", "", testPNG(t, 5, 5))
	if err != nil {
		t.Fatal(err)
	}
	w := h.watch(s.ID, false)
	if _, err := h.hub.SubmitTurnWithAttachments(t.Context(), s.ID, "two", []ipc.AttachmentRef{{ID: pic.ID, Name: "../../etc/sh\x00ot.png"}, {ID: pic.ID}}); err != nil {
		t.Fatal(err)
	}
	w.turnEnd(s.ID)
	content := h.messages(s.ID)[0].Content
	if len(content) != 3 || content[1].Source.Name != "shot.png" || content[2].Source.Name != "image.png" {
		t.Fatalf("names: %+v %+v", content[1].Source, content[2].Source)
	}
}
