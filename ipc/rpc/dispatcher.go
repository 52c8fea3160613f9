// Package rpc is the hub RPC protocol of seed 003: request frames
// {"type":"request","requestId","method","params"} dispatched to one handler
// per method, answered with {"type":"response","requestId","ok":true,"payload"}
// or {"type":"response","requestId","ok":false,"error":{"code","message"}}.
// The dispatcher is transport-agnostic: the WebSocket, POST /rpc and the
// Wails bridge all feed it the same frames.
package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"sync"

	"agenthub/ipc"
)

// Error codes of seed 003.
const (
	// CodeMethodNotFound: the requested method is not registered.
	CodeMethodNotFound = "METHOD_NOT_FOUND"
	// CodeInvalidParams: params are missing, malformed or out of range.
	CodeInvalidParams = "INVALID_PARAMS"
	// CodeAgentNotFound: the agentId (session id) names no session.
	CodeAgentNotFound = "AGENT_NOT_FOUND"
	// CodeRPCError: any other failure (the catch-all).
	CodeRPCError = "RPC_ERROR"
)

// Frame type discriminators.
const (
	TypeRequest  = "request"
	TypeResponse = "response"
)

// MaxFrameBytes bounds a request frame accepted by DispatchFrame (1 MiB, the
// WebSocket client frame bound of DESIGN.md §3).
const MaxFrameBytes = 1 << 20

// Error is a protocol error with a seed 003 code. Handlers return it (or an
// error wrapping one of the ipc sentinels) to choose the code.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error implements error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError maps any error to its protocol form: an *Error in the chain is kept;
// ipc.ErrSessionNotFound → AGENT_NOT_FOUND; ipc.ErrInvalidInput and
// ipc.ErrTurnNotFound → INVALID_PARAMS; everything else (ipc.ErrQueueFull,
// internal failures) → RPC_ERROR. The message is the error's text.
func AsError(err error) *Error {
	var pe *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, ipc.ErrSessionNotFound):
		return &Error{Code: CodeAgentNotFound, Message: err.Error()}
	case errors.Is(err, ipc.ErrInvalidInput), errors.Is(err, ipc.ErrTurnNotFound):
		return &Error{Code: CodeInvalidParams, Message: err.Error()}
	default:
		return &Error{Code: CodeRPCError, Message: err.Error()}
	}
}

// Request is a decoded request frame. Params is the raw JSON ("null" or
// absent when the client sent none).
type Request struct {
	Type      string          `json:"type"`
	RequestID string          `json:"requestId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params,omitempty"`
}

// Response is a response frame. Exactly one of Payload (OK) or Err (!OK) is
// meaningful; MarshalJSON writes the seed 003 shape for each.
type Response struct {
	RequestID string
	OK        bool
	Payload   any
	Err       *Error
}

type okFrame struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	OK        bool   `json:"ok"`
	Payload   any    `json:"payload"`
}

type errFrame struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	OK        bool   `json:"ok"`
	Error     *Error `json:"error"`
}

// MarshalJSON implements json.Marshaler with the seed 003 frame shapes.
func (r Response) MarshalJSON() ([]byte, error) {
	if r.OK {
		return json.Marshal(okFrame{Type: TypeResponse, RequestID: r.RequestID, OK: true, Payload: r.Payload})
	}
	e := r.Err
	if e == nil {
		e = &Error{Code: CodeRPCError, Message: "unknown error"}
	}
	return json.Marshal(errFrame{Type: TypeResponse, RequestID: r.RequestID, OK: false, Error: e})
}

// Handler serves one method. params is the request's raw params (nil when
// absent). The returned value is marshalled as the response payload; an
// error is mapped with AsError.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Dispatcher routes requests to one registered handler per method. It is
// safe for concurrent use; handlers run on the caller's goroutine.
type Dispatcher struct {
	mu       sync.RWMutex
	handlers map[string]Handler
	log      *slog.Logger
}

// NewDispatcher returns an empty dispatcher; a nil logger discards.
func NewDispatcher(log *slog.Logger) *Dispatcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Dispatcher{handlers: map[string]Handler{}, log: log}
}

// Register adds the handler for method. It panics on an empty method, a nil
// handler or a duplicate registration (programming errors, found at start-up).
func (d *Dispatcher) Register(method string, h Handler) {
	if method == "" || h == nil {
		panic("rpc: Register needs a method name and a handler")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, dup := d.handlers[method]; dup {
		panic("rpc: method registered twice: " + method)
	}
	d.handlers[method] = h
}

// Methods lists the registered methods, sorted.
func (d *Dispatcher) Methods() []string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]string, 0, len(d.handlers))
	for m := range d.handlers {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Call runs the handler for req.Method and returns its response. An unknown
// method gets METHOD_NOT_FOUND; a handler panic is recovered, logged and
// answered with RPC_ERROR. Call never returns a response without requestId
// echoed.
func (d *Dispatcher) Call(ctx context.Context, req Request) (resp Response) {
	resp.RequestID = req.RequestID
	if req.Method == "" {
		resp.Err = Errorf(CodeInvalidParams, "request has no method")
		return resp
	}
	d.mu.RLock()
	h, ok := d.handlers[req.Method]
	d.mu.RUnlock()
	if !ok {
		resp.Err = Errorf(CodeMethodNotFound, "unknown method %q", req.Method)
		return resp
	}
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("rpc handler panicked", "method", req.Method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp = Response{RequestID: req.RequestID, Err: Errorf(CodeRPCError, "internal error in %s", req.Method)}
		}
	}()
	params := req.Params
	if isNull(params) {
		params = nil
	}
	payload, err := h(ctx, params)
	if err != nil {
		resp.Err = AsError(err)
		if resp.Err.Code == CodeRPCError {
			d.log.Warn("rpc call failed", "method", req.Method, "err", err)
		}
		return resp
	}
	resp.OK, resp.Payload = true, payload
	return resp
}

// DecodeRequest parses a request frame. It fails with an *Error
// (INVALID_PARAMS) when data is not a JSON object, its type is not "request",
// or requestId/method are missing; the requestId is returned whenever it could
// be read so the caller can still answer the right request.
func DecodeRequest(data []byte) (Request, error) {
	var req Request
	if len(data) > MaxFrameBytes {
		return req, Errorf(CodeInvalidParams, "request frame of %d bytes exceeds %d", len(data), MaxFrameBytes)
	}
	if err := json.Unmarshal(data, &req); err != nil {
		// Try to salvage the requestId for the answer.
		var probe struct {
			RequestID string `json:"requestId"`
		}
		_ = json.Unmarshal(data, &probe)
		return Request{RequestID: probe.RequestID}, Errorf(CodeInvalidParams, "malformed request frame: %v", err)
	}
	if req.Type != TypeRequest {
		return req, Errorf(CodeInvalidParams, "frame type is %q, want %q", req.Type, TypeRequest)
	}
	if req.RequestID == "" {
		return req, Errorf(CodeInvalidParams, "request frame has no requestId")
	}
	if req.Method == "" {
		return req, Errorf(CodeInvalidParams, "request frame has no method")
	}
	return req, nil
}

// DispatchFrame decodes one request frame, calls it and returns the encoded
// response frame. Malformed frames are answered with INVALID_PARAMS (echoing
// requestId when readable); it never returns an error.
//
// A frame in seed 003's RoutedMessage envelope (IsRouted) is answered in
// that envelope (DispatchRouted).
func (d *Dispatcher) DispatchFrame(ctx context.Context, data []byte) []byte {
	if IsRouted(data) {
		return d.DispatchRouted(ctx, data)
	}
	req, err := DecodeRequest(data)
	var resp Response
	if err != nil {
		resp = Response{RequestID: req.RequestID, Err: AsError(err)}
	} else {
		resp = d.Call(ctx, req)
	}
	return Encode(resp, d.log)
}

// Encode marshals a response; a payload that cannot be marshalled turns into
// an RPC_ERROR response for the same request.
func Encode(resp Response, log *slog.Logger) []byte {
	b, err := json.Marshal(resp)
	if err == nil {
		return b
	}
	if log != nil {
		log.Error("rpc response not encodable", "requestId", resp.RequestID, "err", err)
	}
	b, _ = json.Marshal(Response{RequestID: resp.RequestID, Err: Errorf(CodeRPCError, "response not encodable: %v", err)})
	return b
}

// DecodeParams unmarshals params into v (a pointer to a struct). Absent or
// null params leave v at its zero value; anything else that does not decode
// is INVALID_PARAMS naming the problem.
func DecodeParams(params json.RawMessage, v any) error {
	if isNull(params) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Errorf(CodeInvalidParams, "param %s: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return Errorf(CodeInvalidParams, "params must be an object: %v", err)
	}
	return nil
}

func isNull(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || bytes.Equal(b, []byte("null"))
}
