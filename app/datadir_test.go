package app

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestResolveDataDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		explicit, goos string
		env            map[string]string
		want           string
	}{
		{"", "linux", map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/agenthub"},
		{"", "linux", map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/xdg"}, "/xdg/agenthub"},
		{"", "linux", map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "relative"}, "/home/u/.local/share/agenthub"},
		{"", "darwin", map[string]string{"HOME": "/Users/u"}, "/Users/u/Library/Application Support/agenthub"},
		{"", "windows", map[string]string{"AppData": `C:\Users\u\AppData\Roaming`}, filepath.Join(`C:\Users\u\AppData\Roaming`, "agenthub")},
		{"/explicit/dir", "linux", nil, "/explicit/dir"},
	} {
		if filepath.Separator != '/' && tc.goos != "windows" {
			continue // a Unix path's rules, checked on Unix
		}
		got, err := ResolveDataDir(tc.explicit, tc.goos, env(tc.env))
		if err != nil || got != tc.want {
			t.Errorf("%+v: got %q, %v; want %q", tc, got, err, tc.want)
		}
	}
	if _, err := ResolveDataDir("", "linux", env(nil)); err == nil || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("no HOME: err %v, want a hint to pass --data-dir", err)
	}
	rel, err := ResolveDataDir("rel", "linux", env(nil))
	if err != nil || !filepath.IsAbs(rel) {
		t.Errorf("relative explicit dir: %q %v", rel, err)
	}
}

func TestEnsureDataDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "a", "b")
	if err := EnsureDataDir(dir); err != nil {
		t.Fatal(err)
	}
	// Windows has no mode bits: the data dir's privacy is %AppData%'s ACL.
	if st, err := os.Stat(dir); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o700) {
		t.Errorf("created %v %v, want 0700", st.Mode().Perm(), err)
	}
	file := filepath.Join(base, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDataDir(file); err == nil {
		t.Error("a file accepted as data dir")
	}
}
