package gatewaylink

import (
	"context"
	"encoding/json"
	"net/url"
	"time"

	"agenthub/ipc/devices"
	"agenthub/ipc/rpc"
)

// DeviceView is a confirmed device as the window lists it.
type DeviceView struct {
	DeviceID string            `json:"deviceId"`
	Rights   devices.Rights    `json:"rights"`
	AddedAt  time.Time         `json:"addedAt"`
	Meta     map[string]string `json:"meta,omitempty"`
	// Verified: the device is verified on the hub's current gateway connection.
	Verified bool `json:"verified"`
}

// DevicesView answers listDevices.
type DevicesView struct {
	Gateway Status          `json:"gateway"`
	Devices []DeviceView    `json:"devices"`
	Pending []PendingDevice `json:"pending"`
}

// PairView answers pairDevice: the token (shown once) and, with a gateway,
// the link that opens the UI there already paired.
type PairView struct {
	Token     string         `json:"token"`
	Rights    devices.Rights `json:"rights"`
	ExpiresAt time.Time      `json:"expiresAt"`
	HubID     string         `json:"hubId"`
	Link      string         `json:"link,omitempty"`
}

// List reports the gateway, the confirmed devices and the pending ones.
func (m *Manager) List() (DevicesView, error) {
	ds, err := m.opts.Devices.Devices()
	if err != nil {
		return DevicesView{}, err
	}
	out := DevicesView{Gateway: m.Status(), Devices: make([]DeviceView, 0, len(ds)), Pending: m.Pending()}
	l := m.current()
	for _, d := range ds {
		v := DeviceView{DeviceID: d.ID, Rights: d.Rights, AddedAt: d.AddedAt, Meta: d.Meta}
		if l != nil {
			l.mu.Lock()
			v.Verified = l.sessions[d.ID] != nil
			l.mu.Unlock()
		}
		out.Devices = append(out.Devices, v)
	}
	return out, nil
}

// Pair mints a pairing token (devices.Store.Pair) and its link.
func (m *Manager) Pair(rights devices.Rights) (PairView, error) {
	hubID, err := m.opts.Devices.HubID()
	if err != nil {
		return PairView{}, err
	}
	tok, exp, err := m.opts.Devices.Pair(rights)
	if err != nil {
		return PairView{}, err
	}
	v := PairView{Token: tok, Rights: rights, ExpiresAt: exp.UTC(), HubID: hubID}
	if st := m.Status(); st.URL != "" {
		v.Link = PairLink(st.URL, hubID, tok)
	}
	return v, nil
}

// PairLink is the address that opens the gateway's UI paired with hubID
// by token: the fragment never reaches the gateway's logs.
func PairLink(gatewayURL, hubID, token string) string {
	q := url.Values{"hub": {hubID}, "token": {token}}
	return gatewayURL + "/#" + q.Encode()
}

// RegisterMethods adds the device-management methods to d (the local
// transports' dispatcher; the link refuses them to every device).
func RegisterMethods(d *rpc.Dispatcher, m *Manager) {
	d.Register(MethodListDevices, func(context.Context, json.RawMessage) (any, error) { return m.List() })
	d.Register(MethodPairDevice, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			Rights string `json:"rights"`
		}
		if err := rpc.DecodeParams(raw, &p); err != nil {
			return nil, err
		}
		r, err := devices.ParseRights(p.Rights)
		if err != nil {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "%v", err)
		}
		return m.Pair(r)
	})
	d.Register(MethodAnswerDevice, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			DeviceID string `json:"deviceId"`
			Allow    *bool  `json:"allow"`
			Rights   string `json:"rights"`
		}
		if err := rpc.DecodeParams(raw, &p); err != nil {
			return nil, err
		}
		if p.DeviceID == "" || p.Allow == nil {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "answerDevice needs deviceId and allow")
		}
		var r devices.Rights
		if p.Rights != "" {
			var err error
			if r, err = devices.ParseRights(p.Rights); err != nil {
				return nil, rpc.Errorf(rpc.CodeInvalidParams, "%v", err)
			}
		}
		if err := m.Answer(p.DeviceID, *p.Allow, r); err != nil {
			return nil, err
		}
		return map[string]any{"deviceId": p.DeviceID, "allowed": *p.Allow}, nil
	})
	d.Register(MethodRevokeDevice, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			DeviceID string `json:"deviceId"`
		}
		if err := rpc.DecodeParams(raw, &p); err != nil {
			return nil, err
		}
		if p.DeviceID == "" {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "revokeDevice needs deviceId")
		}
		ok, err := m.Revoke(p.DeviceID)
		if err != nil {
			return nil, err
		}
		return map[string]any{"deviceId": p.DeviceID, "revoked": ok}, nil
	})
	d.Register(MethodSetDeviceRights, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			DeviceID string `json:"deviceId"`
			Rights   string `json:"rights"`
		}
		if err := rpc.DecodeParams(raw, &p); err != nil {
			return nil, err
		}
		r, err := devices.ParseRights(p.Rights)
		if err != nil || p.DeviceID == "" || p.Rights == "" {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "setDeviceRights needs deviceId and rights (full or read-only)")
		}
		if err := m.SetRights(p.DeviceID, r); err != nil {
			return nil, err
		}
		return map[string]any{"deviceId": p.DeviceID, "rights": r}, nil
	})
}
