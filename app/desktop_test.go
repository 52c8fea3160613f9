package app

import (
	"bytes"
	"testing"

	"agenthub/ipc/wailsipc"
)

// The window binds the facade and the IPC bridge, and carries the icon main
// embeds (the window manager shows it when the window is iconified).
func TestWindowOptionsBindBridgeAndIcon(t *testing.T) {
	icon := []byte("\x89PNG\r\n\x1a\nfake")
	a, bridge := NewApp(nil), &wailsipc.Bridge{}
	opts := windowOptions(a, bridge, nil, nil, icon)
	if opts.Linux == nil || !bytes.Equal(opts.Linux.Icon, icon) || opts.Linux.ProgramName != "agenthub" {
		t.Fatalf("linux options %+v", opts.Linux)
	}
	if len(opts.Bind) != 2 || opts.Bind[0] != any(a) || opts.Bind[1] != any(bridge) {
		t.Fatalf("bound %v, want the App and the Bridge", opts.Bind)
	}
	if opts.Title != Name || opts.OnStartup == nil {
		t.Fatalf("title %q, OnStartup set %v", opts.Title, opts.OnStartup != nil)
	}
}
