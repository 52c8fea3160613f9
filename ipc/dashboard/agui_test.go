package dashboard_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"agenthub/ipc"
	"agenthub/ipc/agui"
)

// aguiRun posts a RunAgentInput and returns the SSE events.
func aguiRun(t *testing.T, f *fixture, threadID, text string) []agui.Event {
	t.Helper()
	body := `{"threadId":"` + threadID + `","runId":"r1","messages":[{"id":"m0","role":"user","content":"ignored"},` +
		`{"id":"m1","role":"assistant","content":"also ignored"},{"id":"m2","role":"user","content":[{"type":"text","text":"` + text + `"}]}],` +
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
	evs = aguiRun(t, f, "thread-a", "again")
	if evs[1].Type != agui.MessagesSnapshot || len(evs[1].Messages) != 3 || *evs[1].Messages[0].Content != "hello there" || *evs[1].Messages[2].Content != "again" {
		t.Fatalf("second run %s %+v", types(evs), evs[1])
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
