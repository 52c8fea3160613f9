package mcp

import (
	"context"
	"log/slog"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"agenthub/app/tool"
	"agenthub/ipc"
)

// Options configures a Manager. Zero durations take the defaults below.
type Options struct {
	// DataDir keeps the pid files of running stdio servers (DataDir/mcp-pids);
	// "" keeps none.
	DataDir string
	// OnStatus receives every change of a server's state, from that
	// server's goroutine; it must not block for long. May be nil.
	OnStatus func(ipc.MCPServerStatus)
	// Version is reported to servers as the client's version.
	Version string
	Logger  *slog.Logger
	// CancelGrace is how long a server may take to let go of a cancelled
	// call before it is restarted. Default 3s.
	CancelGrace time.Duration
	// StopGrace is how long a stdio server gets after its stdin closes, and
	// again after SIGTERM, before SIGKILL. Default 2s.
	StopGrace time.Duration
	// StartTimeout bounds the MCP handshake and tools/list. Default 30s.
	StartTimeout time.Duration
	// CrashWait is how long a failed call waits for the supervisor to see
	// the server's end, to tell the model how it ended. Default 1s.
	CrashWait time.Duration
	// Backoff is the wait before restart attempt n (1, 2, ...). Default
	// 1s doubling to 30s.
	Backoff func(attempt int) time.Duration
	// StableAfter: a session that lasted this long resets the backoff.
	// Default 30s.
	StableAfter time.Duration
}

// Backoff is the default restart backoff: 1s, 2s, 4s, ... up to 30s.
func Backoff(attempt int) time.Duration {
	d := time.Second
	for i := 1; i < attempt && d < 30*time.Second; i++ {
		d *= 2
	}
	return min(d, 30*time.Second)
}

func (o *Options) defaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.CancelGrace <= 0 {
		o.CancelGrace = 3 * time.Second
	}
	if o.StopGrace <= 0 {
		o.StopGrace = 2 * time.Second
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.CrashWait <= 0 {
		o.CrashWait = time.Second
	}
	if o.Backoff == nil {
		o.Backoff = Backoff
	}
	if o.StableAfter <= 0 {
		o.StableAfter = 30 * time.Second
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}

// Manager runs the configured MCP servers and hands out their tools. Safe
// for concurrent use; Close stops every server and waits for them.
type Manager struct {
	opts Options
	log  *slog.Logger
	pids *pidFiles

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // server goroutines and their helpers

	mu      sync.Mutex
	servers map[string]*server
	stopped map[string]ipc.MCPServerStatus // disabled entries, shown as stopped

	cancelChecked func(server string, restarted bool) // test hook (export_test.go)
}

// NewManager returns a Manager with no servers. It first kills what stdio
// servers of an earlier run left behind (a kill -9 of the app), found
// through the pid files in opts.DataDir.
func NewManager(opts Options) *Manager {
	opts.defaults()
	m := &Manager{opts: opts, log: opts.Logger, servers: map[string]*server{}, stopped: map[string]ipc.MCPServerStatus{}}
	if opts.DataDir != "" {
		m.pids = &pidFiles{dir: filepath.Join(opts.DataDir, "mcp-pids"), log: opts.Logger}
		m.pids.sweep()
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Configure makes the running servers match cfg: new and changed entries
// start, removed, changed and disabled ones stop (in the background; Close
// waits for them). cfg must have passed Validate.
func (m *Manager) Configure(cfg map[string]ServerConfig) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return
	}
	for name, s := range m.servers {
		if c, ok := cfg[name]; !ok || c.Disabled || !c.equal(s.cfg) {
			s.cancel()
			delete(m.servers, name)
		}
	}
	m.stopped = map[string]ipc.MCPServerStatus{}
	for name, c := range cfg {
		if c.Disabled {
			m.stopped[name] = ipc.MCPServerStatus{Server: name, Transport: c.Transport(), Workspace: c.Workspace, Status: ipc.MCPStopped, Tools: []string{}}
			continue
		}
		if _, ok := m.servers[name]; ok {
			continue
		}
		s := newServer(m, name, c)
		m.servers[name] = s
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.run()
		}()
	}
}

// Tools returns the tools of the ready servers that serve a session in
// workspace, sorted by name.
func (m *Manager) Tools(workspace string) []tool.Tool {
	m.mu.Lock()
	list := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		if s.cfg.serves(workspace) {
			list = append(list, s)
		}
	}
	m.mu.Unlock()
	var out []tool.Tool
	for _, s := range list {
		s.mu.Lock()
		out = append(out, s.tools...)
		s.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Servers returns the state of every configured server, sorted by name.
func (m *Manager) Servers() []ipc.MCPServerStatus {
	m.mu.Lock()
	out := make([]ipc.MCPServerStatus, 0, len(m.servers)+len(m.stopped))
	for _, st := range m.stopped {
		out = append(out, st)
	}
	list := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, s)
	}
	m.mu.Unlock()
	for _, s := range list {
		_, st := s.session()
		st.Tools = append([]string{}, st.Tools...)
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out
}

// Serves reports whether the named server applies to a session in
// workspace (false for an unknown name).
func (m *Manager) Serves(name, workspace string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		if st, ok := m.stopped[name]; ok {
			return ServerConfig{Workspace: st.Workspace}.serves(workspace)
		}
		return false
	}
	return s.cfg.serves(workspace)
}

// background runs fn in a goroutine Close waits for; nothing starts once
// Close has begun (it cancels m.ctx under m.mu before waiting).
func (m *Manager) background(fn func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		fn()
	}()
}

// report hands a status to OnStatus.
func (m *Manager) report(st ipc.MCPServerStatus) {
	if m.opts.OnStatus != nil {
		m.opts.OnStatus(st)
	}
}

// Close stops every server (stdio processes: stdin closed, then TERM and
// KILL to the group) and waits for their goroutines.
func (m *Manager) Close() {
	m.mu.Lock()
	m.cancel()
	m.servers = map[string]*server{}
	m.mu.Unlock()
	m.wg.Wait()
}
