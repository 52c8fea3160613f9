package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildHeadless returns the cgo-free headless binary and the version it
// reports. `make test` builds it once (CGO_ENABLED=0, no tags, as DESIGN.md
// §3 says) and passes it in AGENTHUB_HEADLESS_BIN / AGENTHUB_HEADLESS_VERSION,
// so tests never compile under their own timeouts; a plain `go test` builds
// it into a temp dir instead.
func buildHeadless(t *testing.T) (bin, version string) {
	t.Helper()
	if p := os.Getenv("AGENTHUB_HEADLESS_BIN"); p != "" {
		return p, os.Getenv("AGENTHUB_HEADLESS_VERSION")
	}
	bin = filepath.Join(t.TempDir(), "agenthub")
	cmd := exec.Command("go", "build", "-ldflags", "-X main.version=9.9.9-e2e", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	return bin, "9.9.9-e2e"
}

var dashboardLine = regexp.MustCompile(`^dashboard: http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64})$`)

// TestHeadlessEndToEnd is the foundation's "done when": the cgo-free binary
// runs headless, prints the dashboard line, writes dashboard.json (0600),
// answers /healthz 401 without and 200 with the token, refuses a second
// instance on the same data dir, and exits cleanly on SIGINT; its log
// names the dashboard's address and never its token.
func TestHeadlessEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin, _ := buildHeadless(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	data := filepath.Join(t.TempDir(), "D")

	cmd := exec.CommandContext(ctx, bin, "--headless", "--listen", "127.0.0.1:0", "--data-dir", data)
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	defer func() { _ = cmd.Process.Kill() }() // no-op once it exited

	line, ok := <-lines
	if !ok {
		t.Fatalf("no dashboard line; stderr:\n%s", stderr.String())
	}
	m := dashboardLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q does not match %v", line, dashboardLine)
	}
	port, _ := strconv.Atoi(m[1])
	token := m[2]

	// dashboard.json: {url, port, token}, mode 0600, written before the line.
	infoPath := filepath.Join(data, "dashboard.json")
	st, err := os.Stat(infoPath)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("dashboard.json mode %v, want 0600", st.Mode().Perm())
	}
	var info struct {
		URL   string `json:"url"`
		Port  int    `json:"port"`
		Token string `json:"token"`
	}
	b, _ := os.ReadFile(infoPath)
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatalf("dashboard.json %s: %v", b, err)
	}
	if info.URL != strings.TrimPrefix(line, "dashboard: ") || info.Port != port || info.Token != token {
		t.Errorf("dashboard.json %s does not match %q", b, line)
	}

	base := "http://127.0.0.1:" + m[1]
	get := func(path, bearer string) int {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if c := get("/healthz", ""); c != http.StatusUnauthorized {
		t.Errorf("healthz without token: %d, want 401", c)
	}
	if c := get("/healthz", "not-the-token"); c != http.StatusUnauthorized {
		t.Errorf("healthz with a wrong token: %d, want 401", c)
	}
	if c := get("/healthz", token); c != http.StatusOK {
		t.Errorf("healthz with token: %d, want 200", c)
	}
	// The query token is the page's to read, never proof to the server.
	if c := get("/healthz?token="+token, ""); c != http.StatusUnauthorized {
		t.Errorf("healthz with ?token=: %d, want 401", c)
	}
	// The page carries no secret: it loads without the token (503: the
	// page of a binary built without the UI).
	if c := get("/", ""); c != http.StatusOK && c != http.StatusServiceUnavailable {
		t.Errorf("embedded frontend: %d, want 200", c)
	}

	// A second instance on the same data dir exits non-zero, naming it.
	second := exec.CommandContext(ctx, bin, "--headless", "--listen", "127.0.0.1:0", "--data-dir", data)
	out, err := second.CombinedOutput()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
		t.Fatalf("second instance: err %v, want exit status 1; output:\n%s", err, out)
	}
	if want := "data dir " + data + " is in use by another Agent Hub instance"; !strings.Contains(string(out), want) {
		t.Errorf("second instance said %q, want %q", out, want)
	}
	if strings.Contains(string(out), "dashboard: http") {
		t.Errorf("second instance printed a dashboard line: %q", out)
	}

	// SIGINT: clean exit, dashboard.json removed.
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	if err := <-exited; err != nil {
		t.Fatalf("first instance after SIGINT: %v; stderr:\n%s", err, stderr.String())
	}
	if _, err := os.Stat(infoPath); !os.IsNotExist(err) {
		t.Errorf("dashboard.json left after clean exit: %v", err)
	}

	// Issue 40 row 9: the token URL goes to stdout only; the log (stderr
	// and DATA_DIR/logs/agenthub.log) says the dashboard is on, where, and
	// which file holds the URL, without the token.
	logFile, err := os.ReadFile(filepath.Join(data, "logs", "agenthub.log"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"stderr": stderr.String(), "agenthub.log": string(logFile)} {
		if strings.Contains(text, token) {
			t.Errorf("%s holds the dashboard token:\n%s", name, text)
		}
		for _, want := range []string{"dashboard enabled", base, infoPath} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin, version := buildHeadless(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "agenthub "+version {
		t.Errorf("--version: %q %v", out, err)
	}
	out, err = exec.Command(bin, "--help").Output()
	if err != nil || !strings.Contains(string(out), "--headless") || !strings.Contains(string(out), "--listen") {
		t.Errorf("--help: %q %v", out, err)
	}
	err = exec.Command(bin, "--listen", "0.0.0.0:8421", "--headless").Run()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 2 {
		t.Errorf("--listen 0.0.0.0: %v, want exit status 2", err)
	}
	// A product build has no desktop test harness (docs/testing.md): its
	// flag is unknown, and --help does not mention it.
	if strings.Contains(string(out), "smoke") {
		t.Errorf("--help mentions the smoke test: %q", out)
	}
	cmd := exec.Command(bin, "--smoke-test", t.TempDir(), "--headless")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 2 || !strings.Contains(stderr.String(), "flag provided but not defined: -smoke-test") {
		t.Errorf("--smoke-test: %v, want exit status 2 for an unknown flag; stderr:\n%s", err, stderr.String())
	}
}

// The window icon main embeds is a real PNG.
func TestEmbeddedIconIsPNG(t *testing.T) {
	if len(appIcon) < 8 || string(appIcon[:8]) != "\x89PNG\r\n\x1a\n" {
		t.Fatalf("build/appicon.png is not a PNG (%d bytes)", len(appIcon))
	}
}
