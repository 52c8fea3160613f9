package app

import (
	"agenthub/app/hub"
	"agenthub/app/search"
	"agenthub/app/settings"
	"agenthub/app/window"
	"agenthub/ipc"
	"agenthub/ipc/dialect"
)

// The seams the composition root joins, checked at compile time: the hub
// reads its settings through the settings service, answers the window's
// quit question and serves every transport (ipc.HubAPI); the search index
// sits between the bus and the store; the bus is given the seed dialects.
var (
	_ hub.Settings         = (*settings.Service)(nil)
	_ hub.ThinkingSettings = (*settings.Service)(nil)
	_ hub.ApprovalSettings = (*settings.Service)(nil)
	_ hub.TitleSettings    = (*settings.Service)(nil)
	_ window.Turns         = (*hub.Hub)(nil)
	_ ipc.HubAPI           = (*hub.Hub)(nil)
	_ ipc.Searcher         = (*search.Index)(nil)
	_ ipc.Dialects         = (*dialect.Set)(nil)
)
