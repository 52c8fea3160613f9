package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// dashClient is what every dashboard client here shares, written from
// docs/protocol.md §2–§4: REST with the token, one WebSocket to a
// session's stream (attach, subscribe), and the last eventId it processed
// (its cursor).
type dashClient struct {
	t      *testing.T
	base   string
	token  string
	conn   *websocket.Conn
	cursor string
}

// newDashClient is a client of the dashboard info names.
func newDashClient(t *testing.T, info dashboardInfo) *dashClient {
	t.Helper()
	u, err := url.Parse(info.URL)
	if err != nil {
		t.Fatal(err)
	}
	return &dashClient{t: t, base: u.Scheme + "://" + u.Host, token: info.Token}
}

// http sends a JSON request and decodes the answer into out (nil: none);
// a status of 300 or more fails the test.
func (c *dashClient) http(method, path string, body any, out any) {
	c.t.Helper()
	rd := strings.NewReader("")
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		c.t.Fatalf("%s %s: %s", method, path, resp.Status)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			c.t.Fatal(err)
		}
	}
}

// dial attaches to session sid, sends the subscribe frame sub and returns
// the server's answer (subscribe_ack or subscribe_error).
func (c *dashClient) dial(ctx context.Context, sid string, sub map[string]any) map[string]any {
	c.t.Helper()
	var att struct {
		WSURL string `json:"ws_url"`
	}
	c.http("GET", "/sessions/"+sid, nil, &att)
	conn, _, err := websocket.Dial(ctx, att.WSURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + c.token}}})
	if err != nil {
		c.t.Fatalf("dial %s: %v", att.WSURL, err)
	}
	conn.SetReadLimit(8 << 20)
	c.conn = conn
	c.send(ctx, sub)
	return c.read(ctx)
}

func (c *dashClient) send(ctx context.Context, v any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if err := c.conn.Write(ctx, websocket.MessageText, b); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next frame, decoded.
func (c *dashClient) read(ctx context.Context) map[string]any {
	c.t.Helper()
	_, b, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("frame %s: %v", b, err)
	}
	return m
}

// hangUp closes the WebSocket (the cursor stays).
func (c *dashClient) hangUp() {
	if c.conn != nil {
		_ = c.conn.Close(websocket.StatusNormalClosure, "bye")
		c.conn = nil
	}
}
