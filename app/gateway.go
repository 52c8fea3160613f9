package app

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"

	"agenthub/app/settings"
	"agenthub/ipc"
	"agenthub/ipc/devices"
	"agenthub/ipc/gatewaylink"
	"agenthub/ipc/rpc"
)

// DevicesEvent is the Wails event telling the window which devices wait
// for confirmation (payload: []gatewaylink.PendingDevice); the dashboard
// page polls listDevices instead.
const DevicesEvent = "app:devicesPending"

// MethodGetInfo answers Info over RPC (the gateway's page has no /api/info);
// through a gateway it leaves out what only the hub's own user may see.
const MethodGetInfo = "getInfo"

// startGateway builds the one RPC dispatcher every transport shares (the
// hub's methods, device management, getInfo), the device trust of the data
// dir and the gateway link, and connects it when a gateway is configured
// (--gateway, else settings' gateway_url). Without one nothing starts.
func (in *Instance) startGateway() error {
	d := rpc.NewDispatcher(in.log)
	rpc.RegisterHub(d, in.Hub, in.Bus.Reader())
	in.RPC = d
	mgr, err := gatewaylink.NewManager(gatewaylink.Options{
		Bus: in.Bus, RPC: d, Devices: devices.Open(in.Config.DataDir), Logger: in.log,
		OnPending: func(p []gatewaylink.PendingDevice) {
			if f := in.devicePrompt.Load(); f != nil {
				(*f)(p)
			}
		},
	})
	if err != nil {
		return err
	}
	in.Gateway = mgr
	gatewaylink.RegisterMethods(d, mgr)
	d.Register(MethodGetInfo, func(ctx context.Context, _ json.RawMessage) (any, error) {
		info := in.Info()
		if strings.HasPrefix(ipc.ClientOf(ctx), "gateway:") {
			// The dashboard URL carries its token; paths are the hub's business.
			info.DashboardURL, info.DataDir, info.LogFile = "", "", ""
		}
		return info, nil
	})
	in.settings.AddListener(func(s settings.Settings) {
		if !in.Config.GatewaySet {
			in.configureGateway(s.GatewayURL)
		}
	})
	url := in.Config.Gateway
	if !in.Config.GatewaySet {
		url = in.settings.Current().GatewayURL
	}
	in.configureGateway(url)
	return nil
}

// configureGateway points the link at url ("" = off). A URL the link
// refuses (plain http to another host without --gateway-insecure) is
// logged and leaves the link off; the window shows it through
// listDevices' gateway status.
func (in *Instance) configureGateway(url string) {
	if err := in.Gateway.Configure(url, in.Config.GatewayInsecure); err != nil {
		in.log.Error("gateway not connected", "err", err)
		_ = in.Gateway.Configure("", false)
	}
}

// SetDevicePrompt sets what is called whenever the devices waiting for
// confirmation change (the desktop window emits DevicesEvent).
func (in *Instance) SetDevicePrompt(f func([]gatewaylink.PendingDevice)) {
	in.devicePrompt.Store(&f)
}

// devicePromptFunc is the hook's type (an atomic pointer in Instance).
type devicePromptFunc = atomic.Pointer[func([]gatewaylink.PendingDevice)]
