package wailsipc

// SetTestHooks installs hooks that let a test force interleavings of the
// bridge's goroutines: ended runs inside the pump when the core ended a
// subscription, after its closed batch is queued and before it leaves the
// table; releasing runs when a Hello, DomReady or Unsubscribe is about to
// wait for a pump. Set them before the first Subscribe.
func SetTestHooks(s *Service, ended, releasing func()) {
	s.b.hookEnded, s.b.hookReleasing = ended, releasing
}
