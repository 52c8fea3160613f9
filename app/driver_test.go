package app

import (
	"reflect"
	"strings"
	"testing"
)

// Without a registered Driver (a product build: main registers none unless
// built with the smoketest tag) there is no desktop test harness:
// --smoke-test is an unknown flag (status 2 from main), AGENTHUB_SMOKE
// means nothing, --help does not mention it, and the App binds no test
// method.
func TestNoHarnessWithoutARegisteredDriver(t *testing.T) {
	if _, out, err := parse(t, []string{"--smoke-test", "art"}, nil); err == nil || !strings.Contains(out, "flag provided but not defined: -smoke-test") {
		t.Fatalf("--smoke-test: err %v, output %q; want it rejected as unknown", err, out)
	}
	cfg, _, err := parse(t, nil, map[string]string{"AGENTHUB_SMOKE": "artifacts"})
	if err != nil || cfg.Driver != nil {
		t.Fatalf("AGENTHUB_SMOKE: %+v %v", cfg.Driver, err)
	}
	if _, help, _ := parse(t, []string{"--help"}, nil); strings.Contains(help, "smoke") {
		t.Errorf("--help mentions the smoke test:\n%s", help)
	}
	if d := startDriver(cfg.Driver, func(string) string { return "stdio" }, nil); d != nil {
		t.Errorf("a product build has a window driver: %v", d)
	}
	app := reflect.TypeOf(&App{})
	for i := range app.NumMethod() {
		if m := app.Method(i).Name; strings.HasPrefix(m, "Test") {
			t.Errorf("App binds %s in a product build", m)
		}
	}
}
