//go:build smoketest

package desktoptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
	"agenthub/app/smoketest"
	"agenthub/app/window"

	"github.com/coder/websocket"
)

// waitTimeout bounds every single wait of the desktop tests.
const waitTimeout = 30 * time.Second

// desktop is the desktop binary running under xvfb-run in test-control mode
// (smoketest.TestControlEnv=stdio): commands go to its stdin, acks and page
// reports come from its stdout.
type desktop struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	log     *apptest.Buffer
	exited  chan struct{} // closed when the process has exited
	waitErr error         // valid once exited is closed

	lines  chan line // harness lines, in order; closed at stdout's end
	mu     sync.Mutex
	nextID int
	last   *smoketest.PageReport // the newest page report read, for failure messages
	// pending are page reports read while waiting for an ack, not yet
	// seen by awaitReport.
	pending []smoketest.PageReport
}

// line is one harness stdout line (app's testLine).
type line struct {
	Event    string                `json:"event"`
	ID       int                   `json:"id"`
	Cmd      string                `json:"cmd"`
	Error    string                `json:"error"`
	Path     string                `json:"path"`
	Report   *smoketest.PageReport `json:"report"`
	Geometry *window.Geometry      `json:"geometry"`
}

// startDesktop launches bin under `xvfb-run -a` with the given extra env and
// args plus --smoke-test artifacts. It is stopped (quit, or killed with its
// process group) by t.Cleanup; the app's log is printed if the test failed.
func startDesktop(t *testing.T, bin, artifacts string, env []string, args ...string) *desktop {
	t.Helper()
	return startDesktopIn(t, "", bin, artifacts, env, args...)
}

// startDesktopIn is startDesktop with the app started in dir (as a desktop
// launcher starts it in $HOME; "" for the test's own directory).
func startDesktopIn(t *testing.T, dir, bin, artifacts string, env []string, args ...string) *desktop {
	t.Helper()
	xvfb, err := exec.LookPath("xvfb-run")
	if err != nil {
		t.Fatalf("desktop test: xvfb-run is not installed (apt-get install xvfb xauth): %v", err)
	}
	if _, err := exec.LookPath("import"); err != nil {
		t.Fatalf("desktop test: ImageMagick's import is not installed (apt-get install imagemagick): %v", err)
	}
	d := &desktop{t: t, log: &apptest.Buffer{}, exited: make(chan struct{}), lines: make(chan line, 1024)}
	full := append([]string{"-a", "-s", "-screen 0 1280x900x24", bin}, args...)
	full = append(full, "--smoke-test", artifacts)
	d.cmd = exec.Command(xvfb, full...)
	d.cmd.Dir = dir
	d.cmd.Env = append(append(apptest.Env(), env...), smoketest.TestControlEnv+"=stdio")
	// Its own process group, so a failed test can end Xvfb and the app's
	// WebKit helpers together with xvfb-run.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d.cmd.Stderr = d.log
	if d.stdin, err = d.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go d.readLines(stdout)
	go func() {
		d.waitErr = d.cmd.Wait()
		close(d.exited)
	}()
	t.Cleanup(func() {
		d.stop()
		if t.Failed() {
			t.Logf("agenthub log:\n%s", d.log.String())
		}
	})
	return d
}

// readLines forwards every harness line of stdout to d.lines (other
// output goes to the log); it ends at stdout's end.
func (d *desktop) readLines(r io.Reader) {
	defer close(d.lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		text, ok := strings.CutPrefix(sc.Text(), smoketest.TestLinePrefix)
		if !ok {
			_, _ = fmt.Fprintln(d.log, "stdout:", sc.Text())
			continue
		}
		var l line
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			_, _ = fmt.Fprintf(d.log, "undecodable harness line %q: %v\n", text, err)
			continue
		}
		d.lines <- l
	}
}

// stop asks the app to quit and kills the process group if it has not
// exited within waitTimeout.
func (d *desktop) stop() {
	select {
	case <-d.exited:
		return
	default:
	}
	// Nobody reads the lines any more: drain them so the app's stdout
	// never blocks its quitting.
	go func() {
		for range d.lines {
		}
	}()
	_ = d.stdin.Close() // stdin's end quits the app
	select {
	case <-d.exited:
	case <-time.After(waitTimeout):
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		<-d.exited
	}
}

// next returns the next harness line, failing the test after waitTimeout
// (saying what it waited for) or if the app's output ended.
func (d *desktop) next(what string, deadline <-chan time.Time) line {
	d.t.Helper()
	select {
	case l, ok := <-d.lines:
		if !ok {
			<-d.exited
			d.t.Fatalf("waiting for %s: the app exited (%v)", what, d.waitErr)
		}
		return l
	case <-deadline:
		d.t.Fatalf("waiting for %s: no answer within %s", what, waitTimeout)
	}
	return line{}
}

// command sends one command and waits for its ack, returning it. Page
// reports that arrive meanwhile are kept for awaitReport.
func (d *desktop) command(cmd string, fields map[string]any) line {
	d.t.Helper()
	d.mu.Lock()
	d.nextID++
	id := d.nextID
	d.mu.Unlock()
	m := map[string]any{"id": id, "cmd": cmd}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.stdin.Write(append(b, '\n')); err != nil {
		d.t.Fatalf("send %s: %v", cmd, err)
	}
	deadline := time.After(waitTimeout)
	for {
		l := d.next("the ack of "+cmd, deadline)
		switch {
		case l.Event == "report" && l.Report != nil:
			d.last = l.Report
			d.pending = append(d.pending, *l.Report)
		case l.Event == "ack" && l.ID == id:
			if l.Error != "" {
				d.t.Fatalf("%s failed: %s", cmd, l.Error)
			}
			return l
		}
	}
}

// awaitReport returns the first page report not yet consumed (kept by
// command, then read) for which ok holds, failing with the last report
// seen after waitTimeout.
func (d *desktop) awaitReport(what string, ok func(smoketest.PageReport) bool) smoketest.PageReport {
	d.t.Helper()
	for len(d.pending) > 0 {
		r := d.pending[0]
		d.pending = d.pending[1:]
		if ok(r) {
			return r
		}
	}
	deadline := time.After(waitTimeout)
	for {
		select {
		case l, open := <-d.lines:
			if !open {
				<-d.exited
				d.t.Fatalf("waiting for the page to show %s: the app exited (%v)", what, d.waitErr)
			}
			if l.Event != "report" || l.Report == nil {
				continue
			}
			d.last = l.Report
			if ok(*l.Report) {
				return *l.Report
			}
		case <-deadline:
			d.t.Fatalf("waiting for the page to show %s: not within %s; its last report: %s", what, waitTimeout, describe(d.last))
		}
	}
}

// screenshot waits until the page has drawn what it reported (two more
// animation frames), then saves the screen to the artifacts dir as name.
func (d *desktop) screenshot(name string) string {
	d.t.Helper()
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "paint"}})
	d.awaitReport("a painted frame", func(r smoketest.PageReport) bool { return r.Kind == "painted" })
	return d.command("screenshot", map[string]any{"name": name}).Path
}

// quit ends the app through the harness and checks it exited cleanly.
func (d *desktop) quit() {
	d.t.Helper()
	d.command("quit", nil)
	select {
	case <-d.exited:
		if d.waitErr != nil {
			d.t.Fatalf("the app exited with %v after quit", d.waitErr)
		}
	case <-time.After(waitTimeout):
		d.t.Fatalf("the app did not exit within %s after quit", waitTimeout)
	}
}

func describe(r *smoketest.PageReport) string {
	if r == nil {
		return "none"
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// dashboard is the app's dashboard API (DATA_DIR/dashboard.json).
type dashboard struct {
	URL   string `json:"url"`
	Port  int    `json:"port"`
	Token string `json:"token"`
	base  string
}

func readDashboard(t *testing.T, dataDir string) *dashboard {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "dashboard.json"))
	if err != nil {
		t.Fatalf("read dashboard.json (the app writes it before opening the window): %v", err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil || d.Port == 0 || d.Token == "" {
		t.Fatalf("dashboard.json = %s (%v)", b, err)
	}
	d.base = fmt.Sprintf("http://127.0.0.1:%d", d.Port)
	return &d
}

// call does one authenticated JSON request and decodes the answer into
// out, failing unless the status is want.
func (d *dashboard) call(ctx context.Context, t *testing.T, method, path string, body any, want int, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.Token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, res.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// event is the part of an event envelope the tests read.
type event struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	TurnID  *string         `json:"turn_id"`
	Payload json.RawMessage `json:"payload"`
}

// streamClient is a dashboard WebSocket client subscribed to one session
// with preset:full; it reads for the whole test.
type streamClient struct {
	events chan event // closed when the connection ends
	err    error      // why it ended; valid once events is closed
}

// attach subscribes a WebSocket client to session id. The connection is
// closed by t.Cleanup.
func (d *dashboard) attach(ctx context.Context, t *testing.T, id string) *streamClient {
	t.Helper()
	var att struct {
		WSURL string `json:"ws_url"`
	}
	d.call(ctx, t, http.MethodGet, "/sessions/"+id, nil, http.StatusOK, &att)
	h := http.Header{}
	h.Set("Authorization", "Bearer "+d.Token)
	c, _, err := websocket.Dial(ctx, att.WSURL, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("dial %s: %v", att.WSURL, err)
	}
	c.SetReadLimit(16 << 20)
	rctx, cancel := context.WithCancel(context.Background())
	s := &streamClient{events: make(chan event, 100_000)}
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		_ = c.Close(websocket.StatusNormalClosure, "test done")
		<-done
	})
	sub := `{"type":"subscribe","filter":"preset:full","since":null,"snapshot":false}`
	if err := c.Write(ctx, websocket.MessageText, []byte(sub)); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	go func() {
		defer close(done)
		defer close(s.events)
		for {
			_, b, err := c.Read(rctx)
			if err != nil {
				s.err = err
				return
			}
			var f struct {
				Type    string `json:"type"`
				Nonce   string `json:"nonce"`
				Code    string `json:"code"`
				Message string `json:"message"`
				Event   *event `json:"event"`
			}
			if err := json.Unmarshal(b, &f); err != nil {
				s.err = fmt.Errorf("undecodable frame %q: %w", b, err)
				return
			}
			switch f.Type {
			case "event":
				s.events <- *f.Event
			case "ping":
				pong, _ := json.Marshal(map[string]string{"type": "pong", "nonce": f.Nonce})
				_ = c.Write(rctx, websocket.MessageText, pong)
			case "error", "subscribe_error":
				s.err = fmt.Errorf("%s frame: %s: %s", f.Type, f.Code, f.Message)
				return
			}
		}
	}()
	return s
}

// until reads events until ok returns true, failing after waitTimeout.
func (s *streamClient) until(t *testing.T, what string, ok func(event) bool) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case e, open := <-s.events:
			if !open {
				t.Fatalf("waiting for %s on the dashboard stream: it ended: %v", what, s.err)
			}
			if ok(e) {
				return
			}
		case <-deadline:
			t.Fatalf("waiting for %s on the dashboard stream: not within %s", what, waitTimeout)
		}
	}
}

// appDirs makes a fresh data dir and workspace for one test's app.
func appDirs(t *testing.T) (dataDir, workspace string) {
	t.Helper()
	tmp := t.TempDir()
	dataDir, workspace = filepath.Join(tmp, "data"), filepath.Join(tmp, "ws")
	for _, d := range []string{dataDir, workspace} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return dataDir, workspace
}

// startWithDashboard starts the window on a fresh data dir and workspace
// against the fake provider srv (with the dashboard on a free port),
// waits for the page's first load and reads the dashboard's address. It
// returns the window, the dashboard, the first-load report, and relaunch,
// which starts the window again on the same data dir (after this one quit).
func startWithDashboard(t *testing.T, bin, artifacts string, srv *llmtest.Server) (d *desktop, dash *dashboard, first smoketest.PageReport, relaunch func() *desktop) {
	t.Helper()
	dataDir, workspace := appDirs(t)
	env := []string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test-key"}
	args := []string{"--data-dir", dataDir, "--workspace", workspace, "--listen", "127.0.0.1:0", "--model", "anthropic:" + model}
	d = startDesktop(t, bin, artifacts, env, args...)
	first = d.awaitReport("its first load", func(r smoketest.PageReport) bool { return r.Kind == "loaded" })
	return d, readDashboard(t, dataDir), first, func() *desktop { return startDesktop(t, bin, artifacts, env, args...) }
}

// openSession creates a session titled title through the dashboard and
// opens it in the window; it returns the session id.
func openSession(ctx context.Context, t *testing.T, dash *dashboard, d *desktop, title string) string {
	t.Helper()
	var sess struct {
		SessionID string `json:"session_id"`
	}
	dash.call(ctx, t, http.MethodPost, "/sessions", map[string]string{"title": title}, http.StatusCreated, &sess)
	d.command("emit", map[string]any{"data": map[string]string{"cmd": "open", "session_id": sess.SessionID}})
	return sess.SessionID
}
