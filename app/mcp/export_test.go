package mcp

// SetCancelChecked installs a hook called when the check after a cancelled
// call has decided (restarted or not).
func (m *Manager) SetCancelChecked(fn func(server string, restarted bool)) { m.cancelChecked = fn }
