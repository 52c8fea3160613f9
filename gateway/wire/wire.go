// Package wire is the device protocol of seeds 000 and 003 as multica's
// gateway and SDK publish it (multica-ai/multica, src/gateway and
// packages/sdk): Socket.io at path /ws; a device connects with deviceId and
// deviceType in the handshake query and is told `registered`; `send`
// carries a RoutedMessage that the gateway delivers to the `to` device as
// `receive`, or answers `send_error`; `list-devices`; `ping`/`pong`.
// Agent Hub's gateway (package gateway), the hub's link (ipc/gatewaylink)
// and the Go client (gateway/client) share these names. The additions of
// Agent Hub (verify rights, subscriptions and cursors) are in
// docs/protocol.md §11.
package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Path is the Socket.io path of every gateway.
const Path = "/ws"

// Socket.io event names (the SDK's GatewayEvents).
const (
	EventPing        = "ping"
	EventPong        = "pong"
	EventRegistered  = "registered"
	EventListDevices = "list-devices"
	EventSend        = "send"
	EventReceive     = "receive"
	EventSendError   = "send_error"
)

// Handshake query keys.
const (
	QueryDeviceID   = "deviceId"
	QueryDeviceType = "deviceType"
)

// Device types of the SDK's DeviceType.
const (
	TypeClient = "client"
	TypeHub    = "hub"
	TypeAgent  = "agent"
)

// send_error codes (the SDK's SendErrorResponse.code).
const (
	CodeDeviceNotFound = "DEVICE_NOT_FOUND"
	CodeNotRegistered  = "NOT_REGISTERED"
	CodeInvalidMessage = "INVALID_MESSAGE"
)

// RoutedMessage actions. Request and response are seed 003's RPC; stream
// carries seed 000's StreamPayload frames. The rest are Agent Hub's
// (docs/protocol.md §11): a subscription's snapshot, its end, and the
// hub's "I am back" after its link (re)registers.
const (
	ActionRequest   = "request"
	ActionResponse  = "response"
	ActionStream    = "stream"
	ActionSnapshot  = "snapshot"
	ActionStreamEnd = "stream_end"
	ActionHubOnline = "hub_online"
)

// RPC error codes the hub adds to seed 003's (multica's verify handler
// answers UNAUTHORIZED and REJECTED; FORBIDDEN is Agent Hub's, for a
// device whose rights do not cover the method).
const (
	CodeUnauthorized = "UNAUTHORIZED"
	CodeRejected     = "REJECTED"
	CodeForbidden    = "FORBIDDEN"
)

// ErrTextInUse is the `registered` error of a second socket for an id
// (multica's gateway's words, which clients may match).
const ErrTextInUse = "Device ID already in use"

// MaxDeviceIDLen bounds a device id (multica's are UUIDv7, 36 characters).
const MaxDeviceIDLen = 128

// DeviceInfo is one registered device (the SDK's DeviceInfo).
type DeviceInfo struct {
	DeviceID   string `json:"deviceId"`
	DeviceType string `json:"deviceType"`
}

// Registered is the `registered` event's payload (RegisteredResponse).
type Registered struct {
	Success  bool   `json:"success"`
	DeviceID string `json:"deviceId"`
	Error    string `json:"error,omitempty"`
}

// RoutedMessage is the envelope of every `send` and `receive`.
type RoutedMessage struct {
	// ID is a UUIDv7 chosen by the sender.
	ID string `json:"id"`
	// UID is the user id, null until a login exists (always null here).
	UID *string `json:"uid"`
	// From is the sender's registered device id (the gateway checks it).
	From string `json:"from"`
	// To is the recipient's device id.
	To string `json:"to"`
	// Action names the payload's kind (the Action* constants, or any other).
	Action string `json:"action"`
	// Payload is the action's body, passed through untouched.
	Payload json.RawMessage `json:"payload"`
	// FromConn is Agent Hub's addition, set by its gateway on delivery
	// (whatever the sender wrote is replaced): an opaque id of the sender's
	// current connection. The hub binds a verification to it, so a device
	// that reconnects — or anyone who later registers its id — must verify
	// again. Gateways that do not set it leave it empty.
	FromConn string `json:"fromConn,omitempty"`
}

// SendError is the `send_error` event's payload (SendErrorResponse).
type SendError struct {
	MessageID string `json:"messageId"`
	Error     string `json:"error"`
	Code      string `json:"code"`
}

// ListDevices is the answer to `list-devices` (ListDevicesResponse).
type ListDevices struct {
	Devices []DeviceInfo `json:"devices"`
}

// Pong answers `ping` (PongResponse): emitted as the `pong` event with Data,
// and as the ping's acknowledgement when the client asked for one.
type Pong struct {
	Event string `json:"event"`
	Data  string `json:"data"`
}

// ValidDeviceType reports whether t is one of the SDK's device types.
func ValidDeviceType(t string) bool {
	return t == TypeClient || t == TypeHub || t == TypeAgent
}

// ValidateDeviceID checks a device id: 1–MaxDeviceIDLen bytes of printable
// UTF-8 without spaces (ids appear in logs and in the hub's prompts).
func ValidateDeviceID(id string) error {
	if id == "" {
		return errors.New("device id is empty")
	}
	if len(id) > MaxDeviceIDLen {
		return fmt.Errorf("device id is %d bytes long, at most %d", len(id), MaxDeviceIDLen)
	}
	if !utf8.ValidString(id) {
		return errors.New("device id is not UTF-8")
	}
	for _, r := range id {
		if r <= ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("device id contains %U", r)
		}
	}
	return nil
}

// Validate checks a RoutedMessage as the gateway routes it: string id,
// from, to and action, and a payload present.
func (m RoutedMessage) Validate() error {
	switch {
	case m.ID == "":
		return errors.New("message has no id")
	case m.To == "":
		return errors.New("message has no recipient (to)")
	case m.Action == "":
		return errors.New("message has no action")
	case len(m.Payload) == 0:
		return errors.New("message has no payload")
	}
	return nil
}
