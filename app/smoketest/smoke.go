//go:build smoketest

// The desktop test harness: only builds with the smoketest tag have it
// (make smoketest builds build/bin/agenthub-smoketest; docs/testing.md).

package smoketest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"agenthub/app"
	"agenthub/app/window"
	"agenthub/ipc/wailsipc"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// BenchEmitEnv, set to "per-event" together with TestControlEnv=stdio,
// makes the window transport emit every frame in its own Wails event
// instead of coalescing them: the baseline `make bench-desktop` measures
// the batched path against, in the same build. Outside test-control mode
// it is ignored.
const BenchEmitEnv = "AGENTHUB_BENCH_EMIT"

// SmokeTimeout bounds how long the smoke test waits for the page to report ready.
const SmokeTimeout = 60 * time.Second

// ScreenshotFile is the smoke test's screenshot name inside its directory.
const ScreenshotFile = "desktop-window.png"

// TestControlEnv, set to "stdio" together with --smoke-test DIR, turns the
// smoke test into a scripted desktop test: instead of screenshot-and-quit,
// the app reads JSON commands from stdin, one per line, and writes what
// happens to stdout, one JSON object per line after TestLinePrefix. It is
// the harness of app/desktoptest; docs/testing.md describes it.
//
// Commands ({"id": N, "cmd": ...}; each is answered by {"event":"ack","id":N,
// "error":"..."} once done):
//
//	emit {"data": {...}}       runtime.EventsEmit("agenthub:test", data) to the page's test hooks
//	reload                     runtime.WindowReload: a real page reload
//	screenshot {"name": "x.png"} import -window root into DIR/x.png ("path" in the ack)
//	quit                       close the window; the smoke test succeeds
//	geometry {"geometry": {...}} sets the window's size and position when given (width > 0),
//	                           and answers with them ("geometry" in the ack)
//	menu {"name": "settings"}  what that menu item does (app.MenuActions)
//	close                      close the window as its close button does (runtime.Quit: a
//	                           running turn makes the page ask first); when the window then
//	                           closes, the smoke test succeeds
//
// Stdin's end quits too. Page reports (Page.TestReport) are written as
// {"event":"report","report":{...}}.
const TestControlEnv = "AGENTHUB_TEST_CONTROL"

// TestLinePrefix starts every line the test harness writes to stdout, so
// other output on stdout cannot be mistaken for it.
const TestLinePrefix = "agenthub-test: "

// TestEvent is the Wails event the harness's emit command sends to the page.
const TestEvent = "agenthub:test"

// smokeRun is the desktop smoke test: wait for FrontendReady, screenshot
// the X display, quit the window. With TestControlEnv=stdio it is driven by
// commands on stdin instead. Its fields are read after drive returns.
type smokeRun struct {
	dir     string
	getenv  func(string) string
	log     *slog.Logger
	control *testControl // nil for the plain smoke test

	done bool  // the page reported ready and the screenshot was saved (or quit was commanded)
	err  error // why the smoke test failed
}

// newRun is h's window driver: the smoke test of the window. In
// test-control mode it installs the page's test sink right away, before
// the page can load, so the page's first report is never missed.
func newRun(h *harness, getenv func(string) string, log *slog.Logger) app.WindowDriver {
	return newSmokeRun(h.page, h.Dir, getenv, log)
}

// newSmokeRun prepares the smoke test of the window whose page side is p.
func newSmokeRun(p *Page, dir string, getenv func(string) string, log *slog.Logger) *smokeRun {
	s := &smokeRun{dir: dir, getenv: getenv, log: log}
	if getenv(TestControlEnv) == "stdio" {
		s.control = newTestControl(os.Stdin, os.Stdout)
		p.setSink(s.control.report)
	}
	return s
}

// Transport implements app.WindowDriver: with BenchEmitEnv=per-event in
// test-control mode every frame goes alone, in one EventsEmit per event.
func (s *smokeRun) Transport(o *wailsipc.Options) {
	if s.control != nil && s.getenv(BenchEmitEnv) == "per-event" {
		o.BatchBytes = 1
		s.log.Info("bench: the window transport emits one Wails event per frame")
	}
}

// Result implements app.WindowDriver: the smoke test's verdict once the
// window closed.
func (s *smokeRun) Result() error {
	if s.err != nil {
		return fmt.Errorf("smoke test: %w", s.err)
	}
	if !s.done {
		return errors.New("smoke test: the window closed before the page reported ready")
	}
	return nil
}

// Drive implements app.WindowDriver: it waits for the page (or ctx's end,
// or SmokeTimeout), takes the screenshot and quits the window in every
// case, so the app never hangs. In test-control mode it runs the command
// loop instead.
func (s *smokeRun) Drive(ctx context.Context, w app.DrivenWindow) {
	wctx := w.Shell.Context()
	defer w.Shell.QuitNow(wctx)
	if s.control != nil {
		s.err = s.control.serve(ctx, wailsWindow{ctx: wctx, shell: w.Shell}, s.dir, s.getenv("DISPLAY"))
		s.done = s.err == nil
		return
	}
	start := time.Now()
	timer := time.NewTimer(SmokeTimeout)
	defer timer.Stop()
	select {
	case <-w.Ready:
	case <-timer.C:
		s.err = fmt.Errorf("the page did not call FrontendReady within %s", SmokeTimeout)
		return
	case <-ctx.Done():
		s.err = ctx.Err()
		return
	}
	s.log.Info("smoke: page ready", "after", time.Since(start).Round(time.Millisecond))
	path, err := screenshot(ctx, s.dir, ScreenshotFile, s.getenv("DISPLAY"))
	if err != nil {
		s.err = err
		return
	}
	s.log.Info("smoke: screenshot saved", "path", path)
	s.done = true
}

// controlled is what the test-control loop does to the window.
type controlled interface {
	emit(name string, data any)
	reload()
	close()
	geometry(set *window.Geometry) window.Geometry
	menu(action string) error
}

// wailsWindow is the real window, through the Wails runtime and its context.
type wailsWindow struct {
	ctx   context.Context
	shell *window.Shell
}

func (w wailsWindow) emit(name string, data any) { runtime.EventsEmit(w.ctx, name, data) }
func (w wailsWindow) reload()                    { runtime.WindowReload(w.ctx) }
func (w wailsWindow) close()                     { runtime.Quit(w.ctx) }
func (w wailsWindow) menu(action string) error   { return w.shell.MenuAction(action) }

func (w wailsWindow) geometry(set *window.Geometry) window.Geometry {
	if set != nil && set.Width > 0 {
		runtime.WindowSetSize(w.ctx, set.Width, set.Height)
		runtime.WindowSetPosition(w.ctx, set.X, set.Y)
		// GTK applies a resize on its main loop: read the window back until
		// it has (at most 3 s; the ack then shows what it did).
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if cw, ch := runtime.WindowGetSize(w.ctx); cw == set.Width && ch == set.Height {
				break
			}
		}
	}
	width, height := runtime.WindowGetSize(w.ctx)
	x, y := runtime.WindowGetPosition(w.ctx)
	return window.Geometry{Width: width, Height: height, X: x, Y: y, Maximised: runtime.WindowIsMaximised(w.ctx)}
}

// testCommand is one line of the harness's stdin.
type testCommand struct {
	ID   int             `json:"id"`
	Cmd  string          `json:"cmd"`
	Data json.RawMessage `json:"data,omitempty"`
	Name string          `json:"name,omitempty"`
	// Geometry is the geometry command's size and position to set.
	Geometry json.RawMessage `json:"geometry,omitempty"`
}

// testLine is one line of the harness's stdout.
type testLine struct {
	Event  string      `json:"event"` // "ack" | "report"
	ID     int         `json:"id,omitempty"`
	Cmd    string      `json:"cmd,omitempty"`
	Error  string      `json:"error,omitempty"`
	Path   string      `json:"path,omitempty"`
	Report *PageReport `json:"report,omitempty"`
	// Geometry answers the geometry command.
	Geometry *window.Geometry `json:"geometry,omitempty"`
}

// testControl is the stdin/stdout command channel of the desktop test.
type testControl struct {
	in io.Reader

	mu  sync.Mutex // serialises writes to out
	out io.Writer
	// closing is set by the close command: the window closing afterwards
	// is what was asked for, not a failure.
	closing bool
}

func newTestControl(in io.Reader, out io.Writer) *testControl {
	return &testControl{in: in, out: out}
}

// write sends one line; write errors are ignored (the harness is gone, and
// stdin's end will stop the loop).
func (c *testControl) write(l testLine) {
	b, err := json.Marshal(l)
	if err != nil {
		b, _ = json.Marshal(testLine{Event: "ack", ID: l.ID, Error: "encode: " + err.Error()})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = io.WriteString(c.out, TestLinePrefix+string(b)+"\n")
}

// report is the App's test sink: it forwards a page report.
func (c *testControl) report(r PageReport) { c.write(testLine{Event: "report", Report: &r}) }

// serve runs commands until quit (nil), stdin's end (nil: the harness
// left) or ctx's end (the window closed: an error).
func (c *testControl) serve(ctx context.Context, w controlled, dir, display string) error {
	lines := make(chan string)
	readErr := make(chan error, 1)
	// The reader ends at stdin's end; a Read blocked on stdin cannot be
	// interrupted, so when serve returns first it is left to the process
	// exit (it never writes after serve stopped selecting: sends select
	// on ctx too).
	go func() {
		sc := bufio.NewScanner(c.in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
	}()
	for {
		select {
		case <-ctx.Done():
			if c.closing {
				return nil
			}
			return fmt.Errorf("test control: %w", ctx.Err())
		case err := <-readErr:
			if err != nil {
				return fmt.Errorf("test control: read stdin: %w", err)
			}
			return nil
		case line := <-lines:
			if strings.TrimSpace(line) == "" {
				continue
			}
			quit := c.handle(ctx, w, dir, display, line)
			if quit {
				return nil
			}
		}
	}
}

// handle runs one command line, acknowledges it, and reports whether it
// was quit. A malformed or unknown command gets an ack with an error and
// changes nothing.
func (c *testControl) handle(ctx context.Context, w controlled, dir, display, line string) (quit bool) {
	var cmd testCommand
	if err := json.Unmarshal([]byte(line), &cmd); err != nil {
		c.write(testLine{Event: "ack", Error: fmt.Sprintf("invalid command %q: %v", truncateLine(line), err)})
		return false
	}
	ack := testLine{Event: "ack", ID: cmd.ID, Cmd: cmd.Cmd}
	switch cmd.Cmd {
	case "emit":
		var data any
		if len(cmd.Data) == 0 || json.Unmarshal(cmd.Data, &data) != nil {
			ack.Error = "emit needs a JSON data field"
			break
		}
		w.emit(TestEvent, data)
	case "reload":
		w.reload()
	case "screenshot":
		path, err := screenshot(ctx, dir, cmd.Name, display)
		if err != nil {
			ack.Error = err.Error()
		}
		ack.Path = path
	case "quit":
		quit = true
	case "close":
		c.closing = true
		w.close()
	case "menu":
		if err := w.menu(cmd.Name); err != nil {
			ack.Error = err.Error()
		}
	case "geometry":
		var set *window.Geometry
		if len(cmd.Geometry) > 0 {
			set = new(window.Geometry)
			if err := json.Unmarshal(cmd.Geometry, set); err != nil {
				ack.Error = "geometry: " + err.Error()
				break
			}
		}
		g := w.geometry(set)
		ack.Geometry = &g
	default:
		ack.Error = fmt.Sprintf("unknown command %q (want emit, reload, screenshot, geometry, menu, close or quit)", cmd.Cmd)
	}
	c.write(ack)
	return quit
}

func truncateLine(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// checkScreenshotName accepts a plain file name ending in .png.
func checkScreenshotName(name string) error {
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." || !strings.HasSuffix(name, ".png") {
		return fmt.Errorf("screenshot: name %q must be a plain file name ending in .png", name)
	}
	return nil
}

// screenshot saves the whole X display to DIR/NAME with ImageMagick's
// import and checks the file is non-empty. NAME is a plain *.png file name.
func screenshot(ctx context.Context, dir, name, display string) (string, error) {
	if err := checkScreenshotName(name); err != nil {
		return "", err
	}
	if display == "" {
		return "", errors.New("screenshot: DISPLAY is not set (run under xvfb-run)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("screenshot: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("screenshot: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "import", "-display", display, "-window", "root", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("screenshot: import -window root: %w: %s", err, out)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("screenshot: %w", err)
	}
	if st.Size() == 0 {
		return "", fmt.Errorf("screenshot: %s is empty", path)
	}
	return path, nil
}
