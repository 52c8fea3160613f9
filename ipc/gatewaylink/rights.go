package gatewaylink

import (
	"agenthub/ipc/devices"
	"agenthub/ipc/rpc"
)

// Device management is for the hub's own user (the window and the local
// dashboard): no device may call these through a gateway, whatever its rights.
const (
	MethodListDevices     = "listDevices"
	MethodPairDevice      = "pairDevice"
	MethodAnswerDevice    = "answerDevice"
	MethodRevokeDevice    = "revokeDevice"
	MethodSetDeviceRights = "setDeviceRights"
)

var localOnly = map[string]bool{
	MethodListDevices: true, MethodPairDevice: true, MethodAnswerDevice: true,
	MethodRevokeDevice: true, MethodSetDeviceRights: true,
}

// readMethods are what a read-only device may call: watch a session,
// read its history, search, read tool output — nothing that submits,
// approves, cancels, changes a session or the settings, or runs a tool.
var readMethods = map[string]bool{
	MethodSubscribe: true, MethodUnsubscribe: true, MethodGetHubInfo: true, "getInfo": true,
	rpc.MethodGetAgentMessages: true, rpc.MethodListSessions: true, rpc.MethodGetSession: true,
	rpc.MethodExportSession: true, rpc.MethodListModels: true, rpc.MethodListApprovals: true,
	rpc.MethodListMCPServers: true, "search": true, "readToolOutput": true, "getInstructions": true,
	"getTurnChanges": true, "readAttachment": true,
}

// allowed reports whether a device with rights may call method: nil, or
// the FORBIDDEN error to answer.
func allowed(rights devices.Rights, method string) *rpc.Error {
	if localOnly[method] {
		return errRights(method, "remote")
	}
	if rights == devices.ReadOnly && !readMethods[method] {
		return errRights(method, rights)
	}
	return nil
}
