//go:build smoketest

package desktoptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app"
	"agenthub/app/apptest"
	"agenthub/app/smoketest"
)

// TestDashboardTokenNeverLogged (issue 40 row 9): the window with the
// dashboard on logs that the dashboard is on, its address and where
// dashboard.json is — never the token, neither on stderr nor in
// DATA_DIR/logs/agenthub.log.
func TestDashboardTokenNeverLogged(t *testing.T) {
	bin, artifacts := setup(t)
	dataDir, workspace := apptest.Dirs(t)
	d := startDesktop(t, bin, artifacts, nil, "--data-dir", dataDir, "--workspace", workspace, "--listen", "127.0.0.1:0")
	d.awaitReport("its first load", func(r smoketest.PageReport) bool { return r.Kind == "loaded" })
	dash := readDashboard(t, dataDir)
	d.quit()
	file, err := os.ReadFile(filepath.Join(dataDir, "logs", app.LogName))
	if err != nil {
		t.Fatal(err)
	}
	info := filepath.Join(dataDir, "dashboard.json")
	for name, text := range map[string]string{"the app's output": d.log.String(), app.LogName: string(file)} {
		if strings.Contains(text, dash.Token) {
			t.Errorf("%s holds the dashboard token:\n%s", name, text)
		}
		for _, want := range []string{"dashboard enabled", dash.base, info} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
	}
}
