//go:build !unix

package devices

// lockFile is a no-op where flock does not exist: only this process's
// mutex orders changes there (agenthub devices and the running hub may
// then race on the file).
func lockFile(string) (func(), error) { return func() {}, nil }
