package dashboard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/dialect"
	"agenthub/ipc/rpc"
)

// Bounds of the protocol API.
const (
	// MaxBodyBytes bounds a JSON request body (413 above).
	MaxBodyBytes = 1 << 20
	// AttachTTL is how long an attach token stays valid.
	AttachTTL = 60 * time.Second
)

// APIOptions configures MountAPI.
type APIOptions struct {
	Bus *ipc.Bus   // required
	Hub ipc.HubAPI // required
	// RPC answers POST /rpc and request frames; nil builds one with
	// rpc.RegisterHub(Hub, Bus.Reader()).
	RPC *rpc.Dispatcher
	// Logger; nil uses the server's.
	Logger *slog.Logger
	// AttachTTL overrides the attach token lifetime (zero: AttachTTL).
	AttachTTL time.Duration
	// Now is the clock of attach-token expiry [time.Now].
	Now func() time.Time
	// MaxConnections bounds open WebSocket streams (--max-connections);
	// more are refused with 503 too_many_connections before the upgrade
	// (zero: DefaultMaxConnections).
	MaxConnections int
	// CloseFrameWait bounds how long a stalled stream's 1008 close frame
	// may take before the TCP connection is reset (zero: 1 s).
	CloseFrameWait time.Duration
}

// DefaultMaxConnections is --max-connections' default.
const DefaultMaxConnections = 256

// API is the protocol's HTTP + WebSocket surface mounted on a Server:
// sessions, turns, cancel, history, compaction, deletion, POST /rpc and the
// event stream GET /sessions/{id}/stream. Every route sits behind the
// server's Host and Origin checks and the bearer token, except the stream
// (its attach token) and the two GET routes a signed URL may name
// (attachments and tool outputs: the token or a signature).
type API struct {
	srv     *Server
	bus     *ipc.Bus
	hub     ipc.HubAPI
	rpc     *rpc.Dispatcher
	log     *slog.Logger
	ttl     time.Duration
	now     func() time.Time
	attach  *attachTokens
	conns   sync.WaitGroup
	connMu  sync.Mutex    // orders conns.Add against Close (track)
	slots   chan struct{} // one per open stream, capacity MaxConnections
	wait    time.Duration // CloseFrameWait
	stopped chan struct{}
	stop    sync.Once
	aguiMu  sync.Mutex // serialises the creation of AG-UI threads' sessions
}

// MountAPI registers the protocol routes on s (before Serve) and returns
// the API. Call Close on shutdown to end open streams.
func MountAPI(s *Server, opts APIOptions) (*API, error) {
	if opts.Bus == nil || opts.Hub == nil {
		return nil, errors.New("dashboard: MountAPI needs Bus and Hub")
	}
	a := &API{srv: s, bus: opts.Bus, hub: opts.Hub, rpc: opts.RPC, log: opts.Logger, ttl: opts.AttachTTL, now: opts.Now, stopped: make(chan struct{})}
	if a.log == nil {
		a.log = s.log
	}
	if a.rpc == nil {
		a.rpc = rpc.NewDispatcher(a.log)
		rpc.RegisterHub(a.rpc, a.hub, a.bus.Reader())
	}
	if a.ttl <= 0 {
		a.ttl = AttachTTL
	}
	max := opts.MaxConnections
	if max <= 0 {
		max = DefaultMaxConnections
	}
	a.slots = make(chan struct{}, max)
	a.wait = opts.CloseFrameWait
	if a.wait <= 0 {
		a.wait = time.Second
	}
	if a.now == nil {
		a.now = time.Now
	}
	a.attach = &attachTokens{m: map[string]attachGrant{}}

	// Each path's methods; every other method gets 405 with Allow. The
	// stream authenticates with its attach token (mount), outputs and
	// attachments also with signed URLs (handleSigned); AG-UI is over SSE
	// (docs/protocol.md "AG-UI").
	type method struct {
		name string
		h    http.HandlerFunc
	}
	for _, e := range []struct {
		path    string
		mount   func(pattern string, h http.Handler)
		methods []method
	}{
		{"/sessions", s.Handle, []method{{"GET", a.listSessions}, {"POST", a.createSession}}},
		{"/sessions/{id}", s.Handle, []method{{"GET", a.getSession}, {"DELETE", a.deleteSession}}},
		{"/sessions/{id}/turns", s.Handle, []method{{"POST", a.submitTurn}}},
		{"/sessions/{id}/cancel", s.Handle, []method{{"POST", a.cancel}}},
		{"/sessions/{id}/messages", s.Handle, []method{{"GET", a.messages}}},
		{"/sessions/{id}/compact", s.Handle, []method{{"POST", a.compact}}},
		{"/sessions/{id}/stream", s.mount, []method{{"GET", a.stream}}},
		{"/sessions/{id}/tools/{tool_use_id}/output", s.handleSigned, []method{{"GET", a.toolOutput}}},
		{"/attachments", s.Handle, []method{{"POST", a.uploadAttachment}}},
		{"/attachments/{id}", s.handleSigned, []method{{"GET", a.attachment}}},
		{"/search", s.Handle, []method{{"GET", a.search}}},
		{"/rpc", s.Handle, []method{{"POST", a.rpcHTTP}}},
		{"/ag-ui", s.Handle, []method{{"POST", a.agui}}},
	} {
		var allow []string
		for _, m := range e.methods {
			e.mount(m.name+" "+e.path, m.h)
			allow = append(allow, m.name)
		}
		denyOtherMethods(s, e.path, strings.Join(allow, ", "))
	}
	return a, nil
}

// OpenStreams reports how many WebSocket streams are open.
func (a *API) OpenStreams() int { return len(a.slots) }

// Close ends every open stream (close status 1001) and waits for them.
func (a *API) Close() {
	a.stop.Do(func() {
		a.connMu.Lock()
		close(a.stopped)
		a.connMu.Unlock()
	})
	a.conns.Wait()
}

// track counts a new stream in conns unless Close has begun (then it
// reports false): Add never races Close's Wait.
func (a *API) track() bool {
	a.connMu.Lock()
	defer a.connMu.Unlock()
	select {
	case <-a.stopped:
		return false
	default:
	}
	a.conns.Add(1)
	return true
}

// apiError is the error body {"error":{"code","message"}}.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var e apiError
	e.Error.Code, e.Error.Message = code, msg
	writeJSON(w, status, e)
}

// writeHubError maps HubAPI errors to HTTP.
func (a *API) writeHubError(w http.ResponseWriter, err error) {
	var pe *rpc.Error
	switch {
	case errors.Is(err, ipc.ErrSessionNotFound):
		writeError(w, http.StatusNotFound, "session_not_found", err.Error())
	case errors.Is(err, ipc.ErrTurnNotFound):
		writeError(w, http.StatusNotFound, "turn_not_found", err.Error())
	case errors.Is(err, ipc.ErrInvalidInput):
		writeError(w, http.StatusBadRequest, "invalid_input", err.Error())
	case errors.As(err, &pe) && pe.Code == rpc.CodeInvalidParams:
		writeError(w, http.StatusBadRequest, "invalid_input", pe.Message)
	case errors.Is(err, ipc.ErrQueueFull):
		writeError(w, http.StatusTooManyRequests, "queue_full", err.Error())
	case errors.Is(err, ipc.ErrConflict):
		writeError(w, http.StatusConflict, "conflict", err.Error())
	case errors.Is(err, context.Canceled):
		writeError(w, http.StatusServiceUnavailable, "cancelled", "request cancelled")
	default:
		a.log.Error("dashboard request failed", "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "internal error")
	}
}

// denyOtherMethods answers every method of path not in allow with a JSON
// 405 (a method-less pattern would conflict with the pages' "GET /").
func denyOtherMethods(s *Server, path, allow string) {
	h := methodNotAllowed(allow)
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		if !strings.Contains(allow, m) {
			s.Handle(m+" "+path, h)
		}
	}
}

func methodNotAllowed(allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed here; use "+allow)
	})
}

// readJSON decodes an optional JSON object body into v (an empty body
// leaves v zero). It writes 413/400 itself and reports false on failure.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body exceeds %d bytes", MaxBodyBytes))
			return false
		}
		writeError(w, http.StatusBadRequest, "invalid_json", "reading the body failed")
		return false
	}
	if strings.TrimSpace(string(body)) == "" {
		return true
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_json", "body is not the expected JSON object: "+err.Error())
		return false
	}
	return true
}

func (a *API) createSession(w http.ResponseWriter, r *http.Request) {
	var req ipc.CreateSessionRequest
	if !readJSON(w, r, &req) {
		return
	}
	s, err := a.hub.CreateSession(r.Context(), req)
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, s)
}

func (a *API) listSessions(w http.ResponseWriter, r *http.Request) {
	ss, err := a.hub.ListSessions(r.Context())
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	if ss == nil {
		writeJSON(w, http.StatusOK, []struct{}{})
		return
	}
	writeJSON(w, http.StatusOK, ss)
}

// AttachResponse is the body of GET /sessions/{id} (seed 001 §3.1).
type AttachResponse struct {
	SessionID   string `json:"session_id"`
	ActiveModel string `json:"active_model"`
	AttachToken string `json:"attach_token"`
	WSURL       string `json:"ws_url"`
}

func (a *API) getSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s, err := ipc.SessionWithCurrentModel(r.Context(), a.hub, id)
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	tok, err := a.attach.issue(s.ID, a.now().Add(a.ttl), a.now())
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, AttachResponse{
		SessionID:   s.ID,
		ActiveModel: s.ActiveModel,
		AttachToken: tok,
		WSURL:       "ws://" + r.Host + "/sessions/" + s.ID + "/stream?attach=" + tok,
	})
}

func (a *API) deleteSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := a.hub.DeleteSession(r.Context(), id); err != nil {
		a.writeHubError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"session_id": id, "deleted": true})
}

func (a *API) submitTurn(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Content     *string             `json:"content"`
		Attachments []ipc.AttachmentRef `json:"attachments"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	if (body.Content == nil || strings.TrimSpace(*body.Content) == "") && len(body.Attachments) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_input", "content is required")
		return
	}
	content := ""
	if body.Content != nil {
		content = *body.Content
	}
	res, err := rpc.Submit(r.Context(), a.hub, r.PathValue("id"), content, body.Attachments)
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, res)
}

func (a *API) cancel(w http.ResponseWriter, r *http.Request) {
	var body struct {
		TurnID string `json:"turn_id"`
		Reason string `json:"reason"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	if body.Reason == "" {
		body.Reason = "user_cancel"
	}
	if err := a.hub.CancelTurn(r.Context(), r.PathValue("id"), body.TurnID, body.Reason); err != nil {
		a.writeHubError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (a *API) messages(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	shape := q.Get("dialect")
	switch shape {
	case "", ipc.DialectCanonical:
		shape = ""
	case dialect.Seed002, dialect.Seed004:
	default:
		writeError(w, http.StatusBadRequest, "invalid_input", fmt.Sprintf("dialect: %.64q has no history shape of its own (want %s or %s)",
			shape, dialect.Seed002, dialect.Seed004))
		return
	}
	limit, ok := queryLimit(w, q, rpc.MaxMessageLimit)
	if !ok {
		return
	}
	if shape != "" && (limit == 0 || limit > rpc.MaxMessageLimit) {
		limit = rpc.MaxMessageLimit // a seed client asks for its own page size (Potpie: 1000); it gets the largest
	}
	msgs, err := rpc.BranchOf(a.bus.Reader(), r.PathValue("id"), q.Get("branch"))
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	page, err := rpc.FetchMessagesBefore(r.Context(), a.hub, msgs, r.PathValue("id"), q.Get("before"), limit)
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	if shape == "" {
		writeJSON(w, http.StatusOK, page)
		return
	}
	rows, err := dialect.History(a.bus.Reader(), shape, r.PathValue("id"), page.Messages, page.HasMore)
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rows)
}

// queryLimit parses the optional limit query parameter (0 when absent);
// anything but a positive integer is answered 400 and ok is false. Limits
// above max are left for the method to refuse with its own message.
func queryLimit(w http.ResponseWriter, q url.Values, max int) (limit int, ok bool) {
	l := q.Get("limit")
	if l == "" {
		return 0, true
	}
	n, err := strconv.Atoi(l)
	if err != nil || n <= 0 {
		writeError(w, http.StatusBadRequest, "invalid_input", fmt.Sprintf("limit must be a positive integer ≤ %d", max))
		return 0, false
	}
	return n, true
}

// toolOutput serves a tool call's stored output as text/plain with Range
// support (http.ServeContent); a removed or unknown output is a JSON 404.
func (a *API) toolOutput(w http.ResponseWriter, r *http.Request) {
	src, ok := a.hub.(ipc.ToolOutputs)
	if !ok {
		writeError(w, http.StatusNotFound, "tool_call_not_found", "this hub keeps no tool outputs")
		return
	}
	out, err := src.Output(r.Context(), r.PathValue("id"), r.PathValue("tool_use_id"))
	switch {
	case errors.Is(err, ipc.ErrToolCallNotFound):
		writeError(w, http.StatusNotFound, "tool_call_not_found", err.Error())
		return
	case errors.Is(err, ipc.ErrToolOutputExpired):
		writeError(w, http.StatusNotFound, "tool_output_expired", err.Error())
		return
	case err != nil:
		a.writeHubError(w, err)
		return
	}
	defer out.Content.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "", out.ModTime, out.Content)
}

// search answers GET /search?q=&limit= with rpc.SearchResult.
func (a *API) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, ok := queryLimit(w, q, ipc.MaxSearchLimit)
	if !ok {
		return
	}
	res, err := rpc.Search(r.Context(), a.hub, q.Get("q"), limit)
	if err != nil {
		a.writeHubError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) compact(w http.ResponseWriter, r *http.Request) {
	if err := a.hub.CompactSession(r.Context(), r.PathValue("id")); err != nil {
		a.writeHubError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// rpcHTTP answers one seed 003 request frame; protocol errors are in the
// response frame (HTTP 200); only an unreadable body is an HTTP error.
func (a *API) rpcHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body exceeds %d bytes", MaxBodyBytes))
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_json", "reading the body failed")
		return
	}
	if !json.Valid(body) {
		writeError(w, http.StatusBadRequest, "invalid_json", "body is not JSON")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(a.rpc.DispatchFrame(ipc.WithClient(r.Context(), "dashboard"), body))
}

// attachGrant is one unused attach token.
type attachGrant struct {
	session string
	expires time.Time
}

// attachTokens holds single-use, expiring attach tokens bound to a session.
type attachTokens struct {
	mu sync.Mutex
	m  map[string]attachGrant
}

func (t *attachTokens) issue(session string, expires, now time.Time) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("attach token: %w", err)
	}
	tok := "atk_" + hex.EncodeToString(b[:])
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, g := range t.m {
		if !now.Before(g.expires) {
			delete(t.m, k)
		}
	}
	t.m[tok] = attachGrant{session: session, expires: expires}
	return tok, nil
}

// consume spends tok for session: it must exist, be unexpired and be bound
// to session. A token is removed on any presentation, valid or not.
func (t *attachTokens) consume(tok, session string, now time.Time) error {
	t.mu.Lock()
	g, ok := t.m[tok]
	delete(t.m, tok)
	t.mu.Unlock()
	switch {
	case !ok:
		return errors.New("unknown or already used attach token")
	case !now.Before(g.expires):
		return errors.New("attach token expired")
	case g.session != session:
		return errors.New("attach token was issued for another session")
	}
	return nil
}
