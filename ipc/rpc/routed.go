package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"agenthub/ipc"

	"github.com/google/uuid"
)

// Seed 003's RoutedMessage envelope, the second RPC dialect. A client that
// sends {"id","uid","from","to","action":"request","payload":{requestId,
// method, params}} is answered {"id": UUIDv7, "uid": null, "from": HubID,
// "to": <the request's from>, "action":"response", "payload":{requestId,
// ok, payload | error}}, and getAgentMessages answers with seed 003's
// AgentMessage shapes. The flat frame ({"type":"request",…}) stays the
// default; each frame is answered in the envelope it came in.
const (
	ActionRequest  = "request"
	ActionResponse = "response"
	// HubID is the hub's device id in routed responses' "from".
	HubID = "agenthub"
)

// RoutedMessage is seed 003's envelope around a request or response
// payload.
type RoutedMessage struct {
	ID      string          `json:"id"`
	UID     *string         `json:"uid"`
	From    string          `json:"from"`
	To      string          `json:"to"`
	Action  string          `json:"action"`
	Payload json.RawMessage `json:"payload"`
}

// routedRequest is a routed request's payload.
type routedRequest struct {
	RequestID string          `json:"requestId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params,omitempty"`
}

// IsRouted reports whether a client frame is in the RoutedMessage envelope:
// a JSON object with "action" and no "type".
func IsRouted(data []byte) bool {
	var probe struct {
		Type   *string         `json:"type"`
		Action json.RawMessage `json:"action"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	return probe.Type == nil && len(probe.Action) > 0
}

type routedKey struct{}

// Routed reports whether the call in ctx came in the RoutedMessage envelope
// (handlers answer seed 003's shapes then).
func Routed(ctx context.Context) bool {
	v, _ := ctx.Value(routedKey{}).(bool)
	return v
}

// NewMessageID returns a UUIDv7 (time-ordered), the id seed 003 gives
// every message and request.
func NewMessageID() string {
	id, err := uuid.NewV7()
	if err != nil { // the clock or the random source failed: still unique
		return uuid.NewString()
	}
	return id.String()
}

// DispatchRouted decodes one RoutedMessage request, calls it and returns
// the encoded RoutedMessage response. A frame that is not a routed request
// is answered INVALID_PARAMS (echoing requestId and from when readable); it
// never returns an error.
func (d *Dispatcher) DispatchRouted(ctx context.Context, data []byte) []byte {
	var env RoutedMessage
	var req routedRequest
	var resp Response
	switch err := json.Unmarshal(data, &env); {
	case len(data) > MaxFrameBytes:
		resp.Err = Errorf(CodeInvalidParams, "request frame of %d bytes exceeds %d", len(data), MaxFrameBytes)
	case err != nil:
		resp.Err = Errorf(CodeInvalidParams, "malformed RoutedMessage: %v", err)
	case env.Action != ActionRequest:
		resp.Err = Errorf(CodeInvalidParams, "action is %q, want %q", env.Action, ActionRequest)
	default:
		dec := json.NewDecoder(bytes.NewReader(env.Payload))
		if err := dec.Decode(&req); err != nil {
			resp.Err = Errorf(CodeInvalidParams, "RoutedMessage payload must be {requestId, method, params}: %v", err)
			break
		}
		resp = d.Call(context.WithValue(ctx, routedKey{}, true), Request{Type: TypeRequest, RequestID: req.RequestID, Method: req.Method, Params: req.Params})
		if req.RequestID == "" && resp.Err == nil {
			resp = Response{Err: Errorf(CodeInvalidParams, "request has no requestId")}
		}
	}
	resp.RequestID = req.RequestID
	return EncodeRouted(resp, env.From, d.log)
}

// CallRouted is Call for a request that came in the RoutedMessage envelope
// over another transport (the gateway link, ipc/gatewaylink): handlers
// answer seed 003's shapes, as for DispatchRouted.
func (d *Dispatcher) CallRouted(ctx context.Context, req Request) Response {
	return d.Call(context.WithValue(ctx, routedKey{}, true), req)
}

// RoutedPayload is resp as a RoutedMessage payload: {requestId, ok,
// payload | error}.
func RoutedPayload(resp Response, log *slog.Logger) json.RawMessage { return routedPayload(resp, log) }

// EncodeRouted wraps resp in a RoutedMessage addressed to to.
func EncodeRouted(resp Response, to string, log *slog.Logger) []byte {
	b, err := json.Marshal(RoutedMessage{ID: NewMessageID(), From: HubID, To: to, Action: ActionResponse,
		Payload: routedPayload(resp, log)})
	if err != nil { // cannot happen: the payload is valid JSON
		return []byte(fmt.Sprintf(`{"id":%q,"uid":null,"from":%q,"to":"","action":"response","payload":{"requestId":"","ok":false,"error":{"code":"RPC_ERROR","message":"response not encodable"}}}`, NewMessageID(), HubID))
	}
	return b
}

// routedPayload is the response payload {requestId, ok, payload|error}
// (the flat frame without its "type"); a payload that cannot be marshalled
// becomes an RPC_ERROR for the same request.
func routedPayload(resp Response, log *slog.Logger) json.RawMessage {
	type okPayload struct {
		RequestID string `json:"requestId"`
		OK        bool   `json:"ok"`
		Payload   any    `json:"payload"`
	}
	type errPayload struct {
		RequestID string `json:"requestId"`
		OK        bool   `json:"ok"`
		Error     *Error `json:"error"`
	}
	if resp.OK {
		b, err := json.Marshal(okPayload{resp.RequestID, true, resp.Payload})
		if err == nil {
			return b
		}
		if log != nil {
			log.Error("rpc response not encodable", "requestId", resp.RequestID, "err", err)
		}
		resp.Err = Errorf(CodeRPCError, "response not encodable: %v", err)
	}
	e := resp.Err
	if e == nil {
		e = &Error{Code: CodeRPCError, Message: "unknown error"}
	}
	b, _ := json.Marshal(errPayload{resp.RequestID, false, e})
	return b
}

// agentMessagesPage is getAgentMessages' result in seed 003's shapes.
type agentMessagesPage struct {
	Messages []ipc.AgentMessage `json:"messages"`
	Total    int                `json:"total"`
	Offset   int                `json:"offset"`
	Limit    int                `json:"limit"`
}

type agentMessagesBeforePage struct {
	Messages []ipc.AgentMessage `json:"messages"`
	HasMore  bool               `json:"has_more"`
}

// seed003Shapes converts a getAgentMessages result for a routed call.
func seed003Shapes(ctx context.Context, v any) any {
	if !Routed(ctx) {
		return v
	}
	switch p := v.(type) {
	case MessagesPage:
		return agentMessagesPage{Messages: ipc.ToAgentMessages(p.Messages), Total: p.Total, Offset: p.Offset, Limit: p.Limit}
	case MessagesBeforePage:
		return agentMessagesBeforePage{Messages: ipc.ToAgentMessages(p.Messages), HasMore: p.HasMore}
	}
	return v
}
