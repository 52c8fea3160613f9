package app

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"agenthub/ipc"
)

// A desktop launch without --workspace (a launcher starts it in $HOME)
// assumes no folder: the first session must name one, and the folder chosen
// last is the default from then on, across launches. Headless, and any
// launch with --workspace, keep the given folder (headless: the directory
// it was started in).
func TestDesktopLaunchAsksForAFolder(t *testing.T) {
	dataDir, home, project := t.TempDir(), t.TempDir(), t.TempDir()
	launch := func(headless bool, args ...string) *Instance {
		t.Helper()
		cfg, err := ParseFlags(append([]string{"--data-dir", dataDir, "--listen", "127.0.0.1:0"}, args...), home, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := Open(cfg, OpenOptions{Headless: headless})
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	ctx := context.Background()

	inst := launch(false)
	if got := inst.Info().Workspace; got != "" {
		t.Fatalf("a desktop launch from %s offers %q as the folder", home, got)
	}
	if _, err := inst.Hub.CreateSession(ctx, ipc.CreateSessionRequest{}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("a session without a folder: %v", err)
	}
	s, err := inst.Hub.CreateSession(ctx, ipc.CreateSessionRequest{WorkspacePath: project})
	if err != nil || s.WorkspacePath != project {
		t.Fatalf("a session in %s: %+v %v", project, s, err)
	}
	if got := inst.Info().Workspace; got != project {
		t.Fatalf("after choosing %s the default is %q", project, got)
	}
	if err := inst.Close(); err != nil {
		t.Fatal(err)
	}

	inst = launch(false)
	if got := inst.Info().Workspace; got != project {
		t.Fatalf("the next launch offers %q, want the folder chosen last (%s)", got, project)
	}
	if s, err := inst.Hub.CreateSession(ctx, ipc.CreateSessionRequest{}); err != nil || s.WorkspacePath != project {
		t.Fatalf("a session without a folder after one was chosen: %+v %v", s, err)
	}
	_ = inst.Close()

	for _, c := range []struct {
		headless bool
		args     []string
		want     string
	}{
		{true, nil, home},
		{false, []string{"--workspace", home}, home},
		{true, []string{"--workspace", filepath.Join(project)}, project},
	} {
		inst := launch(c.headless, c.args...)
		s, err := inst.Hub.CreateSession(ctx, ipc.CreateSessionRequest{})
		if got := inst.Info().Workspace; got != c.want || err != nil || s.WorkspacePath != c.want {
			t.Errorf("headless %v %v: default %q, session %q %v; want %s", c.headless, c.args, got, s.WorkspacePath, err, c.want)
		}
		_ = inst.Close()
	}
}
