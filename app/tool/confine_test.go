package tool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"agenthub/app/apptest"
	"agenthub/app/confine/confinetest"
	"agenthub/ipc/errclass"
)

// sandbox makes a workspace and a sibling "outside" directory holding a
// secret, with symlinks from the workspace that escape to it.
// sandbox is a workspace with links escaping it and staying inside, next
// to a directory outside. links is false where this system cannot make
// symbolic links (under wine): then there are none, and the callers leave
// out their link cases (linkCase).
func sandbox(t *testing.T) (ws, outside string, links bool) {
	t.Helper()
	base := t.TempDir()
	ws = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "secret.txt"), "top secret\n")
	write(t, filepath.Join(ws, "a.txt"), "hello\n")
	if !confinetest.TrySymlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(ws, "filelink")) { // file escape
		return ws, outside, false
	}
	apptest.Symlink(t, outside, filepath.Join(ws, "dirlink"))                                // dir escape
	apptest.Symlink(t, filepath.Join(outside, "nope.txt"), filepath.Join(ws, "dangling"))    // dangling escape
	apptest.Symlink(t, "a.txt", filepath.Join(ws, "inlink"))                                 // inside → inside
	apptest.Symlink(t, filepath.Join(ws, "sub", "new.txt"), filepath.Join(ws, "danglingIn")) // dangling, inside
	return ws, outside, true
}

// linkCase reports whether a case's path or input names one of sandbox's
// links.
func linkCase(s string) bool { return strings.Contains(s, "link") || strings.Contains(s, "dangling") }

// jsonString is s as a JSON string (a Windows path's backslashes escaped).
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func errClass(err error) string {
	var te *Error
	if errors.As(err, &te) {
		return te.Class
	}
	if err == nil {
		return ""
	}
	return "not a *tool.Error: " + err.Error()
}

func TestResolveConfinement(t *testing.T) {
	ws, outside, links := sandbox(t)
	real, _ := filepath.EvalSymlinks(ws)
	cases := []struct {
		path, class, want string
	}{
		{"a.txt", "", filepath.Join(real, "a.txt")},
		{"", "", real},
		{".", "", real},
		{"sub/../a.txt", "", filepath.Join(real, "a.txt")},
		{filepath.Join(ws, "a.txt"), "", filepath.Join(real, "a.txt")}, // absolute inside
		{"new/dir/file.txt", "", filepath.Join(real, "new/dir/file.txt")},
		{"inlink", "", filepath.Join(real, "a.txt")},
		{"danglingIn", "", filepath.Join(real, "sub", "new.txt")},
		{"..", errclass.ToolDenied, ""},
		{"../outside/secret.txt", errclass.ToolDenied, ""},
		{"sub/../../outside", errclass.ToolDenied, ""},
		{filepath.Join(outside, "secret.txt"), errclass.ToolDenied, ""},
		{"/etc/passwd", errclass.ToolDenied, ""},
		{"filelink", errclass.ToolDenied, ""},
		{"dirlink", errclass.ToolDenied, ""},
		{"dirlink/secret.txt", errclass.ToolDenied, ""},
		{"dirlink/new.txt", errclass.ToolDenied, ""},        // new file under an escaping dir
		{"dirlink/deeper/new.txt", errclass.ToolDenied, ""}, // new dirs under it too
		{"dangling", errclass.ToolDenied, ""},               // a dangling link pointing out
		{"a.txt/x", errclass.ToolInvalidInput, ""},          // file used as a directory
		{"bad\x00name", errclass.ToolInvalidInput, ""},
	}
	if runtime.GOOS == "windows" {
		cases = append(cases, []struct{ path, class, want string }{
			{`\Windows\win.ini`, errclass.ToolDenied, ""},   // the current drive's root
			{`C:secret.txt`, errclass.ToolDenied, ""},       // a drive's current folder
			{`\\server\share\x`, errclass.ToolDenied, ""},   // a share
			{`C:\Windows\win.ini`, errclass.ToolDenied, ""}, // absolute, elsewhere
			{`sub\..\..\outside`, errclass.ToolDenied, ""},  // backslashes climb too
		}...)
	}
	for _, c := range cases {
		if !links && linkCase(c.path) {
			continue // no links on this system: sandbox made none
		}
		if c.path == "a.txt/x" && runtime.GOOS == "windows" {
			continue // Windows reports a file used as a directory as "not found": writing there fails later
		}
		got, err := Resolve(ws, c.path)
		if errClass(err) != c.class {
			t.Errorf("Resolve(%q): class %q (err %v), want %q", c.path, errClass(err), err, c.class)
			continue
		}
		if c.class == "" && got != c.want {
			t.Errorf("Resolve(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestToolsRefuseEscapes(t *testing.T) {
	ws, outside, links := sandbox(t)
	env := Env{Workspace: ws}
	tools := Builtins(nil)
	calls := []struct{ tool, input string }{
		{"read_file", `{"path":"../outside/secret.txt"}`},
		{"read_file", `{"path":"filelink"}`},
		{"read_file", `{"path":"dirlink/secret.txt"}`},
		{"read_file", `{"path":` + jsonString(filepath.Join(outside, "secret.txt")) + `}`},
		{"write_file", `{"path":"dirlink/new.txt","content":"x"}`},
		{"write_file", `{"path":"dangling","content":"x"}`},
		{"write_file", `{"path":"../evil.txt","content":"x"}`},
		{"edit_file", `{"path":"filelink","old":"top","new":"bottom"}`},
		{"list_dir", `{"path":"dirlink"}`},
		{"list_dir", `{"path":"/"}`},
		{"glob", `{"pattern":"../outside/*"}`},
		{"glob", `{"pattern":"dirlink/*"}`},
		{"grep", `{"pattern":"secret","path":"dirlink"}`},
		{"grep", `{"pattern":"secret","path":".."}`},
	}
	if runtime.GOOS == "windows" { // paths Windows roots elsewhere than the workspace
		calls = append(calls, []struct{ tool, input string }{
			{"read_file", `{"path":"\\outside\\secret.txt"}`},
			{"write_file", `{"path":"C:evil.txt","content":"x"}`},
			{"write_file", `{"path":"/evil.txt","content":"x"}`},
			{"edit_file", `{"path":"\\a.txt","old":"hello","new":"bye"}`},
			{"grep", `{"pattern":"secret","path":"\\"}`},
		}...)
	}
	for _, c := range calls {
		if !links && linkCase(c.input) {
			continue // no links on this system: sandbox made none
		}
		tl, _ := Lookup(tools, c.tool)
		_, err := tl.Run(context.Background(), env, json.RawMessage(c.input))
		if errClass(err) != errclass.ToolDenied {
			t.Errorf("%s %s: got %v, want denied", c.tool, c.input, err)
		}
	}
	// Nothing was created or changed outside.
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside dir has %d entries, want only secret.txt", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "top secret\n" {
		t.Errorf("secret changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "evil.txt")); !os.IsNotExist(err) {
		t.Errorf("evil.txt was created: %v", err)
	}
}
