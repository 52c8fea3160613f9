package app

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"agenthub/app/settings"
)

// What the failed-start window tells a person to do, per cause.
func TestStartupHint(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&settings.FileError{Path: "/d/settings.json", Err: errors.New("invalid JSON")}, "Agent Hub never overwrites a settings file it could not read"},
		{fmt.Errorf("open /d/agenthub.db: %w", fs.ErrPermission), "cannot write its data folder /d"},
		{errors.New("listen tcp 127.0.0.1:8700: address already in use"), "the dashboard port in its settings.json"},
	} {
		if got := startupHint(tc.err, "/d"); !strings.Contains(got, tc.want) {
			t.Errorf("hint for %v = %q, want it to say %q", tc.err, got, tc.want)
		}
	}
}
