package sandbox_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agenthub/app/sandbox"
)

// The test binary doubles as the helper, as the app's binary does in main.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func need(t *testing.T) sandbox.Support {
	t.Helper()
	s := sandbox.Probe()
	if !s.Files() {
		t.Skip("this kernel has no Landlock: " + s.String())
	}
	return s
}

// run runs script with bash under p and returns its combined output.
func run(t *testing.T, p sandbox.Policy, script string, env ...string) (string, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, err := sandbox.Command(self, p, []string{"bash", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func dirs(t *testing.T) (ws, outside string) {
	ws, outside = t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws, outside
}

func TestWritesConfinedToWriteDirs(t *testing.T) {
	need(t)
	ws, outside := dirs(t)
	p := sandbox.Policy{WriteDirs: []string{ws}}
	out, err := run(t, p, `set -e; cd "$WS"; mkdir -p a b; echo hi > a/f; mv a/f b/g; ln -s b/g link; rm -r a; cat b/g; echo x > /dev/null; cat "$OUT/secret.txt"`,
		"WS="+ws, "OUT="+outside)
	if err != nil || out != "hi\ns3cret" {
		t.Fatalf("inside the workspace (and reading outside): %q %v", out, err)
	}
	out, err = run(t, p, `echo pwned > "$OUT/new.txt"`, "OUT="+outside)
	if err == nil || !strings.Contains(out, "Permission denied") {
		t.Fatalf("a write outside the workspace: %q %v, want Permission denied", out, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file outside was created: %v", err)
	}
	out, err = run(t, p, `rm -f "$OUT/secret.txt"`, "OUT="+outside)
	if err == nil || !strings.Contains(out, "Permission denied") {
		t.Fatalf("a delete outside the workspace: %q %v", out, err)
	}
}

func TestReadsConfinedWhenAsked(t *testing.T) {
	need(t)
	ws, outside := dirs(t)
	p := sandbox.Policy{WriteDirs: []string{ws}, ReadDirs: []string{ws}}
	out, err := run(t, p, `cat "$OUT/secret.txt"`, "OUT="+outside)
	if err == nil || strings.Contains(out, "s3cret") || !strings.Contains(out, "Permission denied") {
		t.Fatalf("a read outside the workspace: %q %v", out, err)
	}
	if out, err := run(t, p, `echo ok > "$WS/f" && cat "$WS/f" && ls /usr/bin >/dev/null`, "WS="+ws); err != nil || out != "ok\n" {
		t.Fatalf("reads inside the workspace and of the system: %q %v", out, err)
	}
}

func TestNetworkSwitchedOff(t *testing.T) {
	if !need(t).Network() {
		t.Skip("TCP rules need Landlock ABI 4")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := `exec 3<>/dev/tcp/127.0.0.1/$PORT && echo connected`
	ws := t.TempDir()
	if out, err := run(t, sandbox.Policy{WriteDirs: []string{ws}}, script, "PORT="+strconv.Itoa(port)); err != nil || !strings.Contains(out, "connected") {
		t.Fatalf("network on: %q %v", out, err)
	}
	out, err := run(t, sandbox.Policy{WriteDirs: []string{ws}, NoNetwork: true}, script, "PORT="+strconv.Itoa(port))
	if err == nil || strings.Contains(out, "connected") {
		t.Fatalf("network off: %q %v, want the connect refused", out, err)
	}
}

// go build inside the workspace still works: the build cache and the temp
// dir are writable.
func TestGoBuildInsideWorkspace(t *testing.T) {
	need(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	ws, tmp := t.TempDir(), t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module demo\n\ngo 1.22\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() { println(\"built\") }\n"), 0o644))
	home, _ := os.UserHomeDir()
	goEnv := func(k string) string {
		out, _ := exec.Command(goBin, "env", k).Output()
		return strings.TrimSpace(string(out))
	}
	env := func(k string) string {
		switch k {
		case "GOCACHE", "GOMODCACHE":
			return goEnv(k)
		}
		return os.Getenv(k)
	}
	p := sandbox.Policy{WriteDirs: append([]string{ws, tmp}, sandbox.DefaultCacheDirs(env, home)...)}
	out, err := run(t, p, `cd "$WS" && go build -o demo . && ./demo`, "WS="+ws, "TMPDIR="+tmp, "GOTOOLCHAIN=local", "GOFLAGS=")
	if err != nil || !strings.Contains(out, "built") {
		t.Fatalf("go build in the sandbox: %q %v", out, err)
	}
}

func TestCommandRefusesRelativePaths(t *testing.T) {
	if _, err := sandbox.Command("agenthub", sandbox.Policy{}, []string{"true"}); err == nil {
		t.Fatal("a relative helper path was accepted")
	}
	if _, err := sandbox.Command("/bin/agenthub", sandbox.Policy{WriteDirs: []string{"ws"}}, []string{"true"}); err == nil {
		t.Fatal("a relative write dir was accepted")
	}
	if _, err := sandbox.Command("/bin/agenthub", sandbox.Policy{}, nil); err == nil {
		t.Fatal("an empty command was accepted")
	}
}

func TestSupportSaysWhatIsEnforced(t *testing.T) {
	for abi, want := range map[int]string{0: "nothing enforced", 3: "network rules need kernel 6.7+", 7: "network rules available"} {
		if got := (sandbox.Support{ABI: abi}).String(); !strings.Contains(got, want) {
			t.Errorf("ABI %d: %q, want it to say %q", abi, got, want)
		}
	}
}
