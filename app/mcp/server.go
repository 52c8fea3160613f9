package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agenthub/app/tool"
	"agenthub/ipc"
)

// server supervises one configured MCP server: its goroutine (run) starts
// it, offers its tools while it is up, and restarts it with backoff when it
// fails, until the server's context ends.
type server struct {
	name string
	cfg  ServerConfig
	m    *Manager

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when run returns

	mu        sync.Mutex
	status    ipc.MCPServerStatus
	sess      *sdk.ClientSession // nil unless ready
	sessEnded chan struct{}      // closed when sess is dropped
	endErr    error              // why the last session ended (set before sessEnded closes)
	lastTail  string             // the last stdio process's stderr tail
	proc      *process           // the running stdio process, if any
	tools     []tool.Tool
	watchers  map[string]*progressWatch // progress token → the call's output
	cancelled map[string]bool           // tokens of cancelled calls → progress seen since
	restart   chan string               // cap 1: end the session now, saying why
	retryAt   time.Time                 // when a failed server starts again
	tasks     taskTools                 // the tools its tools/list marks task-only
	// unsupportedLogged names the tools already logged as not offered.
	unsupportedLogged map[string]bool
}

// progressWatch forwards progress notifications to a running call's output;
// mu serialises the calls and the end of the call.
type progressWatch struct {
	mu     sync.Mutex
	output func(stream, text string)
}

func newServer(m *Manager, name string, cfg ServerConfig) *server {
	ctx, cancel := context.WithCancel(m.ctx)
	return &server{
		name: name, cfg: cfg, m: m, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		status:    ipc.MCPServerStatus{Server: name, Transport: cfg.Transport(), Workspace: cfg.Workspace, Status: ipc.MCPStarting, Tools: []string{}},
		watchers:  map[string]*progressWatch{},
		cancelled: map[string]bool{},
		restart:   make(chan string, 1),

		unsupportedLogged: map[string]bool{},
	}
}

// run is the supervisor loop; it owns the server's sessions and processes.
// A server that fails is restarted with backoff; one the app restarted
// because it ignored a cancellation (restartAsked) is restarted at once and
// does not count toward the backoff. Each failure is one failed status.
// Its tools stay offered while it restarts (a call gets notRunning).
func (s *server) run() {
	defer close(s.done)
	attempt := 0
	for n := 0; ; n++ {
		s.update(func(st *ipc.MCPServerStatus) {
			st.Status, st.RetryInMS = ipc.MCPStarting, 0
			if n > 0 {
				st.Restarts++
			}
		})
		started := time.Now()
		err := s.serve()
		if s.ctx.Err() != nil {
			s.stopped()
			return
		}
		var wait time.Duration
		var asked *restartAsked
		if !errors.As(err, &asked) {
			if time.Since(started) > s.m.opts.StableAfter {
				attempt = 0
			}
			attempt++
			wait = s.m.opts.Backoff(attempt)
		}
		s.m.log.Warn("mcp: server failed", "server", s.name, "err", err, "retry_in", wait)
		s.mu.Lock()
		s.retryAt = time.Now().Add(wait)
		s.mu.Unlock()
		s.update(func(st *ipc.MCPServerStatus) {
			st.Status, st.Error, st.RetryInMS = ipc.MCPFailed, err.Error(), wait.Milliseconds()
			st.StderrTail = s.lastTail
		})
		if wait <= 0 {
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-s.ctx.Done():
			t.Stop()
			s.stopped()
			return
		case <-t.C:
		}
	}
}

// restartAsked ends a session the app restarts on purpose (a server that
// ignored a cancellation): not a crash.
type restartAsked struct{ why string }

func (r *restartAsked) Error() string { return r.why }

// stopped drops the server's tools and reports it stopped.
func (s *server) stopped() {
	s.mu.Lock()
	s.tools = nil
	s.mu.Unlock()
	s.update(func(st *ipc.MCPServerStatus) { st.Status, st.Tools, st.RetryInMS = ipc.MCPStopped, []string{}, 0 })
}

// serve runs one session: connect, list the tools, offer them until the
// session ends (the process exits, the connection drops, a restart is
// asked for, or the server is stopped). It returns why it ended.
func (s *server) serve() (err error) {
	var proc *process
	var transport sdk.Transport
	if s.cfg.URL != "" {
		transport = &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: headerClient(s.cfg.URL, s.cfg.Headers, s.tasks.observe), MaxRetries: 2}
	} else {
		p, err := startProcess(s.name, s.cfg, s.m.pids)
		if err != nil {
			return err
		}
		proc = p
		transport = &sdk.IOTransport{Reader: gatedBody{newLineGate(p.stdout, s.tasks.observe), p.stdout}, Writer: p.stdin}
		s.mu.Lock()
		s.proc = p
		s.mu.Unlock()
		defer func() {
			p.stop(s.m.opts.StopGrace)
			s.mu.Lock()
			s.lastTail = p.stderr.String()
			s.mu.Unlock()
		}()
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agent-hub", Version: s.m.opts.Version}, &sdk.ClientOptions{
		Capabilities:                &sdk.ClientCapabilities{},
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { s.relistSoon() },
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { s.onProgress(r.Params) },
	})
	connectCtx, cancel := context.WithTimeout(s.ctx, s.m.opts.StartTimeout)
	cs, err := client.Connect(connectCtx, transport, nil)
	cancel()
	if err != nil {
		return s.ended(proc, fmt.Errorf("connect: %w", err))
	}
	defer cs.Close()
	tools, unsupported, err := s.listTools(cs)
	if err != nil {
		return s.ended(proc, fmt.Errorf("tools/list: %w", err))
	}
	s.mu.Lock()
	s.sess, s.tools, s.sessEnded = cs, tools, make(chan struct{})
	s.mu.Unlock()
	s.update(func(st *ipc.MCPServerStatus) {
		st.Status, st.Tools, st.UnsupportedTools, st.Error = ipc.MCPReady, names(tools), unsupported, ""
	})
	defer func() {
		s.mu.Lock()
		s.endErr = err
		if proc != nil {
			s.lastTail = proc.stderr.String()
		}
		close(s.sessEnded)
		s.sess, s.sessEnded = nil, nil // the tools stay offered while it restarts
		s.mu.Unlock()
	}()
	waited := make(chan struct{})
	go func() { _ = cs.Wait(); close(waited) }()
	select {
	case <-s.ctx.Done():
		return s.ctx.Err()
	case <-waited:
		return s.ended(proc, errors.New("the connection closed"))
	case why := <-s.restart:
		return &restartAsked{why: why}
	}
}

// ended says how a session ended, with how a stdio process exited.
func (s *server) ended(p *process, err error) error {
	if p == nil {
		return err
	}
	if waitClosed(p.exited, time.Second) {
		return fmt.Errorf("the server process ended: %s (%v)", p.exitText(), err)
	}
	return err
}

// listTools reads every page of tools/list. Tools that must be called as
// MCP tasks (execution.taskSupport "required") are left out and returned by
// their server names in unsupported (logged once per server and name).
func (s *server) listTools(cs *sdk.ClientSession) (out []tool.Tool, unsupported []string, err error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.m.opts.StartTimeout)
	defer cancel()
	seen := map[string]bool{}
	cursor := ""
	for {
		res, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, nil, err
		}
		for _, t := range res.Tools {
			if s.tasks.requires(t.Name) {
				unsupported = append(unsupported, t.Name)
				s.logUnsupported(t.Name)
				continue
			}
			rt := newRemoteTool(s, t)
			if name := uniqueName(rt.name, seen); name != rt.name {
				s.m.log.Warn("mcp: tool name taken after sanitising; renamed", "server", s.name, "tool", t.Name, "as", name)
				rt.name = name
			}
			out = append(out, rt)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	sort.Strings(unsupported)
	return out, unsupported, nil
}

// logUnsupported logs, once per server and tool, that a tool is not offered.
func (s *server) logUnsupported(name string) {
	s.mu.Lock()
	first := !s.unsupportedLogged[name]
	s.unsupportedLogged[name] = true
	s.mu.Unlock()
	if first {
		s.m.log.Warn("mcp: tool not offered: it must be called as an MCP task (execution.taskSupport required), which Agent Hub does not support",
			"server", s.name, "tool", name)
	}
}

// relistSoon re-reads the tool list after notifications/tools/list_changed
// (off the connection's goroutine); the next LLM call offers the new list.
func (s *server) relistSoon() {
	s.mu.Lock()
	cs := s.sess
	s.mu.Unlock()
	if cs == nil {
		return
	}
	s.m.background(func() {
		tools, unsupported, err := s.listTools(cs)
		if err != nil {
			s.m.log.Warn("mcp: re-listing tools", "server", s.name, "err", err)
			return
		}
		s.mu.Lock()
		if s.sess != cs {
			s.mu.Unlock()
			return
		}
		s.tools = tools
		s.mu.Unlock()
		s.update(func(st *ipc.MCPServerStatus) { st.Tools, st.UnsupportedTools = names(tools), unsupported })
	})
}

func (s *server) onProgress(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token := fmt.Sprint(p.ProgressToken)
	s.mu.Lock()
	w := s.watchers[token]
	if _, ok := s.cancelled[token]; ok {
		s.cancelled[token] = true
	}
	s.mu.Unlock()
	if w == nil {
		return
	}
	line := p.Message
	if line == "" {
		line = fmt.Sprintf("progress %g", p.Progress)
		if p.Total > 0 {
			line = fmt.Sprintf("progress %g/%g", p.Progress, p.Total)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.output != nil {
		w.output("stdout", strings.TrimRight(line, "\n")+"\n")
	}
}

// watch routes progress for token to output until the returned func runs.
func (s *server) watch(token string, output func(stream, text string)) (stop func()) {
	if output == nil {
		return func() {}
	}
	w := &progressWatch{output: output}
	s.mu.Lock()
	s.watchers[token] = w
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.watchers, token)
		s.mu.Unlock()
		w.mu.Lock()
		w.output = nil
		w.mu.Unlock()
	}
}

// afterCancel checks, CancelGrace after a call was cancelled (the SDK has
// sent notifications/cancelled), that the server let go of it: if progress
// for the call still arrived, or the server does not answer a ping, it is
// restarted. The cancelled call itself has already returned.
func (s *server) afterCancel(cs *sdk.ClientSession, token string) {
	s.mu.Lock()
	s.cancelled[token] = false
	s.mu.Unlock()
	s.m.background(func() {
		t := time.NewTimer(s.m.opts.CancelGrace)
		defer t.Stop()
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		progressed := s.cancelled[token]
		delete(s.cancelled, token)
		current := s.sess == cs
		s.mu.Unlock()
		if !current {
			return // that session is already gone
		}
		why := ""
		if progressed {
			why = fmt.Sprintf("restarted: it kept working on a cancelled call for %s", s.m.opts.CancelGrace)
		} else {
			ctx, cancel := context.WithTimeout(s.ctx, s.m.opts.CancelGrace)
			err := cs.Ping(ctx, nil)
			cancel()
			if err != nil && s.ctx.Err() == nil {
				why = fmt.Sprintf("restarted: it did not answer a ping after a cancelled call (%v)", err)
			}
		}
		if hook := s.m.cancelChecked; hook != nil {
			defer hook(s.name, why != "")
		}
		if why != "" {
			s.m.log.Warn("mcp: restarting a server that ignored a cancellation", "server", s.name, "why", why)
			select {
			case s.restart <- why:
			default:
			}
		}
	})
}

// session returns the live session and the server's status line (a failed
// server's RetryInMS is the wait left until its next start).
func (s *server) session() (*sdk.ClientSession, ipc.MCPServerStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	if st.Status == ipc.MCPFailed {
		st.RetryInMS = max(0, time.Until(s.retryAt).Milliseconds())
	}
	return s.sess, st
}

// waitGone waits up to d for the session cs to end (a crash noticed by
// the supervisor) and returns the stderr tail and why it ended; a nil
// error means it has not ended.
func (s *server) waitGone(cs *sdk.ClientSession, d time.Duration) (stderr string, ended error) {
	s.mu.Lock()
	ch := s.sessEnded
	if s.sess != cs {
		ch = nil // already gone
	}
	s.mu.Unlock()
	if ch != nil {
		t := time.NewTimer(d)
		select {
		case <-ch:
		case <-t.C:
			t.Stop()
			return "", nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastTail, s.endErr
}

// update changes the status under the lock and reports it.
func (s *server) update(change func(*ipc.MCPServerStatus)) {
	s.mu.Lock()
	change(&s.status)
	st := s.status
	st.Tools = append([]string{}, st.Tools...)
	st.UnsupportedTools = append([]string(nil), st.UnsupportedTools...)
	s.mu.Unlock()
	s.m.report(st)
}

func names(tools []tool.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name()
	}
	return out
}

// headerClient is the HTTP client of the streamable-HTTP server at
// endpoint. The configured headers (credentials, typically) go only to
// endpoint's origin, and a redirect to another origin is refused: the
// redirected request would carry the call's arguments there, and Go's
// redirect handling cannot strip headers that a transport adds below it.
// Every response body is read through a lineGate that hands its lines to
// observe.
func headerClient(endpoint string, h map[string]string, observe func([]byte)) *http.Client {
	home := origin(endpoint)
	return &http.Client{
		Transport: headerTransport{origin: home, h: h, observe: observe, next: http.DefaultTransport},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if o := origin(req.URL.String()); o != home {
				return fmt.Errorf("refusing a redirect from %s to %s: MCP requests go to the configured origin only", home, o)
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}
}

// origin is scheme://host:port of a URL, the port made explicit ("" when
// the URL does not parse).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// headerTransport adds the configured headers to requests to origin and
// reads responses through a lineGate.
type headerTransport struct {
	origin  string
	h       map[string]string
	observe func([]byte)
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.h) > 0 && origin(r.URL.String()) == t.origin {
		r = r.Clone(r.Context())
		for k, v := range t.h {
			r.Header.Set(k, v)
		}
	}
	resp, err := t.next.RoundTrip(r)
	if err == nil && t.observe != nil && resp.Body != nil {
		resp.Body = gatedBody{newLineGate(resp.Body, t.observe), resp.Body}
	}
	return resp, err
}
