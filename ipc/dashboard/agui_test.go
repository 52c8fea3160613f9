package dashboard_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"agenthub/ipc"
	"agenthub/ipc/agui"
)

// aguiRun posts a RunAgentInput whose last user message is text (id m2,
// after two messages m0 and m1 the hub does not know) and returns the SSE
// events.
func aguiRun(t *testing.T, f *fixture, threadID, text string) []agui.Event {
	t.Helper()
	return aguiPost(t, f, threadID, `{"id":"m0","role":"user","content":"ignored"},`+
		`{"id":"m1","role":"assistant","content":"also ignored"},{"id":"m2","role":"user","content":[{"type":"text","text":"`+text+`"}]}`)
}

// aguiPost posts a RunAgentInput with the given messages (JSON array
// elements) and returns the SSE events.
func aguiPost(t *testing.T, f *fixture, threadID, messages string) []agui.Event {
	t.Helper()
	body := `{"threadId":"` + threadID + `","runId":"r1","messages":[` + messages + `],` +
		`"tools":[],"context":[],"state":{},"forwardedProps":{}}`
	resp, b := f.do("POST", "/ag-ui", body, "Accept", "text/event-stream", "Content-Type", "application/json")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("POST /ag-ui: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var evs []agui.Event
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var e agui.Event
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				t.Fatalf("event %s: %v", data, err)
			}
			evs = append(evs, e)
		}
	}
	return evs
}

func types(evs []agui.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Type)
	}
	return strings.Join(s, " ")
}

// A run on a new thread creates a session remembered under the thread id,
// streams RUN_STARTED … RUN_FINISHED with the text, and takes only the last
// user message; a second run on the thread reuses the session and starts
// with MESSAGES_SNAPSHOT of its history.
func TestAGUIRun(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	evs := aguiRun(t, f, "thread-a", "hello there")
	if got := types(evs); got != "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED" {
		t.Fatalf("events %s", got)
	}
	if evs[0].ThreadID != "thread-a" || evs[0].RunID == "" || evs[len(evs)-1].Outcome.Type != "success" {
		t.Fatalf("run %+v … %+v", evs[0], evs[len(evs)-1])
	}
	resp, b := f.do("GET", "/sessions", "")
	sessions := decode[[]struct {
		ID     string `json:"session_id"`
		Thread string `json:"agui_thread_id"`
	}](t, b)
	if resp.StatusCode != 200 || len(sessions) != 1 || sessions[0].Thread != "thread-a" {
		t.Fatalf("sessions %s", b)
	}
	// m2 is taken now: the second run's message needs an id of its own.
	evs = aguiPost(t, f, "thread-a", `{"id":"m2","role":"user","content":"hello there"},{"id":"m3","role":"user","content":"again"}`)
	// (The client lacks the first answer: a snapshot without its new message, then with it.)
	if evs[1].Type != agui.MessagesSnapshot || evs[2].Type != agui.MessagesSnapshot || len(evs[2].Messages) != 3 ||
		*evs[2].Messages[0].Content != "hello there" || *evs[2].Messages[2].Content != "again" || evs[2].Messages[2].ID != "m3" {
		t.Fatalf("second run %s %+v", types(evs), evs[2])
	}
	if _, b := f.do("GET", "/sessions", ""); strings.Count(string(b), `"session_id"`) != 1 {
		t.Fatalf("a second session for the same thread: %s", b)
	}
	// A thread id that is a session id uses that session.
	sid := f.session()
	aguiRun(t, f, sid, "in a session")
	if _, b := f.do("GET", "/sessions/"+sid+"/messages", ""); !strings.Contains(string(b), "in a session") {
		t.Fatalf("messages %s", b)
	}
}

// Bad requests are refused before any stream starts.
func TestAGUIRefusals(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	sse := []string{"Accept", "text/event-stream"}
	for _, c := range []struct {
		body   string
		hdr    []string
		status int
		code   string
	}{
		{`{"threadId":"t","messages":[{"id":"1","role":"user","content":"hi"}]}`, []string{"Accept", "application/json"}, http.StatusNotAcceptable, "not_acceptable"},
		{`not json`, sse, http.StatusBadRequest, "invalid_json"},
		{`{"messages":[{"id":"1","role":"user","content":"hi"}]}`, sse, http.StatusBadRequest, "invalid_input"},
		{`{"threadId":"t","messages":[]}`, sse, http.StatusBadRequest, "invalid_input"},
		{`{"threadId":"t","messages":[{"id":"1","role":"assistant","content":"hi"}]}`, sse, http.StatusBadRequest, "invalid_input"},
		{`{"threadId":"t","messages":[{"id":"1","role":"user","content":"  "}]}`, sse, http.StatusBadRequest, "invalid_input"},
		{`{"threadId":"t","messages":[{"id":"1","role":"user","content":7}]}`, sse, http.StatusBadRequest, "invalid_input"},
	} {
		resp, b := f.do("POST", "/ag-ui", c.body, c.hdr...)
		if resp.StatusCode != c.status || !strings.Contains(string(b), `"`+c.code+`"`) {
			t.Errorf("%s: %d %s, want %d %s", c.body, resp.StatusCode, b, c.status, c.code)
		}
	}
	if resp, _ := f.do("GET", "/ag-ui", ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /ag-ui: %d", resp.StatusCode)
	}
	if resp, _ := f.do("POST", "/ag-ui", `{}`, "Authorization", "", "Accept", "text/event-stream"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d", resp.StatusCode)
	}
	if _, b := f.do("GET", "/sessions", ""); strings.Contains(string(b), `"session_id"`) {
		t.Fatalf("a refused request created a session: %s", b)
	}
}

// The client's message ids are the hub's: the user message is stored under
// its AG-UI id, a snapshot lists it under that id in order, an id the
// thread already has is 409 (nothing overwritten), a malformed one 400. A
// client that lacks some of the history gets a snapshot without its new
// message first, so the stock client (which keeps what it holds in place
// and appends the rest) ends in the thread's order.
func TestAGUIKeepsClientIDs(t *testing.T) {
	f := newFixture(t, ipc.Options{})
	evs := aguiPost(t, f, "thread-ids", `{"id":"u-1","role":"user","content":"first"}`)
	if got := types(evs); !strings.HasSuffix(got, "RUN_FINISHED") || strings.Contains(got, "MESSAGES_SNAPSHOT") {
		t.Fatalf("first run %s", got)
	}
	assistant := evs[1].MessageID
	// The same client's second run: it holds every message, one snapshot.
	evs = aguiPost(t, f, "thread-ids", `{"id":"u-1","role":"user","content":"first"},{"id":"`+assistant+`","role":"assistant","content":"first "},{"id":"u-2","role":"user","content":"second"}`)
	var snaps [][]string
	for _, e := range evs {
		if e.Type == agui.MessagesSnapshot {
			var ids []string
			for _, m := range e.Messages {
				ids = append(ids, m.ID)
			}
			snaps = append(snaps, ids)
		}
	}
	if fmt.Sprint(snaps) != fmt.Sprint([][]string{{"u-1", assistant, "u-2"}}) {
		t.Fatalf("second run's snapshots %v", snaps)
	}
	// A fresh client holding only its new message: the history first, then with it.
	evs = aguiPost(t, f, "thread-ids", `{"id":"u-3","role":"user","content":"third"}`)
	snaps = nil
	for _, e := range evs {
		if e.Type == agui.MessagesSnapshot {
			snaps = append(snaps, []string{fmt.Sprint(len(e.Messages)), e.Messages[0].ID, e.Messages[len(e.Messages)-1].ID})
		}
	}
	if len(snaps) != 2 || fmt.Sprint(snaps[0][:2]) != "[4 u-1]" || fmt.Sprint(snaps[1]) != "[5 u-1 u-3]" {
		t.Fatalf("fresh client's snapshots %v", snaps)
	}
	resp, b := f.do("POST", "/ag-ui", `{"threadId":"thread-ids","messages":[{"id":"u-1","role":"user","content":"reused"}]}`, "Accept", "text/event-stream")
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(b), `"conflict"`) {
		t.Fatalf("a reused id: %d %s", resp.StatusCode, b)
	}
	resp, b = f.do("POST", "/ag-ui", `{"threadId":"thread-ids","messages":[{"id":"result:x","role":"user","content":"hi"}]}`, "Accept", "text/event-stream")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `"invalid_input"`) {
		t.Fatalf("a malformed id: %d %s", resp.StatusCode, b)
	}
	_, b = f.do("GET", "/sessions", "")
	sid := decode[[]struct {
		ID string `json:"session_id"`
	}](t, b)[0].ID
	_, b = f.do("GET", "/sessions/"+sid+"/messages", "")
	var page struct {
		Messages []struct {
			ID      string `json:"id"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, m := range page.Messages {
		if m.Role == "user" {
			users = append(users, m.ID+"="+m.Content[0].Text)
		}
	}
	if got := strings.Join(users, " "); got != "u-1=first u-2=second u-3=third" {
		t.Fatalf("stored user messages %s", got)
	}
}
